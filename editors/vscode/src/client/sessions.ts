// Session helpers: which session to offer on startup, and how to describe
// sessions and resumes to the user. No `vscode` import.

import * as path from "node:path";
import type { ResumeResult, SessionInfo, SessionListing } from "./protocol";

/**
 * runningSession is the session to offer when a workspace opens: the
 * newest running session recorded for this root (sessions recorded
 * without a root count as this workspace's, as the daemon does).
 */
export function runningSession(l: SessionListing, root: string): SessionInfo | undefined {
  const want = path.resolve(root);
  return l.sessions.find((s) => s.state === "running" && (!s.root || path.resolve(s.root) === want));
}

function shorten(s: string, n: number): string {
  const one = s.replace(/\s+/g, " ").trim();
  return one.length > n ? `${one.slice(0, n - 1)}…` : one;
}

/** sessionLabel is a one-line description of a session for pickers and prompts. */
export function sessionLabel(s: SessionInfo): { label: string; description: string; detail: string } {
  const chunks = s.context_summary ? `, ${s.context_summary.chunks_included} chunks` : "";
  return {
    label: shorten(s.user_request || "(no request)", 80),
    description: `${s.task_type || "?"} · ${s.state}`,
    detail: `${s.session_id} · updated ${s.updated} · ${s.checkpoints} checkpoint${s.checkpoints === 1 ? "" : "s"}${chunks}`,
  };
}

/** resumeSummary says what a resume found, for a notification. */
export function resumeSummary(r: ResumeResult): string {
  if (!r.resumed) {
    return `ctxd: nothing to resume (${r.reason ?? "no running session"}).`;
  }
  const parts = [`${r.unchanged} unchanged`, `${r.changed} changed`, `${r.missing} missing`];
  let msg = `ctxd: resumed session ${r.session_id ?? ""}: sources ${parts.join(", ")}.`;
  if (!r.envelope) {
    msg += " No prompt was rebuilt.";
  }
  if (r.warnings?.length) {
    msg += ` ${r.warnings.join(" ")}`;
  }
  return msg;
}
