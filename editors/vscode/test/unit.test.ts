// Unit tests of the pure client-layer functions: request building, the
// tree view's rows, the status text, session helpers and the backoff.

import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import { backoffDelay, DEFAULT_BACKOFF, resolveBinary, DaemonNotFoundError } from "../src/client/daemon";
import type { Chunk, Envelope, SessionListing } from "../src/client/protocol";
import { buildPromptParams, errorText, newSessionId, relativeTo, type EditorState, type Settings } from "../src/client/requests";
import { resumeSummary, runningSession } from "../src/client/sessions";
import { chunkLocation, statusText, treeOf } from "../src/client/view";

const settings: Settings = { path: "", model: "", tokenBudget: 0, format: "markdown", exclude: [], offerResume: true };

describe("buildPromptParams", () => {
  const root = "/ws";
  const tests: { name: string; task: "auto" | "debug"; st: EditorState; want: Record<string, unknown> }[] = [
    {
      name: "no editor",
      task: "auto",
      st: { root, buffers: [], diagnostics: [] },
      want: { user_request: "do it", task_type: "auto", format: "markdown" },
    },
    {
      name: "active file with cursor, selection and unsaved text",
      task: "auto",
      st: {
        root,
        active: { file: "/ws/a/b.go", cursorLine: 7, selection: { start: 5, end: 9 } },
        buffers: [
          { file: "/ws/a/b.go", dirty: true, text: "package a\n" },
          { file: "/ws/c.go", dirty: false, text: "" },
          { file: "/ws/d.go", dirty: true, text: "package d\n" },
          { file: "/elsewhere/e.go", dirty: true, text: "x" },
        ],
        diagnostics: [{ line: 3, severity: "error", message: "undefined: x" }],
      },
      want: {
        user_request: "do it",
        task_type: "auto",
        format: "markdown",
        open_files: [
          { path: "a/b.go", line: 7, selection: { start: 5, end: 9 }, text: "package a\n" },
          { path: "d.go", text: "package d\n" },
        ],
      },
    },
    {
      name: "debug appends the active file's errors only",
      task: "debug",
      st: {
        root,
        active: { file: "/ws/a/b.go", cursorLine: 1 },
        buffers: [],
        diagnostics: [
          { line: 9, severity: "error", message: "missing return\nmore", source: "compiler" },
          { line: 2, severity: "warning", message: "unused" },
          { line: 3, severity: "error", message: "undefined: x" },
        ],
      },
      want: {
        user_request: "do it\n\nCurrent errors:\na/b.go:3: undefined: x\na/b.go:9: compiler: missing return",
        task_type: "debug",
        format: "markdown",
        open_files: [{ path: "a/b.go", line: 1 }],
      },
    },
  ];
  for (const tt of tests) {
    it(tt.name, () => {
      assert.deepEqual(buildPromptParams("  do it ", tt.task, tt.st, settings), tt.want);
    });
  }
  it("carries model, budget and session", () => {
    const p = buildPromptParams("x", "test", { root, buffers: [], diagnostics: [] }, { ...settings, model: " gpt-4o ", tokenBudget: 8000.7, format: "xml" }, "s-1");
    assert.deepEqual(p, { user_request: "x", task_type: "test", format: "xml", model: "gpt-4o", token_budget: { total: 8000 }, session_id: "s-1" });
  });
});

describe("helpers", () => {
  it("relativeTo", () => {
    assert.equal(relativeTo("/ws", "/ws/a/b.go"), "a/b.go");
    assert.equal(relativeTo("/ws", "/wsx/a.go"), undefined);
    assert.equal(relativeTo("/ws", "/ws"), undefined);
  });
  it("errorText ignores non-errors", () => {
    assert.equal(errorText("f.go", [{ line: 1, severity: "warning", message: "w" }]), "");
  });
  it("newSessionId is a valid daemon session id", () => {
    const id = newSessionId(new Date("2026-01-02T03:04:05.678Z"), () => 0.5);
    assert.equal(id, "vscode-20260102T030405-7fffff");
    assert.match(newSessionId(), /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/);
  });
  it("backoff grows and is capped", () => {
    const b = { ...DEFAULT_BACKOFF, initialMs: 100, maxMs: 1000, factor: 2 };
    assert.deepEqual([0, 1, 2, 3, 4, 5].map((n) => backoffDelay(b, n)), [100, 200, 400, 800, 1000, 1000]);
  });
  it("a missing binary names the ctxd.path setting", () => {
    assert.throws(() => resolveBinary("", "/nonexistent-dir"), (err: Error) => err instanceof DaemonNotFoundError && /not found on PATH/.test(err.message) && err.message.includes("ctxd.path"));
    assert.throws(() => resolveBinary("/no/such/ctxd", process.env.PATH), (err: Error) => err instanceof DaemonNotFoundError && err.message.includes('"/no/such/ctxd"') && err.message.includes("ctxd.path"));
  });
});

function chunk(over: Partial<Chunk>): Chunk {
  return { source: "a.go", chunk_type: "file", priority: "high", score: 800, tokens: 100, ...over };
}

describe("view", () => {
  it("chunkLocation", () => {
    assert.deepEqual(chunkLocation(chunk({ facts: { lines: 50, cursor: 12 } })), { file: "a.go", start: 12, end: 50 });
    assert.deepEqual(chunkLocation(chunk({ facts: { lines: 50, error_lines: [30, 8] } })), { file: "a.go", start: 8, end: 50 });
    assert.deepEqual(
      chunkLocation(chunk({ facts: { lines: 50 }, truncated: true, elided: [{ start: 1, end: 4 }, { start: 20, end: 40 }] })),
      { file: "a.go", start: 5, end: 19 },
    );
    assert.equal(chunkLocation(chunk({ source: "structure", chunk_type: "structure" })), undefined);
  });
  it("statusText without an envelope", () => {
    assert.equal(statusText(undefined).text, "ctxd");
  });
  it("treeOf lists chunks, elided ranges, skipped chunks and warnings", () => {
    const env: Envelope = {
      task_type: "debug",
      user_request: "r",
      root: "/ws",
      model: { name: "gpt-4o" },
      token_budget: { total: 1000 },
      context: {
        chunks: [
          chunk({ source: "a.go", priority: "critical", score: 1300, tokens: 400, truncated: true, truncation: "bodies", elided: [{ start: 10, end: 20 }], facts: { lines: 30 } }),
          chunk({ source: "git:log", chunk_type: "history", priority: "low", score: 200.25, tokens: 50 }),
        ],
        tokens_used: 450,
        budget: 500,
        utilization: 0.9,
        skipped: [{ source: "b.go", reason: "over budget: needs 900 tokens, 50 left", tokens: 880, score: 500 }],
      },
      warnings: ["budget reduced"],
    };
    const nodes = treeOf(env);
    assert.deepEqual(
      nodes.map((n) => [n.kind, n.label, n.description]),
      [
        ["summary", "debug · 450/500 tokens (90%)", "gpt-4o"],
        ["chunk", "a.go", "critical · score 1300 · 400 tok · truncated: bodies"],
        ["chunk", "git:log", "low · score 200.3 · 50 tok · full"],
        ["skippedGroup", "Skipped (1)", ""],
        ["warning", "budget reduced", "warning"],
      ],
    );
    assert.deepEqual(nodes[1]?.location, { file: "a.go", start: 1, end: 9 });
    assert.deepEqual(nodes[1]?.children.map((c) => [c.label, c.location]), [["lines 10-20 elided", { file: "a.go", start: 10, end: 20 }]]);
    assert.equal(nodes[2]?.location, undefined);
    assert.deepEqual(nodes[3]?.children.map((c) => [c.label, c.description, c.location]), [
      ["b.go", "over budget: needs 900 tokens, 50 left · score 500", { file: "b.go", start: 1, end: 1 }],
    ]);
    assert.equal(statusText(env).text, "ctxd 90% of 500");
    assert.equal(new Set(nodes.map((n) => n.id)).size, nodes.length);
  });
});

describe("sessions", () => {
  const listing: SessionListing = {
    sessions: [
      { session_id: "done", state: "completed", updated: "", latest_seq: 1, checkpoints: 1, task_type: "debug", user_request: "a", root: "/ws" },
      { session_id: "other", state: "running", updated: "", latest_seq: 1, checkpoints: 1, task_type: "debug", user_request: "b", root: "/other" },
      { session_id: "mine", state: "running", updated: "", latest_seq: 2, checkpoints: 2, task_type: "test", user_request: "c", root: "/ws/" },
    ],
    problems: [],
  };
  it("runningSession picks the newest running session of this root", () => {
    assert.equal(runningSession(listing, "/ws")?.session_id, "mine");
    assert.equal(runningSession(listing, "/nowhere"), undefined);
  });
  it("resumeSummary", () => {
    assert.equal(resumeSummary({ resumed: false, reason: "no running session in this workspace", sources: [], unchanged: 0, changed: 0, missing: 0 }), "ctxd: nothing to resume (no running session in this workspace).");
    assert.match(resumeSummary({ resumed: true, session_id: "s", sources: [], unchanged: 2, changed: 1, missing: 0 }), /resumed session s: sources 2 unchanged, 1 changed, 0 missing\. No prompt was rebuilt\./);
  });
});
