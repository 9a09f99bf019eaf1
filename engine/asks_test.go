package engine

import (
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/internal/testutil"
)

// TestChangeRequestsWriteCode: the two requests of issue 29 item 5 are not
// analysis, and a request that asks for a change never gets instructions
// that forbid code, even with the task type given as analyze.
func TestChangeRequestsWriteCode(t *testing.T) {
	dir := testutil.GitRepo(t, map[string]string{
		"router.go": "package router\n\n// Match rejects trailing slashes.\nfunc Match(path string) int {\n\treturn 404\n}\n",
	})
	e := newEngine(t, dir)
	tests := []struct {
		request, task string
		want          ctxd.TaskType
	}{
		{"why does Match reject trailing slashes? make it accept them", "", ctxd.TaskImplement},
		{"why does Match return 404 instead of 405?", "", ctxd.TaskDebug},
		{"why does Match reject trailing slashes? make it accept them", "analyze", ctxd.TaskAnalyze},
	}
	for _, tt := range tests {
		t.Run(tt.request+" "+tt.task, func(t *testing.T) {
			env, err := e.BuildPrompt(t.Context(), PromptRequest{UserRequest: tt.request, TaskType: tt.task}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if env.TaskType != tt.want {
				t.Errorf("task %s, want %s", env.TaskType, tt.want)
			}
			if strings.Contains(env.Prompt, "Do not write code") {
				t.Errorf("the instructions forbid the code the request asks for:\n%s", env.Prompt[strings.LastIndex(env.Prompt, "## Instructions"):])
			}
		})
	}
}
