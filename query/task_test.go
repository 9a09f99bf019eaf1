package query

import (
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
)

func TestDetectTask(t *testing.T) {
	tests := []struct {
		request string
		want    ctxd.TaskType
		ok      bool
	}{
		{"fix the failing test in parser_test.go", ctxd.TaskDebug, true},
		{"panic: runtime error: index out of range\n\tmain.go:12\n\tserver.go:40", ctxd.TaskDebug, true},
		{"Traceback (most recent call last):\n  File \"app.py\", line 3, in <module>", ctxd.TaskDebug, true},
		{"why does login crash when the password is empty", ctxd.TaskDebug, true},
		{"add unit tests for the tokenizer", ctxd.TaskTest, true},
		{"write table-driven tests for Parse", ctxd.TaskTest, true},
		{"improve test coverage of the cache", ctxd.TaskTest, true},
		{"add a test in context_test.go for ClientIP with a CIDR list of trusted proxies", ctxd.TaskTest, true},
		{"write some tests for the retry helper", ctxd.TaskTest, true},
		{"add a regression test for the empty password crash", ctxd.TaskTest, true},
		{"add a --test-only flag to the CLI", ctxd.TaskImplement, true},
		{"refactor the session store into its own package", ctxd.TaskRefactor, true},
		{"rename Foo to Bar everywhere", ctxd.TaskRefactor, true},
		{"extract the retry loop into a helper", ctxd.TaskRefactor, true},
		{"explain how the scheduler picks the next job", ctxd.TaskAnalyze, true},
		{"explain how the token budget is split between context and response", ctxd.TaskAnalyze, true},
		{"split the parser into a lexer and a parser", ctxd.TaskRefactor, true},
		{"split up the god object", ctxd.TaskRefactor, true},
		{"give me an overview of the architecture", ctxd.TaskAnalyze, true},
		{"where is the rate limiter configured?", ctxd.TaskAnalyze, true},
		{"implement OAuth login with GitHub", ctxd.TaskImplement, true},
		{"add a --verbose flag to the CLI", ctxd.TaskImplement, true},
		{"support YAML config files", ctxd.TaskImplement, true},
		// Issue 29 item 5: a change asked after a question is no analysis,
		// and a question that sets what happens against what should is a
		// bug report.
		{"why does this reject trailing slashes? make it accept them", ctxd.TaskImplement, true},
		{"why does the router return 404 instead of 405 when the method is not allowed?", ctxd.TaskDebug, true},
		{"why does ParseQuery drop empty values? It should keep them", ctxd.TaskImplement, false},
		{"how does the cache expire entries? can you add a TTL option", ctxd.TaskImplement, true},
		{"explain the retry loop and fix the off-by-one in it", ctxd.TaskDebug, true},
		{"what does Bind do when the body is empty", ctxd.TaskAnalyze, true},
		{"why is Context.Copy needed in goroutines?", ctxd.TaskAnalyze, true},
		{"why does res.set ignore arrays?", ctxd.TaskAnalyze, true},
		{"use the new client instead of the old one", ctxd.TaskImplement, true},
		{"Pass context to .forEach instead of closure", ctxd.TaskImplement, false},
		{"the router responds with 404 instead of 405 for POST", ctxd.TaskDebug, true},
		{"where is the session cookie set? explain the flow", ctxd.TaskAnalyze, true},
		// A statement of what the code fails to do is a bug report (a new
		// user's first hour: these were implement by default); one of what
		// is missing is a feature request.
		{"path parameters with dots are not matched", ctxd.TaskDebug, true},
		{"retry does not respect the Retry-After header on 429", ctxd.TaskDebug, true},
		{"ShouldBind ignores the time_format tag", ctxd.TaskDebug, true},
		{"context.JSON doesn't escape html", ctxd.TaskDebug, true},
		{"the server returns 404 when the path has a trailing slash", ctxd.TaskDebug, true},
		{"the upload hangs when the file is larger than 2 GB", ctxd.TaskDebug, true},
		{"YAML config files are not supported", ctxd.TaskImplement, false},
		{"the router should return 404 for unknown routes", ctxd.TaskImplement, false},
		{"hello", ctxd.TaskImplement, false},
		{"", ctxd.TaskImplement, false},
	}
	for _, tt := range tests {
		t.Run(tt.request, func(t *testing.T) {
			lower := strings.ToLower(tt.request)
			got, ok := detectTask(tt.request, lower, indexWords(lower), asksChange(lower))
			if got != tt.want || ok != tt.ok {
				t.Errorf("detectTask(%q) = %s, %v; want %s, %v", tt.request, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestResolveTask(t *testing.T) {
	if task, src := Parse("fix the crash").ResolveTask(ctxd.TaskTest); task != ctxd.TaskTest || src != ctxd.SourceExplicit {
		t.Errorf("explicit: %s %s", task, src)
	}
	if task, src := Parse("fix the crash").ResolveTask(""); task != ctxd.TaskDebug || src != ctxd.SourceDetected {
		t.Errorf("detected: %s %s", task, src)
	}
	if task, src := Parse("hello").ResolveTask(""); task != ctxd.TaskImplement || src != ctxd.SourceDefault {
		t.Errorf("default: %s %s", task, src)
	}
}

func TestAsksChange(t *testing.T) {
	tests := []struct {
		request string
		want    bool
	}{
		{"why does this reject X? make it accept X", true},
		{"fix the panic in tree.go:120", true},
		{"please add a --verbose flag", true},
		{"can you change the default timeout", true},
		{"the parser should not panic on empty input", true},
		{"explain the retry loop and fix the off-by-one", true},
		{"why does the router return 404 instead of 405?", false},
		{"why should the parser panic here?", false},
		{"how does res.set handle arrays", false},
		{"what does app.py:12 return", false},
		{"where is the rate limiter configured?", false},
		{"give me an overview of the architecture", false},
	}
	for _, tt := range tests {
		if got := asksChange(strings.ToLower(tt.request)); got != tt.want {
			t.Errorf("asksChange(%q) = %v, want %v", tt.request, got, tt.want)
		}
	}
}
