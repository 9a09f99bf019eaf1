package signal

import "strings"

// FailingTest returns the name of the failing test a line reports, or ""
// when it reports none. It knows the summary lines of:
//
//	go test            --- FAIL: TestName (0.01s)
//	pytest             FAILED tests/test_x.py::test_name - AssertionError
//	                   tests/test_x.py::test_name FAILED
//	unittest           FAIL: test_name (module.Class)  / ERROR: test_name (...)
//	cargo test         test module::name ... FAILED
//	JUnit/Maven        testName(com.example.FooTest)  Time elapsed: ... <<< FAILURE!
//	                   [ERROR]   FooTest.testName:42 expected ...
//	Gradle             FooTest > testName() FAILED
//	jest/vitest        ● Suite › test name      ✕ test name (3 ms)   FAIL src/x.test.ts
//	mocha              1) Suite test name:
func FailingTest(line string) string {
	t := strings.TrimSpace(line)
	switch {
	case strings.HasPrefix(t, "test ") && strings.HasSuffix(t, "... FAILED"):
		return firstField(t[len("test "):])
	case strings.HasPrefix(t, "--- FAIL: "):
		return firstField(t[len("--- FAIL: "):])
	case strings.HasPrefix(t, "FAILED "):
		name, _, _ := strings.Cut(t[len("FAILED "):], " ")
		return name
	case strings.HasSuffix(t, " FAILED") && strings.Contains(t, "::"):
		return firstField(t)
	case strings.HasPrefix(t, "FAIL: "), strings.HasPrefix(t, "ERROR: test"):
		_, rest, _ := strings.Cut(t, ": ")
		return strings.TrimSpace(rest)
	case strings.HasSuffix(t, "<<< FAILURE!") || strings.HasSuffix(t, "<<< ERROR!"):
		return firstField(t)
	case strings.HasPrefix(t, "[ERROR]   ") && strings.Contains(t, "Test"):
		name, _, _ := strings.Cut(strings.TrimSpace(t[len("[ERROR]"):]), ":")
		return firstField(name)
	case strings.Contains(t, " > ") && strings.HasSuffix(t, " FAILED"):
		return strings.TrimSuffix(t, " FAILED")
	case strings.HasPrefix(t, "● ") && strings.Contains(t, " › "):
		return strings.TrimPrefix(t, "● ")
	case strings.HasPrefix(t, "✕ ") || strings.HasPrefix(t, "× "):
		name := strings.TrimSpace(t[strings.IndexByte(t, ' ')+1:])
		if i := strings.LastIndex(name, " ("); i > 0 && strings.HasSuffix(name, ")") {
			name = name[:i]
		}
		return name
	case strings.HasPrefix(t, "FAIL ") && (strings.Contains(t, ".test.") || strings.Contains(t, ".spec.")):
		return firstField(t[len("FAIL "):])
	}
	return ""
}

func firstField(s string) string {
	if f := strings.Fields(s); len(f) > 0 {
		return f[0]
	}
	return ""
}

// Error lines count toward a text reading as error output only near its
// head or its tail: that is where a failure shows (a traceback or a test
// summary ends the output); an error line in the middle of a long log is
// a signal, but the output is not an error.
const (
	errHeadLines = 40
	errTailLines = 60
)

// LooksLikeError reports text that reads as error or failure output: an
// error line (see [ClassifyLine]) among its first 40 or last 60 lines
// ([Info.IsError] is the same rule).
func LooksLikeError(text string) bool {
	lines := SplitLines(text)
	for i, l := range lines {
		if i >= errHeadLines && i < len(lines)-errTailLines {
			continue
		}
		if t := strings.TrimSpace(CleanLine(l)); t != "" && ClassifyLine(t) == LineError {
			return true
		}
	}
	return false
}

// ErrorLine picks the most telling error line of a text: the last line
// that names an exception or error type ("AssertionError: ...",
// "TypeError: ...", "error[E0308]: ...", "panic: ..."), else the last
// error line, else "". Lines of prose or code (a docstring mentioning
// "error") are not error lines, so they are never picked.
func ErrorLine(text string) string {
	lines := SplitLines(text)
	last := ""
	for i := len(lines) - 1; i >= 0; i-- {
		t := strings.TrimSpace(CleanLine(lines[i]))
		if t == "" || ClassifyLine(t) != LineError {
			continue
		}
		if namesError(t) {
			return capSignal(t)
		}
		if last == "" {
			last = capSignal(t)
		}
	}
	return last
}

// namesError reports a line that opens with an error or exception type,
// or a compiler's or runtime's error prefix.
func namesError(t string) bool {
	for _, p := range []string{"panic:", "error[", "error:", "fatal:", "FAILED ", "--- FAIL:", "thread '", "Exception in thread", "npm ERR!"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	head, _, ok := strings.Cut(t, ":")
	if !ok || strings.ContainsAny(head, " \t") {
		return false
	}
	head = head[strings.LastIndexByte(head, '.')+1:]
	return strings.HasSuffix(head, "Error") || strings.HasSuffix(head, "Exception") || hasTSCode(t)
}
