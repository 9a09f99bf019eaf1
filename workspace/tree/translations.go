package tree

import "github.com/ctxd/ctxd/lang"

// Translations of a documentation page count once (docs/gathering.md,
// "Translations"): fastapi's docs hold each page in up to 15 languages
// (docs/<lang>/docs/...), and every version matched a request as well as
// the English one, so five translations of one page took five of the ten
// lexical places (and a fifth of the context) from the code. The ranking
// keeps the version in the request's language, else the original, else
// English ([lang.Preferred]), unless the request is about translations.

// Copies of one file per language that are not documentation count once
// the same way ([lang.CopyLocale]): django's conf/locale/<lang>/formats.py
// (a module per language) and gettext catalogues (<lang>/LC_MESSAGES/*.po,
// po/<lang>.po). A catalogue repeats the code's messages (a request
// quoting one matched every language's catalogue as well as the code that
// raises it), so a code task also ranks the version kept, and a catalogue
// without a language (a .pot template), as documentation: below the code,
// none of its targets, at most maxDocMatches beside it (gather). A
// request about translations ranks them all as what they are.

// Copies of one Python example per version count once as well
// ([lang.VersionCopy]): fastapi's docs_src/<topic>/tutorial001.py,
// tutorial001_py310.py, tutorial001_an_py39.py, ... (eight copies of one
// example took 13 of the 25 lexical places of "Fix parameter aliases").
// The ranking keeps [lang.PreferredVersion]'s copy whatever the request's
// language; two versions make a group.

// versionKey is the byPage key of a page's copies per Python version,
// apart from its locales' copies of the same path.
func versionKey(page string) string { return "\x00v:" + page }

// minCodeCopies is the number of locale folders holding one code file
// from which they are copies of it: a folder named like a language ("es"
// for ES modules, "it" for integration tests, "ms") may hold the same file
// as one other by chance, not as two others (django has 100 locales).
const minCodeCopies = 3

// pageVersions are the versions of one documentation page, or copies of
// one file, in several languages: documents of the index (in path order)
// and their locale tags ("" for the untagged original).
type pageVersions struct {
	docs []int32
	tags []string
	// english is the document kept for a request in English.
	english int32
	// code: copies of a file that is not a documentation page (code,
	// catalogues), found by lang.CopyLocale.
	code bool
	// version: copies of an example per Python version
	// (lang.VersionCopy), whatever the request's language: english is
	// the one lang.PreferredVersion keeps.
	version bool
}

// groupVersions finds the documentation pages of docs (sorted by path)
// that exist in more than one language ([lang.Locale]: locale folders and
// language suffixes), and the other files with copies under several
// locales ([lang.CopyLocale], at least minCodeCopies for code) or per
// Python version ([lang.VersionCopy], at least two). It
// returns, by document, 1 + the index of its page in pages (0: a page in
// one version, or not a page), the pages, and by document whether it is a
// gettext catalogue (nil when none is). A folder named like a language
// holding a page no other language has ("ca/" for certificates) is not a
// translation.
func groupVersions(docs []*indexDoc) (of []int32, pages []pageVersions, catalogues []bool) {
	byPage := map[string]int32{} // page -> 1 + index in pages
	for i, d := range docs {
		tag, page, code, version := "", "", false, false
		if isDocRole(d.role) {
			tag, page = lang.Locale(d.path)
		}
		if tag == "" {
			var cat bool
			tag, page, cat = lang.CopyLocale(d.path)
			if cat {
				if catalogues == nil {
					catalogues = make([]bool, len(docs))
				}
				catalogues[i] = true
			}
			code = true
		}
		// A test named for a Python version (test_x_py314.py beside
		// test_x.py) tests what that version does: not a copy.
		if tag == "" && !d.test && (catalogues == nil || !catalogues[i]) {
			tag, page = lang.VersionCopy(d.path)
			code, version = false, true // two versions make a group
		}
		if tag == "" {
			continue
		}
		// A page's key says what kind of copies it groups: a tutorial
		// per Python version is not a locale's copy of the same path.
		key := page
		if version {
			key = versionKey(page)
		}
		k := byPage[key]
		if k == 0 {
			pages = append(pages, pageVersions{code: code, version: version})
			k = int32(len(pages))
			byPage[key] = k
		}
		p := &pages[k-1]
		p.docs = append(p.docs, int32(i))
		p.tags = append(p.tags, tag)
	}
	if len(pages) == 0 {
		return nil, nil, catalogues
	}
	// The untagged originals (README.md beside README.zh-CN.md;
	// tutorial001.py beside tutorial001_py310.py).
	for i, d := range docs {
		if k := byPage[d.path]; k > 0 {
			if tag, _ := lang.Locale(d.path); tag == "" {
				p := &pages[k-1]
				p.docs = append(p.docs, int32(i))
				p.tags = append(p.tags, "")
			}
		}
		if k := byPage[versionKey(d.path)]; k > 0 && !d.test {
			if tag, _ := lang.VersionCopy(d.path); tag == "" {
				p := &pages[k-1]
				p.docs = append(p.docs, int32(i))
				p.tags = append(p.tags, "")
			}
		}
	}
	// Pages in one version are not translated: renumber the others.
	keep := make([]int32, len(pages)) // 1 + new index, 0: dropped
	n := 0
	for k := range pages {
		if v := len(pages[k].docs); v > 1 && (!pages[k].code || v >= minCodeCopies || catalogues != nil && catalogues[pages[k].docs[0]]) {
			pages[n] = pages[k]
			n++
			keep[k] = int32(n)
		}
	}
	pages = pages[:n]
	if n == 0 {
		return nil, nil, catalogues
	}
	of = make([]int32, len(docs))
	for k := range pages {
		p := &pages[k]
		for _, d := range p.docs {
			of[d] = int32(k + 1)
		}
		if p.version {
			p.english = p.docs[lang.PreferredVersion(p.tags)]
			continue
		}
		p.english = p.docs[lang.Preferred(p.tags, "")]
	}
	return of, pages, catalogues
}

// role is document d's role as a ranking for a request counts it: a
// gettext catalogue is documentation unless the request is about
// translations (allVersions).
func (ix *Index) role(d int32, allVersions bool) lang.Role {
	if ix.norms[d].catalogue && !allVersions {
		return lang.RoleDoc
	}
	return ix.norms[d].role
}

// isDocRole reports the roles of text about the code: documentation,
// changelogs, repository meta. Only they are grouped by language (the walk
// of 100k files asks Locale of a few thousand).
func isDocRole(r lang.Role) bool {
	return r == lang.RoleDoc || r == lang.RoleChangelog || r == lang.RoleMeta
}

// otherVersion reports whether document d is a version of a translated
// page that a request in language want (a locale tag, "" for English) does
// not keep.
func (ix *Index) otherVersion(d int32, want string) bool {
	k := ix.norms[d].page
	if k == 0 {
		return false
	}
	p := &ix.pages[k-1]
	if want == "" || p.version {
		return p.english != d
	}
	return p.docs[lang.Preferred(p.tags, want)] != d
}
