package replay

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/artifacts"
	"github.com/ctxd/ctxd/compact/request"
	"github.com/ctxd/ctxd/compact/smart/internal/convo"
)

const reviewSystem = "You review pull requests for a Go service. Read the diffs and the files they touch, run the tests, and report concrete problems with file and line."

func largeDiffReview(t *testing.T) *Session {
	b := newSession(t, "large-diff-review", "a review of a branch with several large diffs; the latest turns ask about one of them, which stays exact",
		request.FormatAnthropic, "claude-sonnet-4.5", 0, 2, reviewSystem, CaseLargeDiffs, CaseWindow200k)
	g := b.g
	paths := []string{"internal/store/ledger.go", "internal/store/batch.go", "internal/api/routes.go", "internal/render/plan.go", "cmd/app/main.go"}
	srcs := map[string]string{}
	diffs := map[string]string{}
	var stat strings.Builder
	for i, p := range paths {
		srcs[p] = g.goSource(strings.Split(p, "/")[1], 34+i*4)
		diffs[p] = g.gitDiff(p, srcs[p], 24+i*2)
		fmt.Fprintf(&stat, " %-28s | %3d %s\n", p, strings.Count(diffs[p], "\n+")+strings.Count(diffs[p], "\n-"), strings.Repeat("+-", 10))
	}
	b.user("Review the branch feature/ledger against main. Focus on correctness and error handling.")
	b.turn()
	b.bash("git diff --stat main...feature/ledger", stat.String())
	b.turn()
	for _, p := range paths {
		b.bash("git diff main...feature/ledger -- "+p, diffs[p])
		b.turn()
	}
	for _, p := range paths[:3] {
		b.read(p, srcs[p])
		b.turn()
	}
	tests := g.testNames(30)
	out := g.goTest("example.com/app/internal/store", tests, map[string]string{tests[4]: "ledger_test.go:203: balance = 118, want 120"})
	b.bash("go test ./internal/store", out)
	b.turn()
	b.say("The ledger change drops a chunk when the batch is flushed twice; see the failing test.")
	b.run("grep", `{"pattern":"flushChunk","path":"internal"}`, g.grep("flushChunk", paths, 22))
	b.turn(fact(t, out, "balance = 118"))
	for _, p := range paths[3:] {
		b.read(p, srcs[p])
		b.turn()
	}
	b.bash("go test ./...", g.goTest("example.com/app/internal/store", tests, map[string]string{tests[4]: "ledger_test.go:203: balance = 118, want 120"})+g.goTest("example.com/app/internal/api", g.testNames(20), nil))
	b.turn()
	removed := ""
	for _, l := range strings.Split(diffs[paths[0]], "\n") {
		if strings.HasPrefix(l, "-\t") && len(l) > 20 {
			removed = strings.TrimPrefix(l, "-")
			break
		}
	}
	b.user("In the diff of internal/store/ledger.go: which lines did the branch remove in the first hunk? Quote them exactly.")
	b.turn(strings.TrimSpace(removed))
	b.say("The first hunk removes the guard that checked the batch size.")
	b.user("And does the same diff of ledger.go add any new call sites? Check it again.")
	b.turn(strings.TrimSpace(removed))
	b.bash("git log --oneline -5 feature/ledger", "a91c2e4 ledger: flush chunks in batches\n7be01d2 ledger: batch writer\n3c0ffee store: move balance checks\n0d15ea5 api: routes for ledger\n1337c0d render: plan ledger output\n")
	b.turn()
	b.user("Write the review.")
	b.turn(fact(t, out, "balance = 118"))
	return b.done()
}

func repoNavigation(t *testing.T) *Session {
	b := newSession(t, "repo-navigation", "finding where a feature lives: trees, listings, greps and reads in a 32k window",
		request.FormatResponses, "gpt-4o", 32000, 3, agentSystem, CaseNavigation, CaseWindow32k)
	g := b.g
	var files []string
	for _, d := range []string{"internal/router", "internal/auth", "internal/store", "internal/cache", "pkg/httpx", "cmd/server", "web/src/api", "web/src/views"} {
		for range 7 {
			ext := ".go"
			if strings.HasPrefix(d, "web") {
				ext = ".ts"
			}
			files = append(files, d+"/"+g.ident(false)+ext)
		}
	}
	b.user("Where is request authentication done, and how does a route declare that it needs it?")
	b.turn()
	b.bash("find . -type f -name '*.go' -o -name '*.ts'", tree(files))
	b.turn()
	grep1 := g.grep("authenticate", files, 30)
	b.run("grep", `{"pattern":"authenticate","path":"."}`, grep1)
	b.turn()
	loc := strings.SplitN(strings.Split(grep1, "\n")[3], ":", 3)
	for i, dir := range []string{"internal/auth", "internal/router", "pkg/httpx"} {
		b.run("list_dir", string(mustJSON(map[string]string{"path": dir})), g.lsLong(func() []string {
			var ns []string
			for _, f := range files {
				if strings.HasPrefix(f, dir+"/") {
					ns = append(ns, strings.TrimPrefix(f, dir+"/"))
				}
			}
			return ns
		}()))
		b.turn()
		src := g.goSource(strings.Split(dir, "/")[len(strings.Split(dir, "/"))-1], 8+i*2)
		b.read(files[i*7+1], src)
		b.turn()
	}
	grep2 := g.grep("RequireAuth", files, 24)
	b.run("grep", `{"pattern":"RequireAuth","path":"."}`, grep2)
	b.turn()
	for i := range 6 {
		b.read(files[14+i], g.goSource("router", 6))
		b.turn()
		if i%2 == 1 {
			b.run("grep", string(mustJSON(map[string]string{"pattern": g.ident(true), "path": "internal"})), g.grep(g.ident(true), files, 10))
			b.turn()
		}
	}
	b.user("Which file and line was the third hit of the first search?")
	b.turn(loc[0] + ":" + loc[1])
	for i := range 5 {
		b.read(files[42+i], g.goSource("api", 5))
		b.turn()
	}
	b.run("grep", `{"pattern":"session.Verify","path":"."}`, g.grep("Verify", files, 16))
	b.turn()
	b.user("Summarize: where authentication happens and how a route opts in.")
	b.turn(fact(t, grep2, "RequireAuth"))
	return b.done()
}

func multiFileRefactor(t *testing.T) *Session {
	b := newSession(t, "multi-file-refactor", "renaming a function across six files with edits, build errors and tests in a 16k window",
		request.FormatChat, "gpt-4o", 16000, 4, agentSystem, CaseRefactoring, CaseWindow16k)
	g := b.g
	paths := []string{"internal/config/load.go", "internal/config/env.go", "cmd/server/main.go", "cmd/worker/main.go", "internal/api/server.go", "internal/store/open.go"}
	b.user("Rename loadConfig to LoadConfig everywhere and export it; keep the behaviour.")
	b.turn()
	grep := ""
	for i, p := range paths {
		grep += fmt.Sprintf("%s:%d:\tcfg, err := loadConfig(ctx, %s)\n", p, 20+i*7, g.noun())
	}
	b.run("grep", `{"pattern":"loadConfig","path":"."}`, grep)
	b.turn()
	var buildErrs []string
	for i, p := range paths {
		src := g.goSource(strings.Split(p, "/")[1], 5)
		b.read(p, src)
		b.turn()
		b.edit(p, "loadConfig(", "LoadConfig(")
		b.turn()
		if i == 2 {
			errs := goBuildErrors("example.com/app/cmd/worker", []string{"cmd/worker/main.go:27:14: undefined: loadConfig", "internal/api/server.go:41:9: undefined: loadConfig"})
			b.bash("go build ./...", errs)
			b.turn()
			buildErrs = append(buildErrs, errs)
		}
	}
	b.bash("go build ./...", "")
	b.turn()
	tests := g.testNames(18)
	fail := g.goTest("example.com/app/internal/config", tests, map[string]string{tests[3]: "load_test.go:33: LoadConfig(\"\") error = <nil>, want an error"})
	b.bash("go test ./internal/config", fail)
	b.turn(fact(t, buildErrs[0], "undefined: loadConfig"))
	b.read("internal/config/load_test.go", g.goSource("config", 4))
	b.turn()
	b.edit("internal/config/load.go", "if path == \"\" {\n\t\treturn cfg, nil", "if path == \"\" {\n\t\treturn nil, errNoPath")
	b.turn()
	ok := g.goTest("example.com/app/internal/config", tests, nil)
	b.bash("go test ./internal/config", ok)
	b.turn()
	b.bash("go vet ./...", "")
	b.turn()
	b.bash("git status --short", " M cmd/server/main.go\n M cmd/worker/main.go\n M internal/api/server.go\n M internal/config/env.go\n M internal/config/load.go\n M internal/store/open.go\n")
	b.turn()
	b.user("Which test failed after the rename, and why?")
	b.turn(fact(t, fail, "load_test.go:33"))
	return b.done()
}

func staticInstructions(t *testing.T) *Session {
	b := newSession(t, "static-instructions", "instructions that change mid-session and an injected todo reminder that is superseded again and again",
		request.FormatAnthropic, "claude-haiku-4.5", 128000, 5, "You are a Python maintenance agent. Use pytest. Keep changes minimal.", CaseStaticChanges, CaseWindow128k)
	g := b.g
	reminder := func(v int, done int) string {
		var sb strings.Builder
		sb.WriteString("<system-reminder>\nYour todo list changed. Keep working on the open items and update the list when one is done.\n")
		for i := range 14 {
			mark := " "
			if i < done {
				mark = "x"
			}
			fmt.Fprintf(&sb, "- [%s] %d. %s the %s of the %s module (v%d)\n", mark, i+1, title(verbs[(i+v)%len(verbs)]), nouns[i%len(nouns)], nouns[(i*3)%len(nouns)], v)
		}
		sb.WriteString("</system-reminder>")
		return sb.String()
	}
	mods := []string{"app/models.py", "app/views.py", "app/forms.py", "app/tasks.py", "app/cache.py"}
	b.user("Upgrade the code base to the new settings API and keep the tests green.")
	b.turn()
	for v := range 5 {
		b.user(reminder(v, v*2))
		for i := range 3 {
			m := mods[(v+i)%len(mods)]
			b.read(m, g.pySource(8+i))
			b.turn()
		}
		fails := map[string]string{}
		if v < 3 {
			fails[fmt.Sprintf("tests/test_%s.py::test_%s_%s", g.noun(), g.verb(), g.noun())] = fmt.Sprintf("assert %d == %d", g.n(1, 9), g.n(10, 20))
		}
		out := g.pytest([]string{"tests/test_models.py", "tests/test_views.py", "tests/test_forms.py", "tests/test_tasks.py"}, fails)
		b.bash("python -m pytest -q", out)
		b.turn()
		if v == 1 {
			b.setSystem("You are a Python maintenance agent. Use pytest with -x. Keep changes minimal. The settings API is app.conf.settings; never import django.conf directly.")
		}
		if v == 3 {
			b.setSystem("You are a Python maintenance agent. Use pytest with -x. Keep changes minimal. The settings API is app.conf.settings. Type-check with mypy before you finish.")
			b.bash("mypy app", "app/tasks.py:41: error: Argument 1 to \"schedule\" has incompatible type \"str\"; expected \"int\"  [arg-type]\nFound 1 error in 1 file (checked 12 source files)\n")
			b.turn()
		}
	}
	b.user("Which mypy error did you fix?")
	b.turn("app/tasks.py:41: error: Argument 1 to \"schedule\" has incompatible type \"str\"")
	return b.done()
}

// resumedWithArtifacts starts from a history an earlier Smart Context run
// rewrote: its references point at artifacts of which one is missing and
// one corrupt.
func resumedWithArtifacts(t *testing.T) *Session {
	b := newSession(t, "resumed-with-artifacts", "a session resumed from a rewritten history: references that resolve, one whose artifact is missing and one that is corrupt; the user asks for one back",
		request.FormatChat, "gpt-4o-mini", 0, 6, agentSystem, CaseMissing, CaseCorrupted, CaseWindow128k)
	g := b.g
	// The earlier run.
	prior := []convo.Msg{convo.System(agentSystem), convo.User("Make the cache eviction respect the size cap.")}
	for i := range 14 {
		id := fmt.Sprintf("call_prior_%02d", i)
		var out, name, args string
		if i%3 == 2 {
			tests := g.testNames(24)
			out = g.goTest("example.com/app/internal/cache", tests, map[string]string{tests[i]: fmt.Sprintf("evict_test.go:%d: size = %d, want <= 4096", 40+i, 5000+i)})
			name, args = "bash", `{"command":"go test ./internal/cache"}`
		} else {
			out = numbered(g.goSource("cache", 12+i))
			name, args = "read_file", fmt.Sprintf(`{"path":"internal/cache/file%d.go"}`, i)
		}
		prior = append(prior, convo.Assistant("", convo.Call{ID: id, Name: name, Args: args}), convo.Tool(id, name, out, false))
	}
	prior = append(prior, convo.User("Let's stop here for today."))
	// The earlier run left every output but the last three behind a
	// reference (the marker syntax of docs/smart-context.md, written here
	// as any client that persisted the rewrite would have it).
	var asked, needed string
	rewritten := slices.Clone(prior)
	k := 0
	for i := range rewritten {
		m := rewritten[i]
		if m.Result == nil || i >= len(rewritten)-7 {
			continue
		}
		text := m.Result.Text
		hash := artifacts.Hash([]byte(text))
		state := "ok"
		switch k {
		case 0:
			asked = hash
		case 1:
			state = "missing"
		case 2:
			state = "corrupt"
		case 3:
			needed = middleLine(t, text)
		}
		k++
		b.s.SeedArtifacts = append(b.s.SeedArtifacts, SeedArtifact{Content: text, State: state})
		r := *m.Result
		r.Text = priorView(text, hash)
		rewritten[i].Result = &r
	}
	// The resumed session's first request is the rewritten history (its
	// system message included).
	b.pending = nil
	b.pending = append(b.pending, rewritten...)
	b.turn()
	b.msgs = prior
	b.user(fmt.Sprintf("We are back. Show me lines 1-20 of sha256=%s again before we continue.", asked[:16]))
	b.turn()
	for i := range 6 {
		b.read(fmt.Sprintf("internal/cache/evict%d.go", i), g.goSource("cache", 8))
		b.turn()
	}
	tests := g.testNames(24)
	b.bash("go test ./internal/cache", g.goTest("example.com/app/internal/cache", tests, map[string]string{tests[2]: "evict_test.go:77: evicted 3 entries, want 4"}))
	b.turn()
	b.user("What did that earlier file say? I need the exact signature.")
	b.turn(needed)
	b.edit("internal/cache/evict0.go", "if c.size > c.max {", "for c.size > c.max {")
	b.turn()
	ok := g.goTest("example.com/app/internal/cache", tests, nil)
	b.bash("go test ./internal/cache", ok)
	b.turn()
	for i := range 4 {
		b.read(fmt.Sprintf("internal/cache/lru%d.go", i), g.goSource("cache", 7))
		b.turn()
	}
	b.user("Done?")
	b.turn(fact(t, ok, "ok  \t"))
	return b.done()
}

// priorView is an output as an earlier rewrite left it: its first eight
// lines and a reference to the whole.
func priorView(text, hash string) string {
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	return strings.Join(lines[:8], "\n") + fmt.Sprintf("\n[ctxd:ref sha256=%s bytes=%d lines=%d omitted=9-%d; to see it, ask for lines a-b of sha256=%s]", hash[:16], len(text), len(lines), len(lines), hash[:16])
}

func tsSource(g *gen, funcs int) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "import { %s } from \"../%s\";\n\nexport interface %s {\n  id: string;\n  count: number;\n}\n\n", title(g.noun()), g.noun(), title(g.noun()))
	for range funcs {
		fmt.Fprintf(&sb, "export function %s(%s: %s[]): number {\n  let total = 0;\n  for (const x of %s) {\n    total += x.count * %d;\n  }\n  return total;\n}\n\n", g.ident(false), g.noun(), title(g.noun()), g.noun(), g.n(2, 9))
	}
	return sb.String()
}

func noisyBuildBinary(t *testing.T) *Session {
	b := newSession(t, "noisy-build-binary", "a web build full of colour codes and progress redraws, binary files dumped as base64 and hex, container logs; the build fails, then passes",
		request.FormatResponses, "gpt-4o", 0, 7, agentSystem, CaseNoisyBinary, CaseRecovery, CaseWindow128k)
	g := b.g
	b.user("The production build of the web app fails in CI. Make it pass.")
	b.turn()
	errs := []string{"./src/api/client.ts 41:12-30\nTS2345: Argument of type 'string' is not assignable to parameter of type 'number'.", "./src/views/list.ts 88:5-17\nTS2304: Cannot find name 'renderRow'."}
	fail := g.npmBuild(120, errs)
	b.bash("npm run build", fail)
	b.turn()
	b.read("web/src/api/client.ts", tsSource(g, 14))
	b.turn()
	b.bash("base64 web/public/logo.png", g.base64File(6000))
	b.turn()
	b.read("web/src/views/list.ts", tsSource(g, 12))
	b.turn()
	b.edit("web/src/api/client.ts", "fetchPage(id)", "fetchPage(Number(id))")
	b.turn()
	fail2 := g.npmBuild(120, errs[1:])
	b.bash("npm run build", fail2)
	b.turn()
	b.bash("xxd build/app.wasm | head -160", g.hexdump(160*16))
	b.turn()
	b.bash("docker logs web-preview --tail 120", g.dockerLogs(120, "TypeError: Cannot read properties of undefined (reading 'rows') at renderList (list.ts:88)"))
	b.turn()
	b.user("What exactly did the first build complain about in client.ts?")
	b.turn("TS2345: Argument of type 'string' is not assignable to parameter of type 'number'.")
	b.edit("web/src/views/list.ts", "renderRow(", "renderListRow(")
	b.turn()
	ok := g.npmBuild(120, nil)
	b.bash("npm run build", ok)
	b.turn()
	b.bash("docker logs web-preview --tail 120", g.dockerLogs(120, ""))
	b.turn()
	for i := range 5 {
		b.read(fmt.Sprintf("web/src/views/view%d.ts", i), tsSource(g, 8))
		b.turn()
	}
	b.bash("base64 web/public/icon-192.png", g.base64File(4000))
	b.turn()
	b.bash("npm run build", ok)
	b.turn()
	b.user("Summarize the fix.")
	b.turn("TS2304: Cannot find name 'renderRow'.")
	return b.done()
}

func runtimePanicDebug(t *testing.T) *Session {
	b := newSession(t, "runtime-panic-debug", "a service that panics and a Python script that raises: traces, fixes and reruns in a 32k window",
		request.FormatAnthropic, "claude-sonnet-4.5", 32000, 8, agentSystem, CaseErrors, CaseRecovery, CaseWindow32k)
	g := b.g
	b.user("The worker panics on startup since this morning, and scripts/migrate.py crashes too. Fix both.")
	b.turn()
	frames := []string{"main.(*Queue).pop@/src/cmd/worker/queue.go:88", "main.(*Worker).next@/src/cmd/worker/worker.go:142", "main.(*Worker).Run@/src/cmd/worker/worker.go:97", "main.main@/src/cmd/worker/main.go:31"}
	p1 := g.goPanic("runtime error: index out of range [3] with length 3", frames)
	b.bash("go run ./cmd/worker", p1)
	b.turn()
	for _, f := range []string{"cmd/worker/queue.go", "cmd/worker/worker.go"} {
		b.read(f, g.goSource("main", 12))
		b.turn()
	}
	b.edit("cmd/worker/queue.go", "return q.items[q.head]", "if q.head >= len(q.items) {\n\t\treturn nil, false\n\t}\n\treturn q.items[q.head], true")
	b.turn()
	p2 := g.goPanic("assignment to entry in nil map", []string{"main.(*Worker).track@/src/cmd/worker/worker.go:214", "main.(*Worker).Run@/src/cmd/worker/worker.go:99", "main.main@/src/cmd/worker/main.go:31"})
	b.bash("go run ./cmd/worker", p2)
	b.turn()
	b.edit("cmd/worker/worker.go", "var seen map[string]int", "seen := map[string]int{}")
	b.turn()
	b.bash("go run ./cmd/worker", "worker: started 4 consumers\nworker: queue empty, waiting\n")
	b.turn(fact(t, p1, "index out of range [3]"))
	tb := g.pyTraceback([]string{"scripts/migrate.py:212:main", "scripts/migrate.py:148:migrate_table", "scripts/db.py:77:execute"}, "psycopg.errors.UndefinedColumn: column \"owner_id\" does not exist")
	b.bash("python scripts/migrate.py --dry-run", tb)
	b.turn()
	b.read("scripts/migrate.py", g.pySource(14))
	b.turn()
	b.read("scripts/db.py", g.pySource(9))
	b.turn()
	b.edit("scripts/migrate.py", "owner_id", "user_id")
	b.turn()
	tb2 := g.pyTraceback([]string{"scripts/migrate.py:212:main", "scripts/migrate.py:166:copy_rows"}, "KeyError: 'created_at'")
	b.bash("python scripts/migrate.py --dry-run", tb2)
	b.turn()
	b.edit("scripts/migrate.py", "row['created_at']", "row.get('created_at')")
	b.turn()
	b.bash("python scripts/migrate.py --dry-run", "migrate: 14 tables, 0 errors (dry run)\n")
	b.turn()
	tests := g.testNames(26)
	b.bash("go test ./cmd/worker", g.goTest("example.com/app/cmd/worker", tests, nil))
	b.turn()
	for i := range 4 {
		b.read(fmt.Sprintf("cmd/worker/handler%d.go", i), g.goSource("main", 7))
		b.turn()
	}
	b.user("Which two errors did you fix, exactly?")
	b.turn("KeyError: 'created_at'", "assignment to entry in nil map")
	return b.done()
}

func duplicateToolCalls(t *testing.T) *Session {
	b := newSession(t, "duplicate-tool-calls", "an agent that re-runs the same commands and re-reads the same files: repeated calls with identical results",
		request.FormatChat, "o3", 0, 9, agentSystem, CaseDuplicateCalls, CaseRepeatedOutput, CaseWindow200k)
	g := b.g
	status := gitStatus("fix/retry-budget", []string{"internal/retry/budget.go", "internal/retry/budget_test.go"}, []string{"notes.txt"})
	ls := g.lsLong([]string{"budget.go", "budget_test.go", "backoff.go", "backoff_test.go", "doc.go", "jitter.go"})
	src := g.goSource("retry", 18)
	tests := g.testNames(30)
	out := g.goTest("example.com/app/internal/retry", tests, map[string]string{tests[11]: "budget_test.go:64: retries = 5, want 3"})
	b.user("The retry budget is not respected; fix internal/retry.")
	b.turn()
	for round := range 6 {
		b.bash("git status", status)
		b.turn()
		b.bash("ls -la internal/retry", ls)
		b.turn()
		b.read("internal/retry/budget.go", src)
		b.turn()
		b.bash("go test ./internal/retry", out)
		b.turn()
		if round == 2 {
			b.user("You keep running the same commands. What does the failing test say?")
			b.turn(fact(t, out, "retries = 5"))
		}
	}
	b.edit("internal/retry/budget.go", "if b.used > b.max {", "if b.used >= b.max {")
	b.turn()
	ok := g.goTest("example.com/app/internal/retry", tests, nil)
	b.bash("go test ./internal/retry", ok)
	b.turn(fact(t, ok, "ok  \t"))
	return b.done()
}

func continuedResponses(t *testing.T) *Session {
	b := newSession(t, "continued-responses", "a Responses session continued with previous_response_id over 36 turns: each request carries only what is new, and repeated outputs match earlier turns",
		request.FormatResponses, "gpt-4o", 0, 10, agentSystem, Case30Turns, CaseDuplicateCalls, CaseWindow128k)
	b.s.Continued = true
	g := b.g
	tests := g.testNames(28)
	fail := g.goTest("example.com/app/internal/index", tests, map[string]string{tests[5]: "index_test.go:91: hits = 2, want 3"})
	status := gitStatus("feat/index", []string{"internal/index/build.go"}, nil)
	b.user("Speed up the index build without changing results.")
	b.turn()
	for i := range 35 {
		switch i % 5 {
		case 0:
			b.bash("go test ./internal/index", fail)
			b.turn(fact(t, fail, "hits = 2"))
		case 1:
			src := g.goSource("index", 8+i%4)
			b.read(fmt.Sprintf("internal/index/part%d.go", i), src)
			b.turn()
		case 2:
			b.bash("git status", status)
			b.turn()
		case 3:
			b.run("grep", `{"pattern":"buildIndex","path":"internal"}`, g.grep("buildIndex", []string{"internal/index/build.go", "internal/index/merge.go", "internal/api/search.go"}, 12))
			b.turn()
		default:
			b.edit("internal/index/build.go", fmt.Sprintf("batch := %d", i), fmt.Sprintf("batch := %d", i*2))
			b.turn()
		}
	}
	return b.done()
}

func longDebug16k(t *testing.T) *Session {
	b := newSession(t, "long-debug-16k", "a long debugging session with small outputs in a 16k window",
		request.FormatAnthropic, "claude-3.5-haiku", 16000, 11, agentSystem, Case30Turns, CaseWindow16k, CaseErrors)
	g := b.g
	tests := g.testNames(10)
	b.user("TestMergeIntervals is flaky. Find out why.")
	b.turn()
	var firstFail string
	for i := range 31 {
		switch i % 4 {
		case 0:
			fails := map[string]string{}
			if i < 24 {
				fails[tests[4]] = fmt.Sprintf("merge_test.go:%d: got [%d %d], want [%d %d]", 20+i, i, i+3, i, i+4)
			}
			out := g.goTest("example.com/app/internal/interval", tests, fails)
			if firstFail == "" {
				firstFail = out
			}
			b.bash("go test -run TestMergeIntervals -count=1 ./internal/interval", out)
		case 1:
			b.read(fmt.Sprintf("internal/interval/merge%d.go", i), g.goSource("interval", 4))
		case 2:
			b.edit("internal/interval/merge.go", fmt.Sprintf("sort.Slice(xs, less%d)", i), fmt.Sprintf("sort.SliceStable(xs, less%d)", i))
		default:
			b.bash("go vet ./internal/interval", "")
		}
		if i == 20 {
			b.turn(fact(t, firstFail, "merge_test.go:20"))
			continue
		}
		b.turn()
	}
	return b.done()
}

func corruptedMidway(t *testing.T) *Session {
	b := newSession(t, "corrupted-midway", "artifacts damaged between turns (one corrupted, one deleted) while the history still carries their texts",
		request.FormatResponses, "o3", 0, 12, agentSystem, CaseCorrupted, CaseWindow200k)
	g := b.g
	b.user("Port the report renderer to the new template engine.")
	b.turn()
	var early []string
	for i := range 4 {
		out := numbered(g.goSource("render", 14+i))
		early = append(early, out)
		b.run("read_file", fmt.Sprintf(`{"path":"internal/render/tmpl%d.go"}`, i), out)
		b.turn()
	}
	tests := g.testNames(32)
	fail := g.goTest("example.com/app/internal/render", tests, map[string]string{tests[9]: "render_test.go:140: output differs at byte 2048"})
	for i := range 10 {
		b.read(fmt.Sprintf("internal/render/page%d.go", i), g.goSource("render", 9))
		b.turn()
	}
	b.damage = []Damage{{Op: "corrupt", SHA256: artifacts.Hash([]byte(early[0]))}, {Op: "delete", SHA256: artifacts.Hash([]byte(early[1]))}}
	b.bash("go test ./internal/render", fail)
	b.turn()
	for i := range 8 {
		b.read(fmt.Sprintf("internal/render/widget%d.go", i), g.goSource("render", 6))
		b.turn()
	}
	b.edit("internal/render/page3.go", "tmpl.Execute(w, data)", "tmpl.ExecuteTemplate(w, \"page\", data)")
	b.turn()
	b.bash("go test ./internal/render", g.goTest("example.com/app/internal/render", tests, nil))
	b.turn(fact(t, fail, "output differs at byte 2048"))
	return b.done()
}

func pythonPytest32k(t *testing.T) *Session {
	b := newSession(t, "python-pytest-32k", "a Python test suite fixed over many runs with tracebacks in a 32k window",
		request.FormatChat, "gpt-4o", 32000, 13, "You maintain a Python service. Run pytest after every change.", CaseErrors, CaseRecovery, CaseWindow32k)
	g := b.g
	files := []string{"tests/test_api.py", "tests/test_models.py", "tests/test_billing.py", "tests/test_auth.py", "tests/test_jobs.py"}
	b.user("CI is red on the billing branch. Make pytest pass.")
	b.turn()
	var first string
	for i := range 7 {
		fails := map[string]string{}
		for k := i; k < 5; k++ {
			fails[fmt.Sprintf("%s::test_%s_%s", files[k%5], g.verb(), g.noun())] = fmt.Sprintf("AssertionError: assert %d == %d", 100+k, 90+k)
		}
		out := g.pytest(files, fails)
		if first == "" {
			first = out
		}
		b.bash("python -m pytest -q", out)
		b.turn()
		if i < 5 {
			b.read(fmt.Sprintf("app/billing/part%d.py", i), g.pySource(10))
			b.turn()
			tb := g.pyTraceback([]string{fmt.Sprintf("app/billing/part%d.py:%d:charge", i, 40+i), "app/billing/ledger.py:88:post"}, fmt.Sprintf("ZeroDivisionError: division by zero (invoice %d)", 1000+i))
			b.bash(fmt.Sprintf("python -c 'import app.billing.part%d as p; p.main()'", i), tb)
			b.turn()
			b.edit(fmt.Sprintf("app/billing/part%d.py", i), "rate / count", "rate / max(count, 1)")
			b.turn()
		}
	}
	b.user("Which assertion failed in the first run for test_api.py?")
	b.turn(fact(t, first, "AssertionError: assert 100 == 90"))
	return b.done()
}
