package signal

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestEcosystems: the error lines, failing tests and locations of real
// output shapes of Python, Go, Rust, Java and JS/TS runners and compilers.
func TestEcosystems(t *testing.T) {
	tests := []struct {
		name      string
		text      string
		isError   bool
		errorLine string
		tests     []string
		signals   []string // must be among the signals
	}{
		{
			name: "pytest",
			text: `============================= test session starts ==============================
collected 3 items

tests/test_schema.py .F.                                                [100%]

=================================== FAILURES ===================================
_______________________________ test_dump_none ________________________________

    def test_dump_none():
        """Dump should not raise an error on None."""
>       assert schema.dump(None) == {}
E       AssertionError: assert None == {}

tests/test_schema.py:42: AssertionError
=========================== short test summary info ============================
FAILED tests/test_schema.py::test_dump_none - AssertionError: assert None == {}
========================= 1 failed, 2 passed in 0.12s ==========================
`,
			isError:   true,
			errorLine: "FAILED tests/test_schema.py::test_dump_none - AssertionError: assert None == {}",
			tests:     []string{"tests/test_schema.py::test_dump_none"},
			signals:   []string{"E       AssertionError: assert None == {}", "tests/test_schema.py:42"},
		},
		{
			name: "python traceback",
			text: `Traceback (most recent call last):
  File "/repo/src/app.py", line 12, in <module>
    main()
  File "/repo/src/app.py", line 8, in main
    return "x" + 1
TypeError: can only concatenate str (not "int") to str
`,
			isError:   true,
			errorLine: `TypeError: can only concatenate str (not "int") to str`,
		},
		{
			name: "go test",
			text: `=== RUN   TestParse
    parse_test.go:31: got 3, want 4
--- FAIL: TestParse (0.00s)
FAIL
FAIL	github.com/x/y	0.012s
`,
			isError:   true,
			errorLine: "--- FAIL: TestParse (0.00s)",
			tests:     []string{"TestParse"},
			signals:   []string{"parse_test.go:31"},
		},
		{
			name: "go build",
			text: `# github.com/x/y
./main.go:12:2: undefined: foo
./main.go:14:6: declared and not used: bar
`,
			isError: true,
			signals: []string{"./main.go:12:2: undefined: foo", "main.go:12"},
		},
		{
			name: "rustc and cargo test",
			text: `error[E0308]: mismatched types
 --> src/lib.rs:5:12
  |
5 |     return "a";
  |            ^^^ expected i32, found &str

running 2 tests
test tests::adds ... ok
test tests::parses ... FAILED

thread 'tests::parses' panicked at src/lib.rs:20:9:
assertion failed: x
test result: FAILED. 1 passed; 1 failed
`,
			isError:   true,
			errorLine: "thread 'tests::parses' panicked at src/lib.rs:20:9:",
			tests:     []string{"tests::parses"},
			signals:   []string{"error[E0308]: mismatched types", "src/lib.rs:5"},
		},
		{
			name: "maven junit",
			text: `[INFO] Running com.example.FooTest
[ERROR] Tests run: 2, Failures: 1, Errors: 0, Skipped: 0
[ERROR] testAdd(com.example.FooTest)  Time elapsed: 0.01 s  <<< FAILURE!
java.lang.AssertionError: expected:<4> but was:<3>
	at com.example.FooTest.testAdd(FooTest.java:21)
[INFO] BUILD FAILURE
`,
			isError:   true,
			errorLine: "java.lang.AssertionError: expected:<4> but was:<3>",
			signals:   []string{"FooTest.java:21"},
		},
		{
			name: "javac",
			text: `src/main/java/Foo.java:7: error: cannot find symbol
        bar();
        ^
1 error
`,
			isError: true,
			signals: []string{"src/main/java/Foo.java:7: error: cannot find symbol", "src/main/java/Foo.java:7"},
		},
		{
			name: "jest",
			text: ` FAIL  src/sum.test.ts
  ● math › adds numbers

    expect(received).toBe(expected) // Object.is equality

    Expected: 4
    Received: 3

      at Object.<anonymous> (src/sum.test.ts:5:17)

Tests:       1 failed, 1 passed, 2 total
`,
			isError: true,
			tests:   []string{"math › adds numbers"},
			signals: []string{"src/sum.test.ts:5"},
		},
		{
			name: "tsc",
			text: `src/index.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.
`,
			isError:   true,
			errorLine: "src/index.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.",
		},
		{
			name: "docstring is not an error",
			text: `def load(path):
    """Load a file; returns None on a missing file instead of an error."""
    return None
`,
			isError: false,
		},
		{
			name:    "plain listing",
			text:    "README.md\nsrc/\ntests/\n",
			isError: false,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := LooksLikeError(tt.text); got != tt.isError {
				t.Errorf("LooksLikeError = %v, want %v", got, tt.isError)
			}
			if tt.errorLine != "" {
				if got := ErrorLine(tt.text); got != tt.errorLine {
					t.Errorf("ErrorLine = %q, want %q", got, tt.errorLine)
				}
			}
			if !tt.isError && ErrorLine(tt.text) != "" {
				t.Errorf("ErrorLine of non-error text = %q", ErrorLine(tt.text))
			}
			in := Analyze(tt.text)
			for _, name := range tt.tests {
				if !slices.Contains(in.Tests, name) {
					t.Errorf("failing test %q not found in %q", name, in.Tests)
				}
			}
			for _, s := range tt.signals {
				if !slices.Contains(in.Signals, s) {
					t.Errorf("signal %q not found in %q", s, in.Signals)
				}
			}
		})
	}
}

func TestFailingTest(t *testing.T) {
	tests := []struct{ line, want string }{
		{"--- FAIL: TestX/sub (0.01s)", "TestX/sub"},
		{"FAILED tests/a.py::test_b - ValueError", "tests/a.py::test_b"},
		{"tests/a.py::test_b FAILED", "tests/a.py::test_b"},
		{"FAIL: test_add (tests.test_math.MathTest)", "test_add (tests.test_math.MathTest)"},
		{"test parser::tests::eof ... FAILED", "parser::tests::eof"},
		{"FooTest > testBar() FAILED", "FooTest > testBar()"},
		{"  ✕ renders the header (12 ms)", "renders the header"},
		{"ok  \tgithub.com/x/y\t0.1s", ""},
		{"test parser::tests::eof ... ok", ""},
		{"the test FAILED to run", ""},
	}
	for _, tt := range tests {
		if got := FailingTest(tt.line); got != tt.want {
			t.Errorf("FailingTest(%q) = %q, want %q", tt.line, got, tt.want)
		}
	}
}

// FuzzAnalyze: any text scans without panicking, and every signal is a
// valid UTF-8 line of at most MaxSignalBytes bytes found in the cleaned
// text.
func FuzzAnalyze(f *testing.F) {
	f.Add("Traceback (most recent call last):\nValueError: x\n")
	f.Add("\x1b[31merror\x1b[0m: src/a.rs:3:4\r\n--- FAIL: TestA (0s)\n")
	f.Add("TS1234:" + strings.Repeat("A0", 80))
	f.Fuzz(func(t *testing.T, text string) {
		in := Analyze(text)
		norm := Normalized(text)
		for _, s := range in.Signals {
			if len(s) > MaxSignalBytes || (utf8.ValidString(text) && !utf8.ValidString(s)) {
				t.Fatalf("bad signal %q", s)
			}
			if !strings.Contains(norm, s) {
				t.Fatalf("signal %q is not in the text", s)
			}
		}
		_ = ErrorLine(text)
		_ = LooksLikeError(text)
	})
}

// BenchmarkAnalyze scans a 600 KB build-and-test log once.
//
//	go test -run '^$' -bench Analyze ./compact/signal
func BenchmarkAnalyze(b *testing.B) {
	var sb strings.Builder
	for i := 0; sb.Len() < 600<<10; i++ {
		sb.WriteString("=== RUN   TestCase\n--- PASS: TestCase (0.00s)\npkg/file.go:12: func (s *Server) Handle(ctx context.Context) error {\n\treturn nil // the handler returns no value here\n")
		if i%100 == 0 {
			sb.WriteString("--- FAIL: TestParse (0.01s)\n    parse_test.go:41: got \"a\", want \"b\"\n")
		}
	}
	text := sb.String()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		Analyze(text)
	}
}

// TestFailure: error output that reports a failure against the source
// of a module that only names errors (what a file read prints).
func TestFailure(t *testing.T) {
	tests := []struct {
		name, text string
		isError    bool
		failure    bool
	}{
		{"traceback", "Traceback (most recent call last):\n  File \"a.py\", line 3, in <module>\n    f()\nTypeError: bad operand\n", true, true},
		{"go test", "=== RUN   TestParse\n    parse_test.go:12: got 1\n--- FAIL: TestParse (0.00s)\nFAIL\n", true, true},
		{"rustc", "error[E0308]: mismatched types\n --> src/main.rs:4:5\n", true, true},
		{"pytest summary", "FAILED tests/test_a.py::test_b - AssertionError: assert 1 == 2\n", true, true},
		{"python source", "def get(table, key):\n    try:\n        return table[key]\n    except KeyError:\n        raise ValueError(\"no key %r\" % key)\n", true, false},
		{"numbered source", "  12\tclass ProtectedError(IntegrityError):\n  13\t    pass\n  14\t        except SympifyError:\n", true, false},
		{"plain", "a.py\nb.py\n", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := Analyze(tt.text)
			if in.IsError != tt.isError || in.Failure != tt.failure {
				t.Errorf("IsError, Failure = %v, %v; want %v, %v", in.IsError, in.Failure, tt.isError, tt.failure)
			}
		})
	}
}

// TestGoDiagnosticIsError: a Go tool's "file.go:line:col: message" is an
// error line though it carries no error word (go vet's findings, in go
// 1.26's shape and older go's "./" and analyzer-name shape, staticcheck's),
// as a compiler error is; a search hit on a Go file is not (grep -n has
// no column; rg --vimgrep's text follows the column directly).
func TestGoDiagnosticIsError(t *testing.T) {
	tests := []struct {
		line string
		want bool
	}{
		{"x.go:9:14: fmt.Printf format %d has arg s of wrong type string", true},
		{"x.go:11:4: call of g copies lock value: sync.Mutex", true},
		{"sub/s.go:5:24: fmt.Printf format %s has arg 1 of wrong type int", true},
		{"./x.go:12:2: printf: fmt.Sprintf format %s reads arg #1, but call has 0 args", true},
		{"/home/u/shop/cart.go:40:3: unreachable code", true},
		{"cart.go:7:2: SA4006: this value of err is never used (staticcheck)", true},
		{"./b.go:3:12: undefined: undefinedThing", true}, // a compiler error, as before
		{"x.go:12:6:\tfmt.Println(s)", false},            // rg --vimgrep
		{"x.go:3:1:func F() {", false},                   // rg --vimgrep
		{"x.go:12:2:  // two spaces", false},
		{"x.go:12:\tfmt.Println(s)", false}, // grep -n
		{"x.go:12: fmt.Println(s)", false},  // grep -n of a one-space line
		{"see x.go:12:2: the comment", false},
		{"x.go:12:2:", false},
		{"x.go:a:2: message", false},
		{"x.gox:12:2: message", false},
	}
	for _, tt := range tests {
		if got := ClassifyLine(tt.line) == LineError; got != tt.want {
			t.Errorf("ClassifyLine(%q) error %v, want %v", tt.line, got, tt.want)
		}
	}
}
