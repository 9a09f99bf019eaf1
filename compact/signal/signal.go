// Package signal finds the critical signals of agent tool output: error
// and failure lines, failing test names, file:line Locations and paths,
// for Python, Go, Rust, Java and JavaScript/TypeScript test runners and
// compilers. Both conversation compactors (compact/prune and
// compact/smart) classify with it, so "error output" and "a signal" mean
// the same to both: a rewrite keeps every signal verbatim or behind a
// reference that resolves to the whole text.
package signal

import (
	"strings"
	"unicode/utf8"
)

// Line kinds, in the order a condensed view keeps them: error and failure
// lines first, then structure (diff headers, repository state), then
// file:line Locations.
const (
	LineOther    uint8 = iota
	LineError          // error, failure, panic, traceback, failing test
	LineDiffHead       // diff --git, ---/+++ file headers, @@ hunks
	LineRepo           // git status: branch, modified/new/deleted files
	LineLocation       // contains a file:line location
	LineBlob           // a long base64, hex or binary-looking line
)

// MaxSignalBytes caps a signal: long lines are compared by their first
// MaxSignalBytes bytes (a view may cut a long line after them).
const MaxSignalBytes = 160

// MaxViewLineBytes caps a line shown in a condensed view.
const MaxViewLineBytes = 240

// errorMarkers make a line an error line. They are case-sensitive, as
// tools print them, to keep prose and identifiers out.
var errorMarkers = []string{
	// Every ecosystem.
	"error:", "Error:", "ERROR", "error[", "FAIL", "fatal:", "Segmentation fault", "exit status",
	"cannot find", "No such file or directory", "command not found", "Permission denied",
	// Python: tracebacks, pytest's "E   " lines and summary.
	"Traceback (most recent call last)", "Exception", "AssertionError", "Error(", "errors during collection",
	// Go: panics, compiler and vet.
	"panic:", "undefined:", "undefined reference", "cannot use ", "declared and not used", "imported and not used",
	// Rust: rustc diagnostics, panics, libtest.
	"panicked at", "error: could not compile", "test result: FAILED",
	// Java: exceptions, Maven, Gradle, JUnit.
	"Exception in thread", "BUILD FAILURE", "Tests in error", "Caused by:",
	// JavaScript/TypeScript: jest, vitest, mocha, tsc, npm.
	"✗", "✕", "×", "npm ERR!", "AssertionError", "Expected:", "Received:",
}

// CleanLine removes terminal noise from one line: ANSI escape sequences,
// everything before the last carriage return (what a terminal shows after
// a progress bar redraws) and trailing whitespace.
func CleanLine(s string) string {
	s = strings.TrimRight(s, "\r")
	if i := strings.LastIndexByte(s, '\r'); i >= 0 {
		s = s[i+1:]
	}
	if strings.IndexByte(s, 0x1b) >= 0 {
		s = stripANSI(s)
	}
	return strings.TrimRight(s, " \t")
}

// stripANSI removes CSI (ESC [ ... final byte), OSC (ESC ] ... BEL or ESC
// \) and two-byte ESC sequences.
func stripANSI(s string) string {
	var sb strings.Builder
	sb.Grow(len(s))
	for i := 0; i < len(s); {
		c := s[i]
		if c != 0x1b {
			sb.WriteByte(c)
			i++
			continue
		}
		if i+1 >= len(s) {
			i++
			continue
		}
		switch s[i+1] {
		case '[':
			j := i + 2
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			i = min(j+1, len(s))
		case ']':
			j := i + 2
			for j < len(s) {
				if s[j] == 0x07 {
					j++
					break
				}
				if s[j] == 0x1b && j+1 < len(s) && s[j+1] == '\\' {
					j += 2
					break
				}
				j++
			}
			i = j
		default:
			// A two-byte sequence's second byte is ASCII; before a
			// multi-byte rune only the ESC goes (FuzzAnalyze: ESC ×
			// left half a rune).
			if s[i+1] < 0x80 {
				i += 2
			} else {
				i++
			}
		}
	}
	return sb.String()
}

// SplitLines splits text into lines without their newlines; a final
// newline does not start another line (as byteview.CountLines counts).
func SplitLines(text string) []string {
	if text == "" {
		return nil
	}
	lines := strings.Split(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// ClassifyLine returns the kind of a cleaned line.
func ClassifyLine(l string) uint8 {
	t := strings.TrimSpace(l)
	if t == "" {
		return LineOther
	}
	if IsBlobLine(t) {
		return LineBlob
	}
	if HasErrorMarker(t) {
		return LineError
	}
	switch {
	case strings.HasPrefix(t, "diff --git "), strings.HasPrefix(t, "+++ "), strings.HasPrefix(t, "--- a/"), strings.HasPrefix(t, "@@ "):
		return LineDiffHead
	case isRepoStateLine(t):
		return LineRepo
	}
	if len(Locations(t, nil)) > 0 {
		return LineLocation
	}
	return LineOther
}

func HasErrorMarker(s string) bool {
	if hasMarker(s) || hasTSCode(s) || isPytestE(s) || isGoDiagnostic(s) {
		return true
	}
	// Every failing-test summary line carries a marker (FAIL, ERROR,
	// ✕, ×) but jest's "● Suite › test".
	t := strings.TrimSpace(s)
	return strings.HasPrefix(t, "● ") && FailingTest(t) != ""
}

// markersByByte indexes errorMarkers by their first byte, so a line is
// scanned once instead of once per marker.
var markersByByte = func() (idx [256][]string) {
	for _, m := range errorMarkers {
		idx[m[0]] = append(idx[m[0]], m)
	}
	return idx
}()

// hasMarker reports a line that contains one of errorMarkers.
func hasMarker(s string) bool {
	for i := 0; i < len(s); i++ {
		for _, m := range markersByByte[s[i]] {
			if strings.HasPrefix(s[i:], m) {
				return true
			}
		}
	}
	return false
}

// isGoDiagnostic reports a Go tool's diagnostic: "path.go:12:2: message"
// as go vet prints its findings ("x.go:9:14: fmt.Printf format %d has arg
// s of wrong type string", "./x.go:11:4: copylocks: call of g copies lock
// value"), with no error word, as the compiler and staticcheck print
// theirs. The column and the ": " before a message that starts with no
// space tell it from a search hit: grep -n has no column, and rg
// --vimgrep's "x.go:12:2:" is followed by the line's own text, a gofmt'd
// Go line's tab indent or its first byte.
func isGoDiagnostic(s string) bool {
	t := strings.TrimSpace(s)
	i := strings.Index(t, ".go:")
	if i <= 0 || strings.ContainsAny(t[:i], " \t:") {
		return false
	}
	rest := t[i+len(".go:"):]
	for range 2 { // line, then column
		n := 0
		for n < len(rest) && '0' <= rest[n] && rest[n] <= '9' {
			n++
		}
		if n == 0 || n == len(rest) || rest[n] != ':' {
			return false
		}
		rest = rest[n+1:]
	}
	return len(rest) > 1 && rest[0] == ' ' && rest[1] != ' ' && rest[1] != '\t'
}

// isPytestE reports pytest's assertion detail lines ("E       assert 1 == 2").
func isPytestE(s string) bool {
	return len(s) > 4 && s[0] == 'E' && s[1] == ' ' && strings.TrimSpace(s[1:]) != "" && strings.HasPrefix(s, "E  ")
}

// hasTSCode reports a TypeScript diagnostic code ("TS2345:"), which
// bundlers print without the word error.
func hasTSCode(s string) bool {
	for {
		i := strings.Index(s, "TS")
		if i < 0 || i+7 > len(s) {
			return false
		}
		if allDigits(s[i+2:i+6]) && s[i+6] == ':' && (i == 0 || !isPathByte(s[i-1])) {
			return true
		}
		s = s[i+2:]
	}
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// isRepoStateLine reports a line of git status (long or porcelain form).
func isRepoStateLine(t string) bool {
	for _, p := range []string{"On branch ", "HEAD detached at ", "modified:", "new file:", "deleted:", "renamed:", "both modified:", "Your branch is "} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	// Porcelain ("XY path", trimmed): one or two status letters and a
	// path-like name.
	for _, n := range []int{1, 2} {
		if len(t) > n+1 && t[n] == ' ' && strings.Trim(t[:n], "MADRCU?!") == "" {
			p := t[n+1:]
			return !strings.ContainsRune(p, ' ') && strings.ContainsAny(p, "./")
		}
	}
	return false
}

// IsBlobLine reports a line that reads as encoded or binary data: at
// least 60 bytes of base64 or hex digits without a space (base64 wraps
// at 64 or 76), a hexdump line, or a line of 100 bytes or more full of
// control characters and replacement runes.
func IsBlobLine(t string) bool {
	if len(t) < 60 {
		return false
	}
	if isHexdumpLine(t) {
		return true
	}
	b64, digits, bad, spaces := 0, 0, 0, 0
	for i := 0; i < len(t); {
		c := t[i]
		if c < utf8.RuneSelf {
			switch {
			case c >= '0' && c <= '9':
				digits++
				b64++
			case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '+', c == '/', c == '=', c == '-', c == '_':
				b64++
			case c == ' ':
				spaces++
			case c < 0x20 && c != '\t':
				bad++
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(t[i:])
		if r == utf8.RuneError {
			bad++
		}
		i += n
	}
	n := len(t)
	// Base64 or hex without a space, with digits mixed in (an identifier
	// or a path of sixty letters is not data).
	if spaces == 0 && b64*100 >= n*97 && digits*20 >= n {
		return true
	}
	return n >= 100 && bad*10 >= n
}

// isHexdumpLine reports a line of xxd or hexdump -C output: an offset of
// 7 or 8 hex digits, then groups of hex digits.
func isHexdumpLine(t string) bool {
	i := 0
	for i < len(t) && i < 9 && isHexDigit(t[i]) {
		i++
	}
	if i < 7 || i >= len(t) || (t[i] != ':' && t[i] != ' ') {
		return false
	}
	groups := 0
	for _, f := range strings.Fields(t[i+1:]) {
		if len(f) != 2 && len(f) != 4 || !allHex(f) {
			break
		}
		groups++
	}
	return groups >= 8
}

func isHexDigit(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func allHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isHexDigit(s[i]) {
			return false
		}
	}
	return true
}

// Locations appends the file:line Locations of a line to dst: a path
// with an extension, a colon and a line number ("main.go:42",
// "src/app.py:7:3" keeps "src/app.py:7").
func Locations(l string, dst []string) []string {
	for i := 0; i < len(l); i++ {
		if l[i] != ':' || i+1 >= len(l) || l[i+1] < '0' || l[i+1] > '9' {
			continue
		}
		// The path runs back from the colon over path characters.
		j := i
		dot := false
		for j > 0 && isPathByte(l[j-1]) {
			j--
			if l[j] == '.' && j+1 < i && !dot {
				dot = isExtension(l[j+1 : i])
			}
		}
		if !dot || j == i {
			continue
		}
		k := i + 1
		for k < len(l) && l[k] >= '0' && l[k] <= '9' {
			k++
		}
		if k-i-1 > 7 {
			continue
		}
		dst = append(dst, strings.TrimLeft(l[j:k], "./"))
		i = k - 1
	}
	return dst
}

func isPathByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-' || c == '/' || c == '\\' || c == '@' || c == '+'
}

// isExtension reports a plausible file extension: 1 to 8 letters or
// digits with at least one letter.
func isExtension(s string) bool {
	if len(s) == 0 || len(s) > 8 || strings.ContainsAny(s, "/\\.") {
		return false
	}
	letter := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
			letter = true
		case c >= '0' && c <= '9':
		default:
			return false
		}
	}
	return letter
}

// capSignal cuts s to MaxSignalBytes on a rune boundary.
func capSignal(s string) string {
	if len(s) <= MaxSignalBytes {
		return s
	}
	n := MaxSignalBytes
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Signals returns the critical signals of a text, each once, in order:
// its error and failure lines (cleaned of terminal noise, trimmed, at
// most 160 bytes) and its file:line Locations. A rewrite keeps each
// verbatim or behind a reference that resolves to the whole text.
func Signals(text string) []string {
	return Analyze(text).Signals
}

// Normalized returns text as signals are compared against it: cleaned of
// terminal noise line by line.
func Normalized(text string) string {
	if strings.IndexByte(text, 0x1b) < 0 && strings.IndexByte(text, '\r') < 0 {
		return text
	}
	lines := SplitLines(text)
	for i, l := range lines {
		lines[i] = CleanLine(l)
	}
	return strings.Join(lines, "\n")
}

// Info is what a scan of a text finds: its size, kinds of lines and
// signals. The compactors cache it by content.
type Info struct {
	// Hash is the text's hex SHA-256 when the caller sets it (Analyze
	// does not hash).
	Hash  string
	Bytes int
	Lines int
	// Signals are the critical signals, each once, in order: error and
	// failure lines (cleaned, trimmed, at most MaxSignalBytes) and
	// file:line locations.
	Signals []string
	// Tests are the names of failing tests the text reports.
	Tests []string
	// IsError: error lines near the head or the tail.
	IsError bool
	// Failure: one of those lines reports a failure: it opens with an
	// error type or a tool's error prefix ("TypeError: …", "error[E0308]:",
	// "--- FAIL:", "FAILED …") or a Python traceback, where source code
	// only mentions one ("except ValueError:", "raise TypeError(",
	// "class ProtectedError(IntegrityError):"). A file read's output is
	// the file's text: it is error output only when it reports a failure.
	Failure bool
	IsDiff  bool
	// IsBuild: build or test output.
	IsBuild bool
	// Noisy: ANSI escapes, carriage returns, trailing blanks or repeats.
	Noisy    bool
	HasBlob  bool
	ErrLines int
	// Repo counts git status lines, Locs lines with locations.
	Repo int
	Locs int
	// Paths are the files a diff touches.
	Paths []string
}

// Analyze scans a text once.
func Analyze(text string) *Info {
	in := new(Info)
	AnalyzeInto(in, text)
	return in
}

// AnalyzeInto is [Analyze] into *in (overwritten), for a caller that
// keeps no analysis: a ledger reads the signals of every evicted message
// and a request of many tiny messages paid an Info for each (issue 28).
func AnalyzeInto(in *Info, text string) {
	*in = Info{Bytes: len(text)}
	lines := SplitLines(text)
	in.Lines = len(lines)
	seen := map[string]bool{}
	add := func(s string) {
		if s == "" || seen[s] {
			return
		}
		seen[s] = true
		in.Signals = append(in.Signals, s)
	}
	var locs []string
	prev := ""
	repeats := 0
	diffHeads, hunks := 0, 0
	for i, raw := range lines {
		l := CleanLine(raw)
		if l != raw {
			in.Noisy = true
		}
		if i > 0 && l == prev && l != "" {
			repeats++
		}
		prev = l
		t := strings.TrimSpace(l)
		if t == "" {
			continue
		}
		switch k := ClassifyLine(l); k {
		case LineBlob:
			in.HasBlob = true
			continue
		case LineError:
			in.ErrLines++
			if i < errHeadLines || i >= len(lines)-errTailLines {
				in.IsError = true
				if !in.Failure && (namesError(t) || strings.HasPrefix(t, "Traceback (most recent call last)")) {
					in.Failure = true
				}
			}
			add(capSignal(t))
			if name := FailingTest(t); name != "" {
				in.Tests = append(in.Tests, name)
			}
		case LineDiffHead:
			if strings.HasPrefix(t, "@@ ") {
				hunks++
			} else {
				diffHeads++
			}
			if p, ok := strings.CutPrefix(t, "+++ b/"); ok {
				in.Paths = append(in.Paths, p)
			} else if p, ok := strings.CutPrefix(t, "diff --git a/"); ok {
				if sp := strings.Index(p, " b/"); sp > 0 {
					in.Paths = append(in.Paths, p[:sp])
				}
			}
		case LineRepo:
			in.Repo++
		}
		locs = Locations(t, locs[:0])
		if len(locs) > 0 {
			in.Locs++
		}
		for _, loc := range locs {
			// A location as long as a line is compared by its first
			// MaxSignalBytes bytes too (FuzzAnalyze found a 166-byte one).
			add(capSignal(loc))
		}
		if !in.IsBuild && IsBuildLine(t) {
			in.IsBuild = true
		}
	}
	in.IsDiff = diffHeads > 0 && hunks > 0
	if repeats >= 2 {
		in.Noisy = true
	}
}

// buildMarkers make a line read as build or test output.
var buildMarkers = []string{"=== RUN", "--- PASS", "--- FAIL", "PASS", "ok  \t", "FAIL\t", "go build", "go test", "go vet", "pytest", "passed", "failed", "Tests:", "Compiling", "BUILD", "make:", "npm run", "cargo ", "tsc", "jest", "Ran "}

func IsBuildLine(t string) bool {
	for _, m := range buildMarkers {
		if strings.Contains(t, m) {
			return true
		}
	}
	return false
}
