package query

import "strings"

// fileNames returns the words of text, a request as [wordText] makes it,
// as the file names they may be (see Query.FileNames): so
// full-width punctuation ends a word and a file name written against
// Chinese text stands apart ("修复config/.npmrc：" names config/.npmrc).
func fileNames(text string) []string {
	var out []string
	seen := map[string]bool{}
	for i := 0; i < len(text); {
		// The fields between separators, as strings.FieldsFunc reads
		// them (the separators are ASCII, so a byte is a rune's).
		if fileNameSep(rune(text[i])) {
			i++
			continue
		}
		j := i + 1
		for j < len(text) && !fileNameSep(rune(text[j])) {
			j++
		}
		w := text[i:j]
		i = j
		w = strings.ReplaceAll(w, "\\", "/")
		w = strings.TrimRight(cutLineSuffix(strings.TrimRight(w, ".:?!")), ".:?!")
		for strings.HasPrefix(w, "./") {
			w = w[2:]
		}
		if strings.Trim(w, "./") == "" || strings.Contains(w, "://") || seen[w] {
			continue
		}
		seen[w] = true
		out = append(out, w)
	}
	return out
}

// fileNameSep reports the characters that end a word a file name may be:
// spaces, quotes, brackets and the separators of a list or an
// assignment.
func fileNameSep(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\r', '\f', '\v', '`', '\'', '"', '(', ')', '[', ']', '{', '}', '<', '>', ',', ';', '|', '=':
		return true
	}
	return false
}

// cutLineSuffix cuts a location's line and column after a file name:
// "config/.npmrc:3" and "app.py:12:5" are config/.npmrc and app.py.
func cutLineSuffix(w string) string {
	for {
		i := strings.LastIndexByte(w, ':')
		if i < 0 || i == len(w)-1 || strings.TrimLeft(w[i+1:], "0123456789") != "" {
			return w
		}
		w = w[:i]
	}
}
