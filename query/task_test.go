package query

import (
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
		{"hello", ctxd.TaskImplement, false},
		{"", ctxd.TaskImplement, false},
	}
	for _, tt := range tests {
		t.Run(tt.request, func(t *testing.T) {
			got, ok := detectTask(tt.request)
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
