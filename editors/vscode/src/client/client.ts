// Client is the typed face of the daemon for the extension: one method per
// ctxd RPC, the last envelope (for the tree view and status bar) and the
// session the workspace records its prompts under. No `vscode` import.

import type { CancellationToken } from "vscode-jsonrpc/node";
import { Daemon, type DaemonOptions } from "./daemon";
import type { BuildPromptParams, Envelope, ResumeResult, SessionListing } from "./protocol";

/** Client wraps a Daemon with ctxd's methods. */
export class Client {
  /** daemon is the process behind the client. */
  readonly daemon: Daemon;
  private last: Envelope | undefined;
  private readonly envelopeListeners: ((env: Envelope) => void)[] = [];

  constructor(opts: DaemonOptions) {
    this.daemon = new Daemon(opts);
  }

  /** lastEnvelope is the envelope of the newest finished build or resume. */
  get lastEnvelope(): Envelope | undefined {
    return this.last;
  }

  /** onEnvelope registers a listener for new envelopes. */
  onEnvelope(listener: (env: Envelope) => void): void {
    this.envelopeListeners.push(listener);
  }

  private setEnvelope(env: Envelope): void {
    this.last = env;
    for (const l of [...this.envelopeListeners]) {
      l(env);
    }
  }

  /** buildPrompt calls ctx/buildPrompt; a cancelled token rejects with the daemon's -32800. */
  async buildPrompt(params: BuildPromptParams, token?: CancellationToken): Promise<Envelope> {
    const env = await this.daemon.request<Envelope>("ctx/buildPrompt", params, token);
    this.setEnvelope(env);
    return env;
  }

  /** listSessions calls ctx/sessions/list (newest first). */
  listSessions(state?: string, token?: CancellationToken): Promise<SessionListing> {
    return this.daemon.request<SessionListing>("ctx/sessions/list", state ? { state } : {}, token);
  }

  /** resume calls ctx/sessions/resume: the named session, or the newest running one. */
  async resume(sessionId?: string, token?: CancellationToken): Promise<ResumeResult> {
    const res = await this.daemon.request<ResumeResult>(
      "ctx/sessions/resume",
      sessionId ? { session_id: sessionId } : {},
      token,
    );
    if (res.envelope) {
      this.setEnvelope(res.envelope);
    }
    return res;
  }

  /** countTokens calls ctx/countTokens. */
  countTokens(text: string, model?: string): Promise<{ tokens: number; encoding: string; exact: boolean }> {
    return this.daemon.request("ctx/countTokens", model ? { text, model } : { text });
  }

  /** stop shuts the daemon down. */
  stop(): Promise<void> {
    return this.daemon.stop();
  }
}
