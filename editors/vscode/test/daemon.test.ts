// The client layer against the real ctxd daemon over stdio: build a
// prompt from editor state, the tree view's data from a real envelope,
// resume, cancellation through a CancellationToken, restart with backoff
// after the daemon is killed, and a missing binary.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import { CancellationTokenSource, ResponseError } from "vscode-jsonrpc/node";
import { Client } from "../src/client/client";
import { Daemon, DaemonFailedError, DaemonNotFoundError, type StateEvent } from "../src/client/daemon";
import { ErrorCodes } from "../src/client/protocol";
import { buildPromptParams, initializeParams, type Settings } from "../src/client/requests";
import { runningSession } from "../src/client/sessions";
import { treeOf } from "../src/client/view";
import { ctxdBinary, daemonEnv, gitRepo, sampleRepo, slowRoot, tempDir } from "./helpers";

const settings: Settings = { path: "", model: "gpt-4o", tokenBudget: 0, format: "markdown", exclude: [], offerResume: true };

function newClient(root: string, env: NodeJS.ProcessEnv, over: Partial<Settings> = {}): Client {
  const s = { ...settings, path: ctxdBinary(), ...over };
  return new Client({
    binary: s.path,
    cwd: root,
    env,
    initializeParams: () => initializeParams(root, s, "test"),
    backoff: { initialMs: 50, maxMs: 400 },
  });
}

// nextState resolves with the daemon's next state event that satisfies want.
function nextState(d: Daemon, want: (e: StateEvent) => boolean): Promise<StateEvent> {
  return new Promise((resolve) => {
    const off = d.onState((e) => {
      if (want(e)) {
        off();
        resolve(e);
      }
    });
  });
}

describe("client against the real daemon", () => {
  let root: string;
  let env: NodeJS.ProcessEnv;
  let client: Client;

  before(() => {
    root = gitRepo(sampleRepo);
    env = daemonEnv();
    client = newClient(root, env);
  });
  after(async () => {
    await client.stop();
  });

  it("initializes with the settings", async () => {
    const init = await client.daemon.start();
    assert.equal(init.model.name, "gpt-4o");
    assert.equal(fs.realpathSync(init.root), root);
    for (const m of ["ctx/buildPrompt", "ctx/sessions/list", "ctx/sessions/resume"]) {
      assert.ok(init.methods.includes(m), `methods lack ${m}: ${init.methods.join(", ")}`);
    }
    assert.equal(client.daemon.state, "running");
  });

  it("builds a prompt from the editor state: active file, selection, unsaved buffer, errors", async () => {
    const file = path.join(root, "cart", "cart.go");
    const unsaved = fs.readFileSync(file, "utf8").replace("n := 0", "n := 0 // UNSAVED_MARKER");
    const params = buildPromptParams(
      "why does Total return the wrong count",
      "debug",
      {
        root,
        active: { file, cursorLine: 14, selection: { start: 13, end: 18 } },
        buffers: [{ file, dirty: true, text: unsaved }],
        diagnostics: [{ line: 15, severity: "error", message: "invalid operation: n += it.Qty" }],
      },
      settings,
      "vscode-test-build",
    );
    const envl = await client.buildPrompt(params);
    assert.equal(envl.task_type, "debug");
    assert.equal(envl.session_id, "vscode-test-build");
    assert.ok(envl.prompt?.includes("UNSAVED_MARKER"), "the prompt holds the unsaved buffer, not the file on disk");
    assert.ok(envl.user_request.includes("cart/cart.go:15: invalid operation"), envl.user_request);
    const c = envl.context.chunks.find((ch) => ch.source === "cart/cart.go");
    assert.ok(c, `no chunk for the active file in ${envl.context.chunks.map((ch) => ch.source).join(", ")}`);
    assert.equal(c.priority, "critical");
    assert.equal(c.facts?.cursor, 14);
    assert.equal(client.lastEnvelope, envl);
  });

  it("gives the tree view its rows from a real envelope", async () => {
    const envl = await client.buildPrompt({
      user_request: "add a discount rule to Discount12 in cart/discounts.go",
      task_type: "implement",
      token_budget: { total: 2400 },
      open_files: [{ path: "cart/discounts.go", line: 40 }],
    });
    const nodes = treeOf(envl);
    const chunks = nodes.filter((n) => n.kind === "chunk");
    assert.deepEqual(
      chunks.map((n) => n.label),
      envl.context.chunks.map((c) => c.source),
    );
    const big = chunks.find((n) => n.label === "cart/discounts.go");
    const bigChunk = envl.context.chunks.find((c) => c.source === "cart/discounts.go");
    assert.ok(big && bigChunk, "the open file is in the context");
    assert.ok(bigChunk.truncated, "a 400-function file is cut to fit 2400 tokens");
    assert.ok(big.description.includes(`truncated: ${bigChunk.truncation ?? ""}`), big.description);
    assert.ok(big.description.includes(`${bigChunk.tokens} tok`), big.description);
    assert.deepEqual(big.location?.start, 40, "an open file opens at its cursor");
    assert.equal(big.children.length, bigChunk.elided?.length ?? 0);
    for (const child of big.children) {
      assert.ok(child.location && child.location.start <= child.location.end && child.location.file === "cart/discounts.go");
    }
    const skipped = nodes.find((n) => n.kind === "skippedGroup");
    assert.equal(skipped?.children.length ?? 0, envl.context.skipped?.length ?? 0);
    for (const s of skipped?.children ?? []) {
      assert.ok(s.description.length > 0, "a skipped row says why");
    }
  });

  it("resumes the running session after a restart, seeing the changed file", async () => {
    await client.buildPrompt({
      user_request: "write a test for Cart.Total",
      task_type: "test",
      open_files: [{ path: "cart/cart.go", line: 12 }],
      session_id: "vscode-test-resume",
    });
    await client.stop();
    fs.appendFileSync(path.join(root, "cart", "cart.go"), "\n// changed after the checkpoint\n");
    const fresh = newClient(root, env);
    try {
      const listing = await fresh.listSessions("running");
      const cand = runningSession(listing, root);
      assert.ok(cand, `no running session in ${JSON.stringify(listing.sessions.map((s) => s.session_id))}`);
      assert.equal(cand.session_id, "vscode-test-resume");
      assert.equal(cand.user_request, "write a test for Cart.Total");
      const res = await fresh.resume(cand.session_id);
      assert.equal(res.resumed, true);
      assert.equal(res.session_id, "vscode-test-resume");
      assert.ok(res.envelope?.prompt, "resume rebuilds the prompt");
      assert.equal(res.envelope.task_type, "test");
      assert.equal(fresh.lastEnvelope, res.envelope);
      const cart = res.sources.find((s) => s.source === "cart/cart.go");
      assert.equal(cart?.status, "changed");
      assert.ok(res.changed >= 1);
    } finally {
      await fresh.stop();
    }
    client = newClient(root, env);
  });

  it("offers nothing to resume in a workspace without sessions", async () => {
    const other = newClient(gitRepo({ "a.txt": "a\n" }), daemonEnv());
    try {
      const listing = await other.listSessions("running");
      assert.equal(runningSession(listing, root), undefined);
      const res = await other.resume();
      assert.equal(res.resumed, false);
      assert.ok(res.reason);
    } finally {
      await other.stop();
    }
  });

  it("restarts a killed daemon with backoff and serves the next request", async () => {
    await client.daemon.start();
    const pid = client.daemon.pid;
    assert.ok(pid);
    const restarting = nextState(client.daemon, (e) => e.state === "restarting");
    const running = nextState(client.daemon, (e) => e.state === "running");
    process.kill(pid, "SIGKILL");
    const r = await restarting;
    assert.equal(r.delayMs, 50, "the first restart waits the initial backoff");
    assert.equal(r.attempt, 1);
    assert.match(r.message ?? "", /SIGKILL/);
    // A request sent while the daemon is down waits for the restart.
    const counted = client.countTokens("hello after a restart");
    await running;
    assert.notEqual(client.daemon.pid, pid);
    const res = await counted;
    assert.ok(res.tokens > 0);
  });

  it("gives up after repeated crashes and says why", async () => {
    const dir = tempDir("ctxd-vscode-crash-");
    const bin = path.join(dir, "ctxd-crash");
    fs.writeFileSync(bin, "#!/bin/sh\necho 'ctxd: cannot start: disk full' >&2\nexit 3\n", { mode: 0o755 });
    const d = new Daemon({
      binary: bin,
      cwd: dir,
      initializeParams: () => ({ root: dir, clientInfo: { name: "test", version: "0" } }),
      backoff: { initialMs: 10, maxMs: 40, maxRestarts: 3 },
    });
    const delays: number[] = [];
    d.onState((e) => {
      if (e.state === "restarting" && e.delayMs !== undefined) {
        delays.push(e.delayMs);
      }
    });
    const failed = nextState(d, (e) => e.state === "failed");
    await assert.rejects(d.start(), /exited with code 3/);
    const f = await failed;
    assert.deepEqual(delays, [10, 20, 40]);
    assert.match(f.message ?? "", /4 times in a row/);
    assert.match(f.message ?? "", /disk full/);
    await assert.rejects(d.request("ctx/countTokens", { text: "x" }), DaemonFailedError);
    await d.stop();
  });

  it("fails without restarting when the daemon refuses initialize", async () => {
    const d = new Daemon({
      binary: ctxdBinary(),
      cwd: root,
      env: daemonEnv(),
      initializeParams: () => ({ root, clientInfo: { name: "test", version: "0" }, format: "pdf" as "xml" }),
      backoff: { initialMs: 10 },
    });
    let restarts = 0;
    d.onState((e) => {
      if (e.state === "restarting") {
        restarts++;
      }
    });
    await assert.rejects(d.start(), (err: Error) => err instanceof DaemonFailedError && /refused to initialize/.test(err.message) && /format/.test(err.message));
    assert.equal(d.state, "failed");
    await assert.rejects(d.request("ctx/countTokens", { text: "x" }), DaemonFailedError);
    assert.equal(restarts, 0);
    await d.stop();
  });

  it("reports a missing binary naming ctxd.path", async () => {
    const d = new Daemon({
      binary: "",
      cwd: root,
      env: { ...process.env, PATH: tempDir("ctxd-vscode-empty-path-") },
      initializeParams: () => ({ root, clientInfo: { name: "test", version: "0" } }),
    });
    const failed = nextState(d, (e) => e.state === "failed");
    await assert.rejects(d.start(), (err: Error) => err instanceof DaemonNotFoundError && err.message.includes("ctxd.path"));
    assert.match((await failed).message ?? "", /ctxd\.path/);
  });
});

describe("cancellation", () => {
  it("a cancelled token sends $/cancelRequest and rejects with -32800", async () => {
    const root = slowRoot();
    const client = new Client({
      binary: ctxdBinary(),
      cwd: tempDir("ctxd-vscode-cwd-"),
      env: daemonEnv(),
      initializeParams: () => ({ root, clientInfo: { name: "test", version: "0" } }),
    });
    try {
      await client.daemon.start();
      const source = new CancellationTokenSource();
      const p = client.buildPrompt(
        { user_request: "how does the http server handle keep-alive connections" },
        source.token,
      );
      // Cancel once the request is on the wire: the cold gather over the
      // Go source tree is still running.
      setImmediate(() => source.cancel());
      await assert.rejects(p, (err: unknown) => err instanceof ResponseError && err.code === ErrorCodes.RequestCancelled);
      assert.equal(client.lastEnvelope, undefined);
      const res = await client.countTokens("after cancel");
      assert.ok(res.tokens > 0, "the daemon serves the next request");
    } finally {
      await client.stop();
    }
  });
});
