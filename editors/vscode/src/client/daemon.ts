// Process management for `ctxd serve`: find the binary, start it, speak
// JSON-RPC over its stdio with vscode-jsonrpc, and restart it with backoff
// when it dies. No `vscode` import: node's test runner drives this module
// against the real daemon.

import { spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import {
  createMessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
  ErrorCodes,
  ResponseError,
  type MessageConnection,
  type CancellationToken,
} from "vscode-jsonrpc/node";
import type { InitializeParams, InitializeResult } from "./protocol";

/** SETTING_PATH names the setting that locates the binary; messages name it. */
export const SETTING_PATH = "ctxd.path";

/** DaemonNotFoundError says the ctxd binary could not be found or run. */
export class DaemonNotFoundError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DaemonNotFoundError";
  }
}

/** DaemonFailedError says the daemon died too often in a row and is no longer restarted. */
export class DaemonFailedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DaemonFailedError";
  }
}

/**
 * resolveBinary finds the ctxd executable: the configured path when set
 * (a bare name is looked up on PATH), else `ctxd` on PATH. It throws a
 * DaemonNotFoundError naming the ctxd.path setting when there is none.
 */
export function resolveBinary(configured: string | undefined, envPath: string | undefined): string {
  const setting = (configured ?? "").trim();
  const name = setting === "" ? "ctxd" : setting;
  if (name.includes("/") || name.includes("\\")) {
    if (isExecutable(name)) {
      return path.resolve(name);
    }
    throw new DaemonNotFoundError(
      `ctxd binary not found or not executable at "${name}" (the ${SETTING_PATH} setting). ` +
        `Fix the ${SETTING_PATH} setting, or clear it to use ctxd from PATH.`,
    );
  }
  for (const dir of (envPath ?? "").split(path.delimiter)) {
    if (dir === "") {
      continue;
    }
    const candidate = path.join(dir, name);
    if (isExecutable(candidate)) {
      return candidate;
    }
  }
  throw new DaemonNotFoundError(
    `ctxd binary "${name}" not found on PATH. Install it (go install ./cmd/ctxd in a ctxd checkout) ` +
      `or set the ${SETTING_PATH} setting to the binary's full path.`,
  );
}

function isExecutable(p: string): boolean {
  try {
    const st = fs.statSync(p);
    if (!st.isFile()) {
      return false;
    }
    fs.accessSync(p, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** BackoffOptions shape the restart delays: initialMs × factor^n, at most maxMs. */
export interface BackoffOptions {
  initialMs: number;
  maxMs: number;
  factor: number;
  /** maxRestarts consecutive failed starts or crashes end in the failed state. */
  maxRestarts: number;
  /** stableMs: a daemon that ran this long before dying resets the count. */
  stableMs: number;
}

/** DEFAULT_BACKOFF restarts after 0.25 s, 0.5 s, 1 s, … up to 8 s, five times in a row. */
export const DEFAULT_BACKOFF: BackoffOptions = { initialMs: 250, maxMs: 8000, factor: 2, maxRestarts: 5, stableMs: 30000 };

/** backoffDelay is the wait before restart number attempt (0-based). */
export function backoffDelay(b: BackoffOptions, attempt: number): number {
  return Math.min(b.maxMs, b.initialMs * Math.pow(b.factor, attempt));
}

/** DaemonState is where the daemon is in its life. */
export type DaemonState = "stopped" | "starting" | "running" | "restarting" | "failed";

/** StateEvent reports a state change, with a message for people on restarts and failures. */
export interface StateEvent {
  state: DaemonState;
  message?: string;
  /** delayMs is the wait before the next start (restarting only). */
  delayMs?: number;
  /** attempt counts consecutive restarts (restarting only). */
  attempt?: number;
}

/** DaemonOptions configure a Daemon. */
export interface DaemonOptions {
  /** binary is the ctxd.path setting (empty: PATH); a function is read on every start. */
  binary?: string | (() => string | undefined);
  /** cwd is where the daemon runs (the workspace root). */
  cwd: string;
  /** initializeParams is called on every (re)start, so settings changes apply. */
  initializeParams: () => InitializeParams;
  /** env is the daemon's environment (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** extraArgs are appended after `serve --stdio`. */
  extraArgs?: string[];
  backoff?: Partial<BackoffOptions>;
  /** log receives the daemon's stderr lines and the client's own notes. ctxd logs no source text. */
  log?: (line: string) => void;
}

type Listener = (e: StateEvent) => void;

interface Generation {
  child: ChildProcess;
  connection: MessageConnection;
  ready: Promise<InitializeResult>;
  startedAt: number;
  stderrTail: string[];
}

/**
 * Daemon owns one `ctxd serve` process. Requests wait for it to be
 * initialized; if it dies it is started again after a growing delay, and
 * after maxRestarts consecutive deaths it stays failed until restart() is
 * called.
 */
export class Daemon {
  private readonly opts: DaemonOptions;
  private readonly backoff: BackoffOptions;
  private readonly listeners: Listener[] = [];
  private gen: Generation | undefined;
  private current: Promise<Generation> | undefined;
  private stopping = false;
  private attempts = 0;
  private timer: NodeJS.Timeout | undefined;
  private failure: Error | undefined;
  private stateValue: DaemonState = "stopped";
  private initResult: InitializeResult | undefined;

  constructor(opts: DaemonOptions) {
    this.opts = opts;
    this.backoff = { ...DEFAULT_BACKOFF, ...opts.backoff };
  }

  /** state is the daemon's current state. */
  get state(): DaemonState {
    return this.stateValue;
  }

  /** pid is the running daemon's process id, if any. */
  get pid(): number | undefined {
    return this.gen?.child.pid;
  }

  /** initializeResult is the running daemon's answer to initialize. */
  get initializeResult(): InitializeResult | undefined {
    return this.initResult;
  }

  /** onState registers a listener for state changes; the returned function removes it. */
  onState(listener: Listener): () => void {
    this.listeners.push(listener);
    return () => {
      const i = this.listeners.indexOf(listener);
      if (i >= 0) {
        this.listeners.splice(i, 1);
      }
    };
  }

  /** start starts the daemon if it is not running and resolves once it is initialized. */
  async start(): Promise<InitializeResult> {
    this.stopping = false;
    const g = await this.generation();
    return g.ready;
  }

  /**
   * request sends a request once the daemon is ready. A cancelled token
   * sends $/cancelRequest and the promise rejects with the daemon's
   * -32800 error (a ResponseError).
   */
  async request<R>(method: string, params: unknown, token?: CancellationToken): Promise<R> {
    const g = await this.generation();
    await g.ready;
    if (token) {
      return g.connection.sendRequest<R>(method, params, token);
    }
    return g.connection.sendRequest<R>(method, params);
  }

  /** notify sends a notification once the daemon is ready. */
  async notify(method: string, params: unknown): Promise<void> {
    const g = await this.generation();
    await g.ready;
    await g.connection.sendNotification(method, params);
  }

  /** restart stops the daemon (if running), clears a failure and starts it again. */
  async restart(): Promise<InitializeResult> {
    await this.stop();
    this.attempts = 0;
    this.failure = undefined;
    return this.start();
  }

  /** stop shuts the daemon down (shutdown, exit; killed if it lingers) and does not restart it. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    const g = this.gen;
    this.current = undefined;
    this.gen = undefined;
    if (!g) {
      this.setState({ state: "stopped" });
      return;
    }
    const exited = new Promise<void>((resolve) => {
      if (g.child.exitCode !== null || g.child.signalCode !== null) {
        resolve();
      } else {
        g.child.once("exit", () => resolve());
      }
    });
    try {
      await withTimeout(g.connection.sendRequest("shutdown"), 2000);
      await g.connection.sendNotification("exit");
    } catch {
      // A daemon that does not answer is killed below.
    }
    const killer = setTimeout(() => g.child.kill("SIGKILL"), 3000);
    await exited;
    clearTimeout(killer);
    g.connection.dispose();
    this.setState({ state: "stopped" });
  }

  private setState(e: StateEvent): void {
    this.stateValue = e.state;
    for (const l of [...this.listeners]) {
      l(e);
    }
  }

  private log(line: string): void {
    this.opts.log?.(line);
  }

  // generation returns the running process, starting one when there is
  // none; while a restart is pending it waits for that start.
  private generation(): Promise<Generation> {
    if (this.failure) {
      return Promise.reject(this.failure);
    }
    if (!this.current) {
      this.stopping = false;
      this.current = this.spawn();
    }
    return this.current;
  }

  private spawn(): Promise<Generation> {
    let bin: string;
    try {
      const configured = typeof this.opts.binary === "function" ? this.opts.binary() : this.opts.binary;
      bin = resolveBinary(configured, (this.opts.env ?? process.env).PATH);
    } catch (err) {
      const e = err instanceof Error ? err : new Error(String(err));
      this.current = undefined;
      this.setState({ state: "failed", message: e.message });
      return Promise.reject(e);
    }
    this.setState({ state: "starting" });
    const child = spawn(bin, ["serve", "--stdio", ...(this.opts.extraArgs ?? [])], {
      cwd: this.opts.cwd,
      env: this.opts.env ?? process.env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    const connection = createMessageConnection(
      new StreamMessageReader(child.stdout),
      new StreamMessageWriter(child.stdin),
    );
    const g: Generation = {
      child,
      connection,
      startedAt: Date.now(),
      stderrTail: [],
      ready: Promise.resolve(undefined as unknown as InitializeResult),
    };
    let partial = "";
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      const lines = (partial + chunk).split("\n");
      partial = lines.pop() ?? "";
      for (const line of lines) {
        g.stderrTail.push(line);
        if (g.stderrTail.length > 20) {
          g.stderrTail.shift();
        }
        this.log(line);
      }
    });
    // Writes to a dead daemon fail; the exit handler deals with it.
    child.stdin.on("error", () => undefined);
    const exited = new Promise<string>((resolve) => {
      child.once("error", (err) => resolve(`could not run ${bin}: ${err.message}`));
      child.once("exit", (code, signal) =>
        resolve(signal ? `ctxd was killed by ${signal}` : `ctxd exited with code ${code ?? "?"}`),
      );
    });
    connection.listen();
    const died = exited.then((why) => {
      throw new Error(`starting the daemon: ${why}${tail(g)}`);
    });
    died.catch(() => undefined);
    g.ready = Promise.race([
      connection.sendRequest<InitializeResult>("initialize", this.opts.initializeParams()),
      died,
    ]).then(
      async (res) => {
        await connection.sendNotification("initialized", {});
        this.initResult = res;
        if (this.gen === g) {
          this.setState({ state: "running" });
        }
        return res;
      },
      async (err: unknown) => {
        if (!(err instanceof ResponseError) || transportCodes.has(err.code)) {
          // A write error (EPIPE) usually means the process died: report
          // why it died rather than the write.
          await Promise.race([died, sleep(1000)]);
          throw err;
        }
        // The daemon is up but refused initialize: restarting cannot help.
        const e = new DaemonFailedError(`the ctxd daemon refused to initialize: ${err.message}`);
        if (this.gen === g) {
          this.gen = undefined;
          this.failure = e;
          this.current = Promise.reject(e);
          this.current.catch(() => undefined);
          terminate(child);
          this.setState({ state: "failed", message: e.message });
        }
        throw e;
      },
    );
    // An unobserved rejection of ready is reported through the state.
    g.ready.catch(() => undefined);
    void exited.then((why) => this.onExit(g, why));
    this.gen = g;
    return Promise.resolve(g);
  }

  private onExit(g: Generation, why: string): void {
    g.connection.dispose();
    if (this.stopping || this.gen !== g) {
      return;
    }
    this.gen = undefined;
    if (Date.now() - g.startedAt >= this.backoff.stableMs) {
      this.attempts = 0;
    }
    if (this.attempts >= this.backoff.maxRestarts) {
      this.failure = new DaemonFailedError(
        `the ctxd daemon died ${this.attempts + 1} times in a row and is not restarted again (last: ${why}).` +
          `${tail(g)} Run "ctxd: Restart Daemon" after fixing the cause.`,
      );
      this.current = undefined;
      this.setState({ state: "failed", message: this.failure.message });
      return;
    }
    const delay = backoffDelay(this.backoff, this.attempts);
    this.attempts++;
    this.log(`${why}; restarting in ${delay} ms (attempt ${this.attempts})`);
    let release: (g: Generation) => void = () => undefined;
    let fail: (err: Error) => void = () => undefined;
    this.current = new Promise<Generation>((resolve, reject) => {
      release = resolve;
      fail = reject;
    });
    this.current.catch(() => undefined);
    this.setState({ state: "restarting", message: why, delayMs: delay, attempt: this.attempts });
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.stopping) {
        return;
      }
      this.spawn().then(release, (err: Error) => {
        fail(err);
      });
    }, delay);
  }
}

// transportCodes are vscode-jsonrpc's own errors (a write to a dead
// process, a connection closed with requests pending): the daemon did not
// answer, so they are not refusals.
const transportCodes = new Set<number>([
  ErrorCodes.MessageWriteError,
  ErrorCodes.MessageReadError,
  ErrorCodes.PendingResponseRejected,
  ErrorCodes.ConnectionInactive,
]);

function tail(g: Generation): string {
  const lines = g.stderrTail.filter((l) => l.trim() !== "").slice(-3);
  return lines.length ? ` Last daemon output: ${lines.join(" | ")}` : "";
}

// terminate ends a daemon that is not going to be used: closing its stdin
// ends `ctxd serve` (it exits at end of input; as of this writing it does
// not exit on SIGTERM while serving stdio), and SIGKILL follows if it
// lingers.
function terminate(child: ChildProcess): void {
  child.stdin?.end();
  const t = setTimeout(() => child.kill("SIGKILL"), 2000);
  t.unref();
  child.once("exit", () => clearTimeout(t));
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms);
    p.then(
      (v) => {
        clearTimeout(t);
        resolve(v);
      },
      (err: unknown) => {
        clearTimeout(t);
        reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
}
