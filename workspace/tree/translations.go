package tree

import "github.com/ctxd/ctxd/lang"

// Translations of a documentation page count once (docs/gathering.md,
// "Translations"): fastapi's docs hold each page in up to 15 languages
// (docs/<lang>/docs/...), and every version matched a request as well as
// the English one, so five translations of one page took five of the ten
// lexical places (and a fifth of the context) from the code. The ranking
// keeps the version in the request's language, else the original, else
// English ([lang.Preferred]), unless the request is about translations.

// pageVersions are the versions of one documentation page in several
// languages: documents of the index (in path order) and their locale tags
// ("" for the untagged original).
type pageVersions struct {
	docs []int32
	tags []string
	// english is the document kept for a request in English.
	english int32
}

// groupVersions finds the documentation pages of docs (sorted by path)
// that exist in more than one language ([lang.Locale]: locale folders and
// language suffixes). It returns, by document, 1 + the index of its page
// in pages (0: a page in one version, or not a page), and the pages. A
// folder named like a language holding a page no other language has
// ("ca/" for certificates) is not a translation.
func groupVersions(docs []*indexDoc) (of []int32, pages []pageVersions) {
	byPage := map[string]int32{} // page -> 1 + index in pages
	for i, d := range docs {
		if !isDocRole(d.role) {
			continue
		}
		tag, page := lang.Locale(d.path)
		if tag == "" {
			continue
		}
		k := byPage[page]
		if k == 0 {
			pages = append(pages, pageVersions{})
			k = int32(len(pages))
			byPage[page] = k
		}
		p := &pages[k-1]
		p.docs = append(p.docs, int32(i))
		p.tags = append(p.tags, tag)
	}
	if len(pages) == 0 {
		return nil, nil
	}
	// The untagged originals (README.md beside README.zh-CN.md).
	for i, d := range docs {
		if !isDocRole(d.role) {
			continue
		}
		if k := byPage[d.path]; k > 0 {
			if tag, _ := lang.Locale(d.path); tag == "" {
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
		if len(pages[k].docs) > 1 {
			pages[n] = pages[k]
			n++
			keep[k] = int32(n)
		}
	}
	pages = pages[:n]
	if n == 0 {
		return nil, nil
	}
	of = make([]int32, len(docs))
	for k := range pages {
		p := &pages[k]
		for _, d := range p.docs {
			of[d] = int32(k + 1)
		}
		p.english = p.docs[lang.Preferred(p.tags, "")]
	}
	return of, pages
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
	if want == "" {
		return p.english != d
	}
	return p.docs[lang.Preferred(p.tags, want)] != d
}
