package smart

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/artifacts"
	"github.com/ctxd/ctxd/compact/request"
	"github.com/ctxd/ctxd/compact/smart/internal/convo"
)

// goFile returns a Go source file of about n lines.
func goFile(name string, n int) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "package %s\n\nimport (\n\t\"context\"\n\t\"fmt\"\n)\n\n", name)
	for i := 0; sb.Len() < n*40; i++ {
		fmt.Fprintf(&sb, "// Handle%d handles request kind %d for the %s service.\nfunc (s *Server) Handle%d(ctx context.Context, req *Request%d) (*Response, error) {\n\tif req == nil {\n\t\treturn nil, fmt.Errorf(\"handle %d: nil request\")\n\t}\n\tres, err := s.backend.Call(ctx, %d, req.Payload)\n\tif err != nil {\n\t\treturn nil, fmt.Errorf(\"call backend: %%w\", err)\n\t}\n\treturn &Response{ID: res.ID, Value: res.Value * %d}, nil\n}\n\n", i, i, name, i, i, i, i, i)
	}
	return sb.String()
}

// testOutput returns go test output with a failure at file:line.
func testOutput(pkg string, fail bool, seed int) string {
	var sb strings.Builder
	for i := range 30 {
		fmt.Fprintf(&sb, "=== RUN   TestCase%d_%d\n--- PASS: TestCase%d_%d (0.0%ds)\n", seed, i, seed, i, i%10)
	}
	if fail {
		fmt.Fprintf(&sb, "=== RUN   TestParse%d\n    parse_test.go:%d: got \"a\", want \"b\"\n--- FAIL: TestParse%d (0.01s)\nFAIL\nFAIL\t%s\t0.412s\n", seed, 40+seed, seed, pkg)
	} else {
		fmt.Fprintf(&sb, "PASS\nok  \t%s\t0.398s\n", pkg)
	}
	return sb.String()
}

// noisyBuild returns build output full of ANSI colour and progress bars.
func noisyBuild() string {
	var sb strings.Builder
	for i := range 40 {
		fmt.Fprintf(&sb, "\x1b[32m[%3d%%]\x1b[0m Building object pkg/mod%d.o\r\x1b[32m[%3d%%]\x1b[0m Built pkg/mod%d.o   \n", i*2, i, i*2+1, i)
	}
	for range 12 {
		sb.WriteString("warning: unused variable\n")
	}
	sb.WriteString("\x1b[31merror:\x1b[0m src/main.c:42:7: expected ';' before 'return'\n")
	return sb.String()
}

// history builds a conversation of n tool rounds with realistic outputs.
func history(n int) []convo.Msg {
	msgs := toolRounds("The parser tests fail; fix them.", n, func(i int) (string, string, string) {
		switch i % 4 {
		case 0:
			return "read_file", fmt.Sprintf(`{"path":"pkg/file%d.go"}`, i), goFile(fmt.Sprintf("file%d", i), 120)
		case 1:
			return "bash", `{"command":"go test ./parser"}`, testOutput("example.com/parser", true, 1)
		case 2:
			return "bash", `{"command":"make"}`, noisyBuild()
		}
		var sb strings.Builder
		for k := range 40 {
			fmt.Fprintf(&sb, "pkg/file%d.go:%d: func (s *Server) Handle%d(ctx context.Context)\n", k, 10+k, i)
		}
		return "grep", fmt.Sprintf(`{"pattern":"Handle%d"}`, i), sb.String()
	})
	return append(msgs, convo.User("Now fix parse_test.go:41 and run the tests again."))
}

// toolRounds is a session of n rounds after a system prompt and task: in
// round i the assistant ("Step i.") makes round(i)'s call of a tool with
// its JSON arguments (call_i), and the tool answers its output.
func toolRounds(task string, n int, round func(i int) (name, args, out string)) []convo.Msg {
	msgs := []convo.Msg{convo.System("You are a coding agent. Use the tools."), convo.User(task)}
	for i := range n {
		id := fmt.Sprintf("call_%d", i)
		name, args, out := round(i)
		msgs = append(msgs, convo.Assistant(fmt.Sprintf("Step %d.", i), convo.Call{ID: id, Name: name, Args: args}), convo.Tool(id, name, out, false))
	}
	return msgs
}

// bashRounds is [toolRounds] where round(i) is a shell command and its
// output.
func bashRounds(task string, n int, round func(i int) (cmd, out string)) []convo.Msg {
	return toolRounds(task, n, func(i int) (string, string, string) {
		cmd, out := round(i)
		return "bash", fmt.Sprintf(`{"command":%q}`, cmd), out
	})
}

// stepped optimizes msgs, rendered in format f for gpt-4o, as session "s"
// masked as the proxy masks (horizon 4, step 8) within window, with
// store; it returns the body sent and the result.
func stepped(t *testing.T, store *artifacts.Store, f request.Format, msgs []convo.Msg, window int) ([]byte, *Result) {
	t.Helper()
	in := convo.Body(f, "gpt-4o", msgs, nil)
	return in, optimize(t, New(Options{Store: store}), in, Call{Session: "s", ContextWindow: window, MaskHorizon: 4, MaskStep: 8})
}

func newStore(t testing.TB) *artifacts.Store {
	t.Helper()
	s, err := artifacts.Open(t.TempDir(), artifacts.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func body(f request.Format, msgs []convo.Msg) []byte {
	return convo.Body(f, "gpt-4o", msgs, nil)
}

// parsed parses body as a request of format f, failing the test when it
// does not parse.
func parsed(t testing.TB, body []byte, f request.Format) *request.Request {
	t.Helper()
	r, err := request.Parse(body, f)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// paired is [parsed] that also fails the test when a tool call and its
// result are not paired.
func paired(t testing.TB, body []byte, f request.Format) *request.Request {
	t.Helper()
	r := parsed(t, body, f)
	if err := r.Check(); err != nil {
		t.Fatalf("tool pairs: %v", err)
	}
	return r
}

// appendOnly reports a turn (with outputs tool outputs) whose request got
// starts with the previous turn's items, failing the test when no masking
// step is due (same) and it does not. A first turn (prev nil) or a step
// reports false.
func appendOnly(t *testing.T, prev, got *request.Request, same bool, outputs int) bool {
	t.Helper()
	if prev == nil || !same {
		return false
	}
	if !prefixItems(prev, got) {
		t.Errorf("%d outputs: no masking step due, but the previous turn's items changed", outputs)
		return false
	}
	return true
}
