package lang

import (
	"path"
	"strings"
	"unicode"
)

// Translations of one documentation page: the page under a locale folder
// (docs/zh/docs/tutorial/x.md, content/pt-BR/guide.md) or with a language
// suffix (README.zh-CN.md, index.ja.md, README_JP.md). Locale finds the tag
// and the page; gather counts the versions of a page once (docs/gathering.md,
// "Translations"). Nothing here says a path is a translation on its own: a
// folder named like a language ("ca" for certificates, "es" for ES modules)
// is one only when the same page also exists in another language, which the
// caller checks over the whole tree.

// docTextExts are the extensions of documentation text whose translations
// Locale recognizes; code, data and templates in locale folders are not
// pages.
var docTextExts = map[string]bool{
	".md": true, ".markdown": true, ".mdx": true, ".rst": true, ".txt": true,
	".adoc": true, ".asciidoc": true,
}

// languages are the ISO 639-1 codes, the primary subtag of a locale tag.
var languages = setOf(`aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca
ce ch co cr cs cu cv cy da de dv dz ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu
gv ha he hi ho hr ht hu hy hz ia id ie ig ii ik io is it iu ja jv ka kg ki kj kk kl km kn ko
kr ks ku kv kw ky la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd ne ng nl
nn no nr nv ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl sm sn
so sq sr ss st su sv sw ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz ve vi vo wa wo
xh yi yo za zh zu`)

// scripts are the script subtags a locale tag may carry (zh-Hant, sr-Latn).
var scripts = setOf(`hans hant latn cyrl arab deva`)

// countryTags are the country codes written alone as a language suffix
// (README_CN.md, README-JP.md), with the tag they stand for.
var countryTags = map[string]string{
	"cn": "zh-cn", "tw": "zh-tw", "hk": "zh-hk", "jp": "ja", "kr": "ko", "br": "pt-br",
}

func setOf(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// Tag returns s as a locale tag, lowercase with hyphens ("pt-br",
// "zh-hant"), or "" when s is not one: an ISO 639-1 language, then at most
// a script (four letters) and a region (two letters or three digits),
// separated by "-" or "_".
func Tag(s string) string {
	// Most names are not tags: two letters, then the end or a separator.
	letter := func(c byte) bool { return isLower(c) || isUpper(c) }
	if len(s) < 2 || !letter(s[0]) || !letter(s[1]) || len(s) > 2 && s[2] != '-' && s[2] != '_' {
		return ""
	}
	if len(s) == 2 {
		// The common case, without splitting (CopyLocale asks of every
		// folder of every path: db/, io/, os/).
		if !isLower(s[0]) || !isLower(s[1]) {
			s = strings.ToLower(s)
		}
		if languages[s] {
			return s
		}
		return ""
	}
	parts := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return r == '-' || r == '_' })
	if len(parts) == 0 || len(parts) > 3 || strings.Count(s, "-")+strings.Count(s, "_") != len(parts)-1 || !languages[parts[0]] {
		return ""
	}
	rest := parts[1:]
	if len(rest) > 0 && scripts[rest[0]] {
		rest = rest[1:]
	}
	if len(rest) > 1 {
		return ""
	}
	if len(rest) == 1 && !region(rest[0]) {
		return ""
	}
	return strings.Join(parts, "-")
}

// region reports a region subtag: two letters or three digits.
func region(s string) bool {
	if len(s) == 2 {
		return isLower(s[0]) && isLower(s[1])
	}
	return len(s) == 3 && isDigit(s[0]) && isDigit(s[1]) && isDigit(s[2])
}

func isLower(c byte) bool { return 'a' <= c && c <= 'z' }
func isUpper(c byte) bool { return 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// Locale returns the locale tag a documentation page is written in and the
// page it is a version of, for a slash path: the first directory named as a
// locale tag (docs/pt-BR/x.md is "pt-br" of docs/x.md), else a language
// suffix of the base name (README.zh-CN.md and README_zh-CN.md are "zh-cn"
// of README.md; index.ja.md is "ja" of index.md; an upper-case name takes a
// lower-case tag or a country alone after "_" or "-": README_zh.md,
// README-JP.md). A path with neither, or that is not documentation text
// (Markdown, reStructuredText, AsciiDoc, plain text), returns "" and itself.
func Locale(p string) (tag, page string) {
	base := path.Base(p)
	ext := strings.ToLower(path.Ext(base))
	if !docTextExts[ext] {
		return "", p
	}
	dir := ""
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		dir = p[:i]
	}
	for i, start := 0, 0; i <= len(dir); i++ {
		if i < len(dir) && dir[i] != '/' {
			continue
		}
		if t := Tag(dir[start:i]); t != "" {
			rest := strings.TrimPrefix(p[i:], "/")
			return t, p[:start] + rest
		}
		start = i + 1
	}
	stem := strings.TrimSuffix(base, base[len(base)-len(ext):])
	prefix := p[:len(p)-len(base)]
	// README.zh-CN.md, index.ja.md
	if i := strings.LastIndexByte(stem, '.'); i > 0 {
		if t := Tag(stem[i+1:]); t != "" {
			return t, prefix + stem[:i] + base[len(stem):]
		}
	}
	// README_zh-CN.md, README-pt_BR.md: a tag with a region after "_" or "-".
	for i := len(stem) - 1; i > 0; i-- {
		if stem[i] != '_' && stem[i] != '-' {
			continue
		}
		if t := Tag(stem[i+1:]); t != "" && strings.Contains(t, "-") {
			return t, prefix + stem[:i] + base[len(stem):]
		}
	}
	// README_zh.md, README-JP.md, CONTRIBUTING_ES.md: an upper-case name.
	if i := strings.LastIndexAny(stem, "_-"); i > 0 && len(stem)-i == 3 && upperWord(stem[:i]) {
		s := stem[i+1:]
		t := ""
		switch {
		case isLower(s[0]) && isLower(s[1]) && languages[s]:
			t = s
		case isUpper(s[0]) && isUpper(s[1]):
			l := strings.ToLower(s)
			if t = countryTags[l]; t == "" && languages[l] {
				t = l
			}
		}
		if t != "" {
			return t, prefix + stem[:i] + base[len(stem):]
		}
	}
	return "", p
}

// Copies of one file per language that are not documentation pages:
// code under a locale folder (django's conf/locale/<lang>/formats.py, one
// module per language) and gettext catalogues (<lang>/LC_MESSAGES/x.po,
// po/<lang>.po). Each holds the same names and messages as the others, so
// every copy matched a request as well as the one version a request needs
// (seven formats.py took 1,662 tokens of one SWE-bench context, and a
// catalogue holding a quoted message's translation ranked second).

// catalogueExts are gettext's: a catalogue, its template, its compiled
// form.
var catalogueExts = map[string]bool{".po": true, ".pot": true, ".mo": true}

// CopyLocale returns the locale a file other than a documentation page is
// a copy for, the file it is a copy of (its path without the locale), and
// whether it is a gettext catalogue or translation bundle: a file under
// <locale>/LC_MESSAGES/ (any locale name, "ca@valencia" as "ca-valencia"),
// a catalogue named by its locale (po/pt_BR.po), else a file under the
// first directory named as a locale tag ([Tag]). A catalogue with no
// locale (a .pot template) returns "" and itself, catalogue true. As with
// [Locale], nothing here says the path is a copy: the caller checks that
// the same file exists for other locales.
func CopyLocale(p string) (tag, page string, catalogue bool) {
	if !mayBeCopy(p) {
		return "", p, false // most paths: one pass, no lookup
	}
	base := path.Base(p)
	ext := strings.ToLower(path.Ext(base))
	dir := ""
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		dir = p[:i]
	}
	// <locale>/LC_MESSAGES/: the folder above is a locale whatever its
	// name (gettext's ll_CC@modifier, three-letter languages).
	if i := strings.Index(p, "/LC_MESSAGES/"); i > 0 {
		start := strings.LastIndexByte(p[:i], '/') + 1 // the locale folder
		return catalogueTag(p[start:i]), p[:start] + p[i+1:], true
	}
	catalogue = catalogueExts[ext]
	if catalogue {
		if t := Tag(strings.TrimSuffix(base, base[len(base)-len(ext):])); t != "" {
			return t, p[:len(p)-len(base)] + ext, true
		}
	}
	for i, start := 0, 0; i <= len(dir); i++ {
		if i < len(dir) && dir[i] != '/' {
			continue
		}
		if t := Tag(dir[start:i]); t != "" {
			return t, p[:start] + strings.TrimPrefix(p[i:], "/"), catalogue
		}
		start = i + 1
	}
	return "", p, catalogue
}

// mayBeCopy reports whether CopyLocale can find a locale in p: a folder
// that starts as a tag does (two letters, then the end or "-" or "_";
// LC_MESSAGES does too) or a catalogue's extension. The index asks of
// every file it holds, at every rebuild.
func mayBeCopy(p string) bool {
	letter := func(c byte) bool { return isLower(c) || isUpper(c) }
	start := 0
	for i := 0; i < len(p); i++ {
		if p[i] != '/' {
			continue
		}
		if n := i - start; n >= 2 && letter(p[start]) && letter(p[start+1]) && (n == 2 || p[start+2] == '-' || p[start+2] == '_') {
			return true
		}
		start = i + 1
	}
	for _, ext := range [...]string{".po", ".pot", ".mo"} {
		if n := len(p) - len(ext); n > start && strings.EqualFold(p[n:], ext) {
			return true
		}
	}
	return false
}

// catalogueTag returns a gettext locale name as a tag: [Tag]'s when it is
// one, else lowercase with "-" for "_" and "@" ("ca@valencia" is
// "ca-valencia", "cak" stays), so [Preferred] reads its language.
func catalogueTag(name string) string {
	if t := Tag(name); t != "" {
		return t
	}
	return strings.Map(func(r rune) rune {
		if r == '_' || r == '@' {
			return '-'
		}
		return unicode.ToLower(r)
	}, name)
}

// upperWord reports a name of upper-case letters, digits and "_" or "-"
// starting with a letter (README, CONTRIBUTING, CODE_OF_CONDUCT).
func upperWord(s string) bool {
	if s == "" || !isUpper(s[0]) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isUpper(c) && !isDigit(c) && c != '_' && c != '-' {
			return false
		}
	}
	return true
}

// languageNames are English names of languages a request may name ("the
// Portuguese docs"), with their tags.
var languageNames = map[string]string{
	"arabic": "ar", "bengali": "bn", "brazilian": "pt-br", "chinese": "zh", "czech": "cs",
	"dutch": "nl", "farsi": "fa", "french": "fr", "german": "de", "greek": "el",
	"hebrew": "he", "hindi": "hi", "indonesian": "id", "italian": "it", "japanese": "ja",
	"korean": "ko", "persian": "fa", "polish": "pl", "portuguese": "pt", "russian": "ru",
	"spanish": "es", "swedish": "sv", "thai": "th", "turkish": "tr", "ukrainian": "uk",
	"vietnamese": "vi",
}

// scriptTags are the scripts TextLocale counts, with the language each
// stands for; Hiragana and Katakana (Japanese) come first, then Han.
var scriptTags = [...]struct {
	table *unicode.RangeTable
	tag   string
}{
	{unicode.Hiragana, "ja"}, {unicode.Katakana, "ja"}, {unicode.Han, "zh"},
	{unicode.Hangul, "ko"}, {unicode.Cyrillic, "ru"}, {unicode.Devanagari, "hi"},
	{unicode.Arabic, "ar"}, {unicode.Hebrew, "he"}, {unicode.Thai, "th"}, {unicode.Greek, "el"},
}

// TextLocale returns the locale tag of the language a request is written in
// or asks for, "" for English or when it cannot tell: a language's name
// ("update the Japanese docs": "ja"), else the script most of its
// non-Latin letters are in (Han "zh", Han with kana "ja", Hangul "ko",
// Cyrillic "ru", or "uk" with letters only Ukrainian has, Devanagari "hi",
// Arabic "ar", Hebrew "he", Thai "th", Greek "el"), when there are at least
// three. Latin-script languages other than English are not told apart from
// it by their words.
func TextLocale(text string) string {
	// The word of ASCII letters that ends at i starts at start (none when
	// start is -1): a language's name is looked up lower-cased in buf, no
	// allocation.
	start := -1
	var buf [16]byte
	flush := func(i int) string {
		if start < 0 {
			return ""
		}
		w := text[start:i]
		start = -1
		if len(w) > len(buf) {
			return ""
		}
		for k := range len(w) {
			buf[k] = w[k] | 0x20
		}
		return languageNames[string(buf[:len(w)])]
	}
	var counts [len(scriptTags)]int
	ukrainian := false
	for i, r := range text {
		if r < 0x80 {
			if isLower(byte(r)) || isUpper(byte(r)) {
				if start < 0 {
					start = i
				}
				continue
			}
			if t := flush(i); t != "" {
				return t
			}
			continue
		}
		if t := flush(i); t != "" {
			return t
		}
		for i, sc := range scriptTags {
			if unicode.Is(sc.table, r) {
				counts[i]++
				ukrainian = ukrainian || sc.tag == "ru" && strings.ContainsRune("іїєґІЇЄҐ", r)
				break
			}
		}
	}
	if t := flush(len(text)); t != "" {
		return t
	}
	if counts[0]+counts[1] > 0 {
		// Japanese is written in kana and Han together.
		counts[0] += counts[1] + counts[2]
		counts[1], counts[2] = 0, 0
	}
	best, n := "", 2
	for i, sc := range scriptTags {
		if counts[i] > n {
			best, n = sc.tag, counts[i]
		}
	}
	if best == "ru" && ukrainian {
		return "uk"
	}
	return best
}

// Preferred returns the index of the version of a page to keep for a
// request in language want (a tag from [TextLocale], "" for English), given
// the tags of the page's versions ("" for the untagged original): the
// request's language (the same tag, else the same primary language: "zh"
// takes "zh-hant" when there is no "zh"), else the original, else English,
// else the first. tags must not be empty.
func Preferred(tags []string, want string) int {
	primary := func(t string) string {
		if i := strings.IndexByte(t, '-'); i >= 0 {
			return t[:i]
		}
		return t
	}
	best, rank := 0, 5
	for i, t := range tags {
		r := 4
		switch {
		case want != "" && t == want:
			r = 0
		case want != "" && t != "" && primary(t) == primary(want):
			r = 1
		case t == "":
			r = 2
		case primary(t) == "en":
			r = 3
		}
		if r < rank {
			best, rank = i, r
		}
	}
	return best
}
