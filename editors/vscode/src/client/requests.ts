// Request building: editor state in, ctx/buildPrompt parameters out. Pure
// functions with no `vscode` import, so they are tested in node.

import * as path from "node:path";
import type { BuildPromptParams, Format, InitializeParams, OpenFile, TaskType, TokenBudget } from "./protocol";

/** Settings are the extension's ctxd.* settings. */
export interface Settings {
  path: string;
  model: string;
  tokenBudget: number;
  format: Format;
  exclude: string[];
  offerResume: boolean;
}

/** Diagnostic is an editor diagnostic of the active file (1-based line). */
export interface Diagnostic {
  line: number;
  severity: "error" | "warning" | "info" | "hint";
  message: string;
  source?: string;
}

/** Buffer is an open editor document. */
export interface Buffer {
  /** file is the document's absolute file-system path. */
  file: string;
  /** dirty: the document has unsaved changes (its text is sent). */
  dirty: boolean;
  text: string;
}

/** ActiveEditor is the focused editor: its file, cursor and selection (1-based lines). */
export interface ActiveEditor {
  file: string;
  cursorLine: number;
  selection?: { start: number; end: number };
}

/** EditorState is what a prompt request is built from. */
export interface EditorState {
  root: string;
  active?: ActiveEditor;
  buffers: Buffer[];
  diagnostics: Diagnostic[];
}

/** initializeParams builds initialize's parameters from the settings. */
export function initializeParams(root: string, s: Settings, version: string): InitializeParams {
  // clientInfo is LSP's field; ctxd's client_info with a version string
  // is refused by the daemon as of this writing (see the README).
  const p: InitializeParams = { root, clientInfo: { name: "ctxd-vscode", version } };
  if (s.model.trim() !== "") {
    p.model = s.model.trim();
  }
  const budget = tokenBudget(s);
  if (budget) {
    p.token_budget = budget;
  }
  p.format = s.format;
  const exclude = s.exclude.map((e) => e.trim()).filter((e) => e !== "");
  if (exclude.length) {
    p.exclude = exclude;
  }
  return p;
}

function tokenBudget(s: Settings): TokenBudget | undefined {
  return s.tokenBudget > 0 ? { total: Math.floor(s.tokenBudget) } : undefined;
}

/** relativeTo returns file relative to root in slash form, or undefined when it lies outside. */
export function relativeTo(root: string, file: string): string | undefined {
  const rel = path.relative(root, file);
  if (rel === "" || rel.startsWith("..") || path.isAbsolute(rel)) {
    return undefined;
  }
  return rel.split(path.sep).join("/");
}

/**
 * errorText renders the active file's error diagnostics as compiler-style
 * lines ("path:line: message"), which the daemon maps to error locations.
 */
export function errorText(relPath: string, diags: Diagnostic[]): string {
  return diags
    .filter((d) => d.severity === "error")
    .sort((a, b) => a.line - b.line)
    .map((d) => `${relPath}:${d.line}: ${d.source ? `${d.source}: ` : ""}${d.message.split("\n")[0] ?? ""}`)
    .join("\n");
}

/**
 * buildPromptParams assembles ctx/buildPrompt's parameters: the request,
 * the task (auto lets the daemon detect it), the active file with cursor
 * and selection, the other unsaved buffers inside the workspace, and for
 * debug the active file's errors appended as error text.
 */
export function buildPromptParams(
  request: string,
  task: TaskType,
  st: EditorState,
  s: Settings,
  sessionId?: string,
): BuildPromptParams {
  const openFiles: OpenFile[] = [];
  const seen = new Set<string>();
  let activeRel: string | undefined;
  if (st.active) {
    activeRel = relativeTo(st.root, st.active.file);
    if (activeRel !== undefined) {
      const of: OpenFile = { path: activeRel, line: Math.max(1, st.active.cursorLine) };
      const sel = st.active.selection;
      if (sel && sel.end >= sel.start && sel.start >= 1) {
        of.selection = { start: sel.start, end: sel.end };
      }
      const buf = st.buffers.find((b) => b.file === st.active?.file);
      if (buf?.dirty) {
        of.text = buf.text;
      }
      openFiles.push(of);
      seen.add(activeRel);
    }
  }
  for (const b of st.buffers) {
    if (!b.dirty) {
      continue;
    }
    const rel = relativeTo(st.root, b.file);
    if (rel === undefined || seen.has(rel)) {
      continue;
    }
    seen.add(rel);
    openFiles.push({ path: rel, text: b.text });
  }
  let userRequest = request.trim();
  if (activeRel !== undefined && task === "debug") {
    const errs = errorText(activeRel, st.diagnostics);
    if (errs !== "") {
      userRequest += `\n\nCurrent errors:\n${errs}`;
    }
  }
  const p: BuildPromptParams = { user_request: userRequest, task_type: task, format: s.format };
  if (openFiles.length) {
    p.open_files = openFiles;
  }
  if (s.model.trim() !== "") {
    p.model = s.model.trim();
  }
  const budget = tokenBudget(s);
  if (budget) {
    p.token_budget = budget;
  }
  if (sessionId) {
    p.session_id = sessionId;
  }
  return p;
}

/** newSessionId returns a fresh session id the daemon accepts (letters, digits, '-', '.'). */
export function newSessionId(now: Date = new Date(), rand: () => number = Math.random): string {
  const stamp = now.toISOString().replace(/[-:]/g, "").replace(/\..*$/, "");
  const suffix = Math.floor(rand() * 0xffffff)
    .toString(16)
    .padStart(6, "0");
  return `vscode-${stamp}-${suffix}`;
}
