package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/internal/testutil"
	"github.com/ctxd/ctxd/treesitter"
)

// longFunc returns a function of lang over 300 lines
// (fastapi's get_request_handler, vite's resolveConfig): a header, n
// blocks of three plain statements each, the marker block mark after
// half of them, and a return.
func longFunc(lang, header, mark string, n int) string {
	var b strings.Builder
	b.WriteString(header)
	for i := range n {
		if i == n/2 {
			b.WriteString(mark)
		}
		switch lang {
		case "python":
			fmt.Fprintf(&b, "    value_%d = prepare_%d(dependant)\n    if value_%d is None:\n        value_%d = fallback_%d(status_code)\n", i, i%9, i, i, i%5)
		case "ts":
			fmt.Fprintf(&b, "  const value%d = prepare%d(inlineConfig);\n  if (value%d === undefined) {\n    fallback%d(command);\n  }\n", i, i%9, i, i%5)
		case "go":
			fmt.Fprintf(&b, "\tvalue%d := prepare%d(opts)\n\tif value%d == 0 {\n\t\tfallback%d(opts)\n\t}\n", i, i%9, i, i%5)
		}
	}
	switch lang {
	case "python":
		b.WriteString("    return value_0\n")
	case "ts":
		b.WriteString("  return value0;\n}\n")
	case "go":
		b.WriteString("\treturn value0\n}\n")
	}
	return b.String()
}

// longFuncRepo is a repository whose answers are lines in the middle of
// functions too long to show whole at 8k.
func longFuncRepo() map[string]string {
	return map[string]string{
		"go.mod": "module example.com/api\n\ngo 1.26\n",
		"api/routing.py": "\"\"\"Routing.\"\"\"\n\nimport json\n" + filler("python", 4) + "\n\n" +
			longFunc("python", "def get_request_handler(dependant, body_field=None, status_code=None):\n    \"\"\"Build the handler of a route.\"\"\"\n",
				"    if content_type_charset and body_field is not None:  # charsetMarker\n        form_body = decode_form(body_bytes, content_type_charset)\n        value_0 = json.loads(form_body)\n", 170) +
			strings.ReplaceAll(filler("python", 4), "_helper", "_mixer"),
		"api/params.py": "\"\"\"Parameters.\"\"\"\n" + filler("python", 3) + "\n\ndef param_name(p):\n    return p.name\n",
		"web/config.ts": "// Configuration.\n" + filler("ts", 4) + "\n" +
			longFunc("ts", "export async function resolveConfig(inlineConfig: InlineConfig, command: string): Promise<ResolvedConfig> {\n",
				"  const envPrefix = resolveEnvPrefix(inlineConfig.envPrefix); // envPrefixMarker\n  loadEnvFiles(envDir, envPrefix);\n", 90) +
			strings.ReplaceAll(filler("ts", 4), "helper", "pad"),
		"web/util.ts": "// Utilities.\n" + strings.ReplaceAll(filler("ts", 3), "helper", "util"),
		"server/serve.go": "package server\n\n// Options configure a server.\ntype Options struct{ Port int }\n" + filler("go", 4) + "\n" +
			longFunc("go", "// serve runs the server.\nfunc serve(opts Options) int {\n",
				"\tretries := opts.Port % 7 // retryMarker\n\tif retries > 3 {\n\t\tfallback1(opts)\n\t}\n", 200) +
			strings.ReplaceAll(filler("go", 4), "helper", "mixer"),
		"server/doc.go": "// Package server serves.\npackage server\n",
	}
}

// TestLongFunctionLines: a line in a function too long to keep whole is
// shown with the lines around it, in the file's outline, for the
// request's words, a stack frame and a cursor; the context is never over
// budget (promptTarget).
func TestLongFunctionLines(t *testing.T) {
	files := longFuncRepo()
	dir := testutil.GitRepo(t, files)
	e := newEngine(t, dir)
	line := func(file, s string) int {
		for i, l := range strings.Split(files[file], "\n") {
			if strings.Contains(l, s) {
				return i + 1
			}
		}
		t.Fatalf("%s has no %q", file, s)
		return 0
	}
	for _, f := range []struct{ file, name string }{{"api/routing.py", "def get_request_handler"}, {"web/config.ts", "export async function resolveConfig"}, {"server/serve.go", "func serve"}} {
		// The functions must be long, or the test tests nothing.
		from := line(f.file, f.name)
		to := from
		for i, l := range strings.Split(files[f.file], "\n")[from:] {
			if strings.HasPrefix(l, "    return value_0") || l == "}" {
				to = from + i + 1
				break
			}
		}
		if to-from <= treesitter.LongBody {
			t.Fatalf("%s is %d lines, want over %d", f.name, to-from, treesitter.LongBody)
		}
	}
	tests := []struct {
		name, request, target string
		open                  []ctxd.OpenFile
		markers               []string
	}{
		{"python words", "the form body is not decoded when the content type header has a charset", "api/routing.py", nil,
			[]string{"charsetMarker", "form_body = decode_form(body_bytes, content_type_charset)"}},
		{"python named with words", "get_request_handler does not decode the form body when the content type has a charset", "api/routing.py", nil,
			[]string{"charsetMarker", "form_body = decode_form(body_bytes, content_type_charset)"}},
		{"ts words", "the env prefix of the inline config is ignored when env files are loaded", "web/config.ts", nil,
			[]string{"envPrefixMarker", "loadEnvFiles(envDir, envPrefix);"}},
		{"python stack frame", "Traceback (most recent call last):\n  File \"/srv/app/api/routing.py\", line " + fmt.Sprint(line("api/routing.py", "decode_form(")) +
			", in get_request_handler\n    form_body = decode_form(body_bytes, content_type_charset)\nLookupError: unknown encoding: utf9", "api/routing.py", nil,
			[]string{"charsetMarker", "form_body = decode_form(body_bytes, content_type_charset)"}},
		{"go cursor", "what does this do?", "server/serve.go", []ctxd.OpenFile{{Path: "server/serve.go", Line: line("server/serve.go", "retryMarker")}},
			[]string{"retryMarker", "if retries > 3 {"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, got, order := promptTarget(t, e, PromptRequest{UserRequest: tt.request, OpenFiles: tt.open}, tt.target)
			if got.Truncated && (got.Truncation == ctxd.ViewFocus || got.Truncation == ctxd.ViewFocusOnly) && !strings.Contains(got.Content, " lines)\n") {
				t.Errorf("%s at view %q marks no lines of the long function it elides:\n%s", tt.target, got.Truncation, got.Content)
			}
			for _, m := range tt.markers {
				if !strings.Contains(got.Content, m) {
					t.Errorf("%s at view %q (%d tokens) hides %q (task %s); included %v", tt.target, got.Truncation, got.Tokens, m, env.TaskType, order)
				}
				if l := line(tt.target, m); ctxd.InRanges(got.Elided, l) {
					t.Errorf("%s: line %d (%q) is in an elided range %v", tt.target, l, m, got.Elided)
				}
			}
		})
	}
}

// TestParamsEnd: a long function's runs start after its parameter list,
// which can be most of it (fastapi's APIRouter.get: 350 lines of
// documented parameters).
func TestParamsEnd(t *testing.T) {
	tests := []struct {
		name, src string
		want      int
	}{
		{"go one line", "func serve(opts Options) int {\n\treturn 0\n}\n", 1},
		{"python documented parameters", "def get(\n    self,\n    path: Annotated[str, Doc(\"\"\"\n        The URL path (e.g. \"/items\") it serves.\n        \"\"\")],\n) -> Callable:\n    return self.api_route(path)\n", 6},
		{"quoted parenthesis", "function f(a = \")\", b) {\n  return a;\n}\n", 1},
		{"never closed", "def f(\n    x,\n", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines := strings.SplitAfter(tt.src, "\n")
			if got := paramsEnd(lines, index.Def{Line: 1, End: len(lines)}); got != tt.want {
				t.Errorf("paramsEnd = %d, want %d", got, tt.want)
			}
		})
	}
}
