package secrets

import (
	"math"
	"regexp"
	"strings"
)

// PasswordRule is the rule id of ctxd's own password-assignment rule: a
// password written as a literal after a key that names it
// (password: "…", DB_PASSWORD = "…", "passwd": "…"). gitleaks'
// generic-api-key rule stops at characters passwords are made of (! & @ …),
// so `password: "S3cr3t-Pa55w0rd!"` passed through it.
const PasswordRule = "password-assignment"

// passwordQuoted is a key naming a password assigned (=, :, :=, =>, ==) a
// quoted literal without spaces; group 1 is the key, group 3 the value.
var passwordQuoted = regexp.MustCompile(`(?i)([\w.-]*(?:passw(?:or)?d|passphrase)[\w.-]*)["']?\s*(?::=|=>|==|=|:)\s*[rbu]?(["'\x60])([^"'\x60\s]{8,128})["'\x60]`)

// passwordBare is the same at the start of a line with an unquoted value
// running to the end of the line or a comment, as config files write it
// (DB_PASSWORD=…, password: …, export PGPASSWORD=…); a value holding
// brackets, parentheses, quotes or separators is code, not a literal.
var passwordBare = regexp.MustCompile(`(?i)^\s*(?:export\s+)?([\w.-]*(?:passw(?:or)?d|passphrase)[\w.-]*)\s*(?:=|:)\s*([^\s"'\x60;,(){}\[\]<>]{8,128})(?:\s+#.*)?\s*$`)

// passwordKeyWords name keys that hold something about a password rather
// than one: password_hash = "pbkdf2_sha256", PASSWORD_FIELD = "pass1".
var passwordKeyWords = []string{"hash", "field", "label", "prompt", "hint", "regex", "pattern", "policy", "length", "file", "path", "type", "env", "var", "name", "url"}

// passwordAssignments finds the password-assignment rule's secrets in
// text, skipping those already in seen. Only the lines holding "assw" or
// "ssphrase" (in any case) are matched.
func passwordAssignments(text string, seen map[finding]bool) []finding {
	var fs []finding
	line, at := 1, 0 // line number of text[at:]
	for start := 0; start < len(text); {
		k := passwordHint(text[start:])
		if k < 0 {
			break
		}
		lo := start + strings.LastIndexByte(text[start:start+k], '\n') + 1
		line += strings.Count(text[at:lo], "\n")
		at = lo
		hi := len(text)
		if e := strings.IndexByte(text[start+k:], '\n'); e >= 0 {
			hi = start + k + e
		}
		l := text[lo:hi]
		add := func(key, pw string) {
			if !passwordLike(key, pw) {
				return
			}
			f := finding{secret: pw, rule: PasswordRule, line: line}
			if !seen[f] {
				seen[f] = true
				fs = append(fs, f)
			}
		}
		for _, m := range passwordQuoted.FindAllStringSubmatch(l, -1) {
			add(m[1], m[3])
		}
		if m := passwordBare.FindStringSubmatch(l); m != nil {
			add(m[1], m[2])
		}
		start = hi + 1
	}
	return fs
}

// passwordHint returns the index of the first "assw" or "ssphrase" in s in
// any case, or -1.
func passwordHint(s string) int {
	for i := 0; i+4 <= len(s); i++ {
		c := s[i] | 0x20
		if c != 'a' || s[i+1]|0x20 != 's' || s[i+2]|0x20 != 's' {
			continue
		}
		if s[i+3]|0x20 == 'w' || strings.HasPrefix(strings.ToLower(s[i+3:min(len(s), i+9)]), "phrase") {
			return i
		}
	}
	return -1
}

// passwordLike reports that pw, assigned to key, looks like a password
// rather than a word, a reference or an example: not a placeholder, not a
// template or environment reference, not a path, letters with digits or
// symbols, and varied enough (Shannon entropy >= 3 bits per character).
func passwordLike(key, pw string) bool {
	k := strings.ToLower(key)
	if i := strings.LastIndexAny(k, ".-"); i >= 0 {
		k = k[i+1:] // obj.password, settings.db-password: the last part
	}
	for _, w := range passwordKeyWords {
		if strings.Contains(k, w) {
			return false
		}
	}
	if placeholderPassword(pw) || strings.ContainsAny(pw[:1], "$%{<[") || strings.Contains(pw, "{{") || strings.ContainsRune(pw, '/') {
		return false
	}
	w := strings.ToLower(pw)
	for _, p := range []string{"example", "changeme", "change_me", "placeholder", "xxxx", "****", "redacted", "dummy"} {
		if strings.Contains(w, p) {
			return false
		}
	}
	var letter, other bool
	for _, r := range pw {
		switch {
		case r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
			letter = true
		case r != '_' && r != '-' && r != '.':
			other = true
		}
	}
	return letter && other && entropy(pw) >= 3
}

// entropy is the Shannon entropy of s's bytes, in bits per byte.
func entropy(s string) float64 {
	var n [256]int
	for i := 0; i < len(s); i++ {
		n[s[i]]++
	}
	var h float64
	for _, c := range n {
		if c > 0 {
			p := float64(c) / float64(len(s))
			h -= p * math.Log2(p)
		}
	}
	return h
}
