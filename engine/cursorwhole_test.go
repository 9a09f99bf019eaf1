package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/internal/testutil"
	"github.com/ctxd/ctxd/treesitter"
)

// jsMethods returns n small methods of a JavaScript class, so a file is
// large enough to need views (commander.js's Command has 150).
func jsMethods(prefix string, n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "\n  /**\n   * %s%d mixes a value.\n   */\n  %s%d(value, options) {\n    const scaled = value * %d;\n    if (scaled > options.limit) {\n      return this._clamp(scaled - %d, options);\n    }\n    return scaled + %d;\n  }\n", prefix, i, prefix, i, i+3, i, i*7)
	}
	return b.String()
}

// executeSubCommand is a method of more than largeBody lines that holds
// callbacks (commander.js's _executeSubCommand, 149 lines): a method kept
// whole for a line in it showed them collapsed, `proc.on('close', ...)`
// as `{ /* ... 12 lines */ }`.
const executeSubCommand = `
  /**
   * Execute a sub-command executable.
   */
  _executeSubCommand(subcommand, args) {
    args = args.slice();
    const sourceExt = ['.js', '.ts', '.tsx', '.mjs', '.cjs'];

    function findFile(baseDir, baseName) {
      const localBin = path.resolve(baseDir, baseName);
      if (fs.existsSync(localBin)) return localBin;
      if (sourceExt.includes(path.extname(baseName))) return undefined;
      const foundExt = sourceExt.find((ext) =>
        fs.existsSync(` + "`${localBin}${ext}`" + `),
      );
      if (foundExt) return ` + "`${localBin}${foundExt}`" + `;
      return undefined;
    }

    this._checkForMissingMandatoryOptions();
    this._checkForConflictingOptions();
%s
    let proc;
    if (process.platform !== 'win32') {
      proc = childProcess.spawn(executableFile, args, { stdio: 'inherit' });
    } else {
      args.unshift(executableFile);
      proc = childProcess.spawn(process.execPath, args, { stdio: 'inherit' }); // spawnMarker
    }

    if (!proc.killed) {
      const signals = ['SIGUSR1', 'SIGUSR2', 'SIGTERM', 'SIGINT', 'SIGHUP'];
      signals.forEach((signal) => {
        process.on(signal, () => {
          if (proc.killed === false && proc.exitCode === null) {
            proc.kill(signal); // signalMarker
          }
        });
      });
    }

    const exitCallback = this._exitCallback;
    proc.on('close', (code) => {
      code = code ?? 1; // closeMarker
      if (!exitCallback) {
        process.exit(code);
      } else {
        exitCallback(
          new CommanderError(
            code,
            'commander.executeSubCommandAsync',
            '(close)',
          ),
        );
      }
    });
    proc.on('error', (err) => {
      if (err.code === 'ENOENT') {
        this._checkForMissingExecutable(executableFile, subcommand._name);
      } else if (err.code === 'EACCES') {
        throw new Error(` + "`'${executableFile}' not executable`" + `); // errorMarker
      }
      if (!exitCallback) {
        process.exit(1);
      } else {
        const wrappedError = new CommanderError(
          1,
          'commander.executeSubCommandAsync',
          '(error)',
        );
        wrappedError.nestedError = err;
        exitCallback(wrappedError);
      }
    });

    this.runningCommand = proc;
  }
`

// nestedPython is a function of more than largeBody lines with nested
// defs (a decorator factory, a route's handler).
const nestedPython = `

def build_handler(route, dependant, status_code=None):
    """Build the handler of a route."""

    def decode_body(raw):
        charset = route.charset or "utf-8"  # decodeMarker
        return raw.decode(charset)

    def validate(values):
        errors = []
        for field in dependant.fields:
            if field.name not in values:
                errors.append(field.name)  # validateMarker
        return errors
%s
    async def handler(request):
        body = decode_body(await request.body())
        errors = validate(body)
        if errors:
            return error_response(errors, status_code or 422)  # handlerMarker
        return await route.endpoint(body)

    return handler
`

// closureGo is a Go function of more than largeBody lines with closures.
const closureGo = `
// serve runs the server until ctx is done.
func serve(ctx context.Context, opts Options) error {
	handle := func(conn net.Conn) {
		defer conn.Close()
		buf := make([]byte, opts.Size) // handleMarker
		if _, err := conn.Read(buf); err != nil {
			return
		}
	}
%s
	go func() {
		<-ctx.Done()
		stopMarker := opts.Port // stopMarker
		_ = stopMarker
	}()
	for {
		conn, err := listen(opts)
		if err != nil {
			return err
		}
		go handle(conn)
	}
}
`

// statements returns n plain statements of lang at a function body's
// indent, so the functions above pass largeBody.
func statements(lang string, n int) string {
	var b strings.Builder
	for i := range n {
		switch lang {
		case "js":
			fmt.Fprintf(&b, "    const step%d = prepare%d(subcommand, args);\n", i, i%7)
		case "python":
			fmt.Fprintf(&b, "    step_%d = prepare_%d(route, dependant)\n", i, i%7)
		case "go":
			fmt.Fprintf(&b, "\tstep%d := prepare%d(opts)\n\t_ = step%d\n", i, i%7, i)
		}
	}
	return b.String()
}

func cursorRepo() map[string]string {
	return map[string]string{
		"package.json": `{"name": "commander", "main": "index.js"}` + "\n",
		"index.js":     "const { Command } = require('./lib/command.js');\nexports.Command = Command;\n",
		"lib/command.js": "const childProcess = require('node:child_process');\nconst path = require('node:path');\nconst fs = require('node:fs');\n\nclass Command {\n" +
			jsMethods("option", 40) + fmt.Sprintf(executeSubCommand, statements("js", 40)) + jsMethods("argument", 40) + "}\n\nexports.Command = Command;\n",
		"api/routing.py": "\"\"\"Routing.\"\"\"\n" + filler("python", 30) + fmt.Sprintf(nestedPython, statements("python", 70)) + strings.ReplaceAll(filler("python", 30), "_helper", "_mixer"),
		"server/serve.go": "package server\n\nimport (\n\t\"context\"\n\t\"net\"\n)\n\n// Options configure a server.\ntype Options struct{ Port, Size int }\n" + filler("go", 30) +
			fmt.Sprintf(closureGo, statements("go", 40)) + strings.ReplaceAll(filler("go", 30), "helper", "mixer"),
		"go.mod": "module example.com/srv\n\ngo 1.26\n",
	}
}

// TestCursorFunctionWhole: the innermost definition around the cursor (a
// selection, a stack frame) is shown whole with everything nested in it, its
// callbacks, closures and inner defs, when it fits: a function of more
// than largeBody lines kept for the cursor showed them collapsed
// (commander.js's _executeSubCommand with the cursor in it hid the
// `proc.on('close', ...)` callback the request was about). The context is
// never over budget (promptTarget); at a small budget the callback that
// holds the cursor stays visible.
func TestCursorFunctionWhole(t *testing.T) {
	files := cursorRepo()
	dir := testutil.GitRepo(t, files)
	e := newEngine(t, dir)
	line := func(file, s string) int { return fileLine(t, files, file, s) }
	requireLargeUnits(t, files, []unitSpan{
		{"lib/command.js", "_executeSubCommand(subcommand, args) {", "this.runningCommand = proc;"},
		{"api/routing.py", "def build_handler(", "    return handler"},
		{"server/serve.go", "func serve(", "go handle(conn)"},
	})
	cmd := "lib/command.js"
	tests := []struct {
		name, request, target string
		open                  ctxd.OpenFile
		budget                int
		markers               []string
	}{
		{"js cursor in the method", "the subcommand exits with the wrong code on windows", cmd,
			ctxd.OpenFile{Path: cmd, Line: line(cmd, "step20 =")}, 8000,
			[]string{"closeMarker", "errorMarker", "signalMarker", "process.exit(code);", "fs.existsSync(localBin)"}},
		{"js cursor in a callback", "the subcommand exits with the wrong code on windows", cmd,
			ctxd.OpenFile{Path: cmd, Line: line(cmd, "process.exit(code);")}, 8000,
			[]string{"closeMarker", "errorMarker", "signalMarker", "wrappedError.nestedError = err;"}},
		{"js selection in the method", "why is this spawned like that", cmd,
			ctxd.OpenFile{Path: cmd, Selection: &ctxd.LineRange{Start: line(cmd, "let proc;"), End: line(cmd, "spawnMarker")}}, 8000,
			[]string{"closeMarker", "errorMarker", "signalMarker"}},
		{"js stack frame in the method", fmt.Sprintf("TypeError: Cannot read properties of undefined (reading 'kill')\n    at Command._executeSubCommand (lib/command.js:%d:7)\n    at Command._dispatchSubcommand (lib/command.js:12:5)", line(cmd, "step20 =")), cmd,
			ctxd.OpenFile{}, 8000,
			[]string{"closeMarker", "errorMarker", "signalMarker"}},
		{"js cursor in a callback, small budget", "the subcommand exits with the wrong code on windows", cmd,
			ctxd.OpenFile{Path: cmd, Line: line(cmd, "process.exit(code);")}, 2500,
			[]string{"closeMarker", "process.exit(code);"}},
		{"python nested defs", "the handler returns the wrong status", "api/routing.py",
			ctxd.OpenFile{Path: "api/routing.py", Line: line("api/routing.py", "step_30 =")}, 8000,
			[]string{"decodeMarker", "validateMarker", "handlerMarker"}},
		{"python cursor in a nested def, small budget", "why is this wrong", "api/routing.py",
			ctxd.OpenFile{Path: "api/routing.py", Line: line("api/routing.py", "handlerMarker")}, 1500,
			[]string{"handlerMarker", "errors = validate(body)"}},
		{"go closures", "connections are not closed", "server/serve.go",
			ctxd.OpenFile{Path: "server/serve.go", Line: line("server/serve.go", "step20 :=")}, 8000,
			[]string{"handleMarker", "stopMarker", "if _, err := conn.Read(buf); err != nil {"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := PromptRequest{UserRequest: tt.request}
			if tt.open.Path != "" {
				req.OpenFiles = []ctxd.OpenFile{tt.open}
			}
			req.TokenBudget = &BudgetRequest{Total: tt.budget}
			env, err := e.BuildPrompt(t.Context(), req, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, order := targetChunk(t, &env.Context, tt.target)
			if got == nil {
				t.Fatalf("target %s not in the envelope; included %v", tt.target, order)
			}
			if !got.Truncated {
				t.Fatalf("%s is whole (%d tokens): the file must need a view, or the test tests nothing", tt.target, got.Tokens)
			}
			for _, m := range tt.markers {
				l := line(tt.target, m)
				if !strings.Contains(got.Content, strings.TrimSpace(strings.Split(files[tt.target], "\n")[l-1])) || ctxd.InRanges(got.Elided, l) {
					t.Errorf("%s at view %q (%d tokens) hides line %d (%q); included %v", tt.target, got.Truncation, got.Tokens, l, m, order)
				}
			}
		})
	}
}

// fileLine is the 1-based number of the first line of files[file] that
// holds s (markerLine), failing the test when none does.
func fileLine(t *testing.T, files map[string]string, file, s string) int {
	t.Helper()
	n := markerLine(files[file], s)
	if n == 0 {
		t.Fatalf("%s has no %q", file, s)
	}
	return n
}

// unitSpan is a function of a test repository by the text of its first
// and last lines.
type unitSpan struct{ file, first, last string }

// requireLargeUnits stops the test unless every unit is more than
// treesitter.LargeBody lines and at most treesitter.LongBody: a cursor
// test on a smaller or a longer function tests nothing.
func requireLargeUnits(t *testing.T, files map[string]string, units []unitSpan) {
	t.Helper()
	for _, f := range units {
		if n := fileLine(t, files, f.file, f.last) - fileLine(t, files, f.file, f.first); n < treesitter.LargeBody || n > treesitter.LongBody {
			t.Fatalf("%s: %s is %d lines, want %d-%d", f.file, f.first, n, treesitter.LargeBody, treesitter.LongBody)
		}
	}
}
