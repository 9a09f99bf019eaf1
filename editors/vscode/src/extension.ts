// The VS Code adapter: commands, the context tree view, the status bar
// item and settings, all mapped onto the vscode-free client layer in
// ./client. No ctxd logic lives here: the daemon gathers, scores and fits.

import * as vscode from "vscode";
import { ResponseError } from "vscode-jsonrpc/node";
import { Client } from "./client/client";
import { DaemonNotFoundError, SETTING_PATH, type StateEvent } from "./client/daemon";
import { ErrorCodes, TASK_TYPES, type Envelope, type Format } from "./client/protocol";
import {
  buildPromptParams,
  initializeParams,
  newSessionId,
  type Diagnostic,
  type EditorState,
  type Settings,
} from "./client/requests";
import { resumeSummary, runningSession, sessionLabel } from "./client/sessions";
import { statusText, treeOf, type Location, type Node } from "./client/view";

const SESSION_KEY = "ctxd.sessionId";

let client: Client | undefined;

function settings(): Settings {
  const c = vscode.workspace.getConfiguration("ctxd");
  return {
    path: c.get<string>("path", ""),
    model: c.get<string>("model", ""),
    tokenBudget: c.get<number>("tokenBudget", 0),
    format: c.get<Format>("format", "markdown"),
    exclude: c.get<string[]>("exclude", []),
    offerResume: c.get<boolean>("offerResume", true),
  };
}

function workspaceRoot(): string | undefined {
  return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
}

/** activate starts the client and registers the commands, view and status bar item. */
export function activate(context: vscode.ExtensionContext): void {
  const output = vscode.window.createOutputChannel("ctxd");
  const status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Right, 100);
  status.command = "ctxd.showContext";
  const tree = new ContextTree();
  context.subscriptions.push(
    output,
    status,
    vscode.window.registerTreeDataProvider("ctxd.context", tree),
  );
  const root = workspaceRoot();
  const version = String((context.extension.packageJSON as { version?: string }).version ?? "0");
  if (root) {
    client = new Client({
      binary: () => settings().path,
      cwd: root,
      initializeParams: () => initializeParams(root, settings(), version),
      log: (line) => output.appendLine(line),
    });
    const c = client;
    c.daemon.onState((e) => onDaemonState(e, status, c));
    c.onEnvelope((env) => {
      tree.set(env);
      const s = statusText(env);
      status.text = `$(symbol-namespace) ${s.text}`;
      status.tooltip = s.tooltip;
    });
    status.text = "$(symbol-namespace) ctxd";
    status.tooltip = "ctxd: no prompt built yet";
    status.show();
    context.subscriptions.push({ dispose: () => void c.stop() });
    context.subscriptions.push(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration("ctxd")) {
          void restartWithSettings(c);
        }
      }),
    );
    void offerResume(c, context);
  }

  const need = (): Client | undefined => {
    if (!client) {
      void vscode.window.showWarningMessage("ctxd: open a folder first; ctxd works on a workspace.");
    }
    return client;
  };
  // withClient makes a command that runs fn with the client, or warns
  // (need) when there is none.
  const withClient = (fn: (c: Client) => Promise<unknown>) => async (): Promise<void> => {
    const c = need();
    if (c) {
      await fn(c);
    }
  };
  context.subscriptions.push(
    vscode.commands.registerCommand("ctxd.buildPrompt", withClient((c) => buildPrompt(c, context))),
    vscode.commands.registerCommand("ctxd.showContext", withClient(async (c) => {
      if (!c.lastEnvelope) {
        void vscode.window.showInformationMessage('ctxd: no context yet. Run "ctxd: Build Prompt for Task..." first.');
      }
      await vscode.commands.executeCommand("ctxd.context.focus");
    })),
    vscode.commands.registerCommand("ctxd.resumeSession", withClient((c) => pickAndResume(c, context))),
    vscode.commands.registerCommand("ctxd.restartDaemon", withClient((c) => restartWithSettings(c))),
    vscode.commands.registerCommand("ctxd.openLocation", (loc: Location) => openLocation(loc)),
  );
}

/** deactivate stops the daemon. */
export async function deactivate(): Promise<void> {
  await client?.stop();
  client = undefined;
}

function onDaemonState(e: StateEvent, status: vscode.StatusBarItem, c: Client): void {
  switch (e.state) {
    case "restarting":
      status.text = "$(sync~spin) ctxd restarting";
      status.tooltip = `ctxd: ${e.message ?? "daemon exited"}; restarting in ${e.delayMs ?? 0} ms`;
      break;
    case "failed":
      status.text = "$(error) ctxd";
      status.tooltip = e.message ?? "ctxd failed";
      void showFailure(e.message ?? "ctxd failed");
      break;
    case "running":
      if (!c.lastEnvelope) {
        status.text = "$(symbol-namespace) ctxd";
        status.tooltip = "ctxd: no prompt built yet";
      } else {
        const s = statusText(c.lastEnvelope);
        status.text = `$(symbol-namespace) ${s.text}`;
        status.tooltip = s.tooltip;
      }
      break;
    default:
      break;
  }
}

async function showFailure(message: string): Promise<void> {
  const settingsButton = `Set ${SETTING_PATH}`;
  const pick = await vscode.window.showErrorMessage(message, settingsButton);
  if (pick === settingsButton) {
    await vscode.commands.executeCommand("workbench.action.openSettings", SETTING_PATH);
  }
}

async function restartWithSettings(c: Client): Promise<void> {
  // Settings, ctxd.path included, are read again on every start.
  try {
    await c.daemon.restart();
  } catch (err) {
    reportError(err);
  }
}

function reportError(err: unknown): void {
  if (err instanceof ResponseError && err.code === ErrorCodes.RequestCancelled) {
    void vscode.window.setStatusBarMessage("ctxd: cancelled", 3000);
    return;
  }
  if (err instanceof DaemonNotFoundError) {
    void showFailure(err.message);
    return;
  }
  const msg = err instanceof Error ? err.message : String(err);
  void vscode.window.showErrorMessage(`ctxd: ${msg}`);
}

function severity(s: vscode.DiagnosticSeverity): Diagnostic["severity"] {
  switch (s) {
    case vscode.DiagnosticSeverity.Error:
      return "error";
    case vscode.DiagnosticSeverity.Warning:
      return "warning";
    case vscode.DiagnosticSeverity.Information:
      return "info";
    default:
      return "hint";
  }
}

function editorState(root: string): EditorState {
  const st: EditorState = { root, buffers: [], diagnostics: [] };
  for (const doc of vscode.workspace.textDocuments) {
    if (doc.uri.scheme === "file") {
      st.buffers.push({ file: doc.uri.fsPath, dirty: doc.isDirty, text: doc.isDirty ? doc.getText() : "" });
    }
  }
  const ed = vscode.window.activeTextEditor;
  if (ed && ed.document.uri.scheme === "file") {
    const sel = ed.selection;
    st.active = { file: ed.document.uri.fsPath, cursorLine: sel.active.line + 1 };
    if (!sel.isEmpty) {
      const endLine = sel.end.character === 0 && sel.end.line > sel.start.line ? sel.end.line : sel.end.line + 1;
      st.active.selection = { start: sel.start.line + 1, end: endLine };
    }
    st.diagnostics = vscode.languages.getDiagnostics(ed.document.uri).map((d) => {
      const diag: Diagnostic = { line: d.range.start.line + 1, severity: severity(d.severity), message: d.message };
      if (d.source) {
        diag.source = d.source;
      }
      return diag;
    });
  }
  return st;
}

function sessionId(context: vscode.ExtensionContext): string {
  let id = context.workspaceState.get<string>(SESSION_KEY);
  if (!id) {
    id = newSessionId();
    void context.workspaceState.update(SESSION_KEY, id);
  }
  return id;
}

async function buildPrompt(c: Client, context: vscode.ExtensionContext): Promise<void> {
  const root = workspaceRoot();
  if (!root) {
    return;
  }
  const task = await vscode.window.showQuickPick(
    TASK_TYPES.map((t) => ({ label: t, description: t === "auto" ? "let ctxd detect the task" : "" })),
    { title: "ctxd: task type", placeHolder: "What kind of task is this?" },
  );
  if (!task) {
    return;
  }
  const request = await vscode.window.showInputBox({
    title: "ctxd: request",
    prompt: "Describe the task (error text and stack traces welcome)",
    ignoreFocusOut: true,
  });
  if (!request || request.trim() === "") {
    return;
  }
  const s = settings();
  const params = buildPromptParams(request, task.label, editorState(root), s, sessionId(context));
  try {
    const env = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: "ctxd: building prompt", cancellable: true },
      (_progress, token) => c.buildPrompt(params, token),
    );
    await showPrompt(env);
  } catch (err) {
    reportError(err);
  }
}

async function showPrompt(env: Envelope): Promise<void> {
  const prompt = env.prompt ?? "";
  const doc = await vscode.workspace.openTextDocument({
    content: prompt,
    language: env.format === "xml" ? "xml" : "markdown",
  });
  await vscode.window.showTextDocument(doc, { preview: false });
  await vscode.env.clipboard.writeText(prompt);
  const c = env.context;
  let msg = `ctxd: prompt copied (${env.prompt_tokens ?? "?"} tokens; context ${c.tokens_used}/${c.budget}, ${c.chunks.length} chunks, ${c.skipped?.length ?? 0} skipped).`;
  if (env.warnings?.length) {
    msg += ` Warnings: ${env.warnings.join("; ")}`;
  }
  void vscode.window.showInformationMessage(msg, "Show Context").then((pick) => {
    if (pick) {
      void vscode.commands.executeCommand("ctxd.showContext");
    }
  });
}

async function resume(c: Client, context: vscode.ExtensionContext, id?: string): Promise<void> {
  try {
    const res = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: "ctxd: resuming session", cancellable: true },
      (_progress, token) => c.resume(id, token),
    );
    if (res.resumed && res.session_id) {
      await context.workspaceState.update(SESSION_KEY, res.session_id);
    }
    void vscode.window.showInformationMessage(resumeSummary(res));
    if (res.envelope) {
      await showPrompt(res.envelope);
    }
  } catch (err) {
    reportError(err);
  }
}

async function pickAndResume(c: Client, context: vscode.ExtensionContext): Promise<void> {
  let listing;
  try {
    listing = await c.listSessions();
  } catch (err) {
    reportError(err);
    return;
  }
  if (listing.sessions.length === 0) {
    void vscode.window.showInformationMessage("ctxd: this workspace has no sessions yet.");
    return;
  }
  const pick = await vscode.window.showQuickPick(
    listing.sessions.map((s) => ({ ...sessionLabel(s), id: s.session_id })),
    { title: "ctxd: resume session", matchOnDescription: true, matchOnDetail: true },
  );
  if (pick) {
    await resume(c, context, pick.id);
  }
}

async function offerResume(c: Client, context: vscode.ExtensionContext): Promise<void> {
  const root = workspaceRoot();
  if (!root || !settings().offerResume) {
    return;
  }
  let candidate;
  try {
    candidate = runningSession(await c.listSessions("running"), root);
  } catch (err) {
    reportError(err);
    return;
  }
  if (!candidate) {
    return;
  }
  const l = sessionLabel(candidate);
  const pick = await vscode.window.showInformationMessage(
    `ctxd: a session is still running here: "${l.label}" (${l.description}). Resume it?`,
    "Resume",
    "Not now",
  );
  if (pick === "Resume") {
    await resume(c, context, candidate.session_id);
  }
}

async function openLocation(loc: Location): Promise<void> {
  const root = workspaceRoot();
  if (!root) {
    return;
  }
  const uri = vscode.Uri.joinPath(vscode.Uri.file(root), ...loc.file.split("/"));
  const range = new vscode.Range(loc.start - 1, 0, loc.end - 1, 0);
  try {
    await vscode.window.showTextDocument(uri, { selection: range, preview: true });
  } catch (err) {
    reportError(err);
  }
}

class ContextTree implements vscode.TreeDataProvider<Node> {
  private nodes: Node[] = [];
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;

  set(env: Envelope): void {
    this.nodes = treeOf(env);
    this.changed.fire(undefined);
  }

  getChildren(node?: Node): Node[] {
    return node ? node.children : this.nodes;
  }

  getTreeItem(node: Node): vscode.TreeItem {
    const item = new vscode.TreeItem(
      node.label,
      node.children.length === 0
        ? vscode.TreeItemCollapsibleState.None
        : node.kind === "skippedGroup"
          ? vscode.TreeItemCollapsibleState.Expanded
          : vscode.TreeItemCollapsibleState.Collapsed,
    );
    item.id = node.id;
    item.description = node.description;
    item.tooltip = node.tooltip;
    item.iconPath = new vscode.ThemeIcon(icons[node.kind]);
    if (node.location) {
      item.command = { command: "ctxd.openLocation", title: "Open", arguments: [node.location] };
    }
    return item;
  }
}

const icons: Record<Node["kind"], string> = {
  summary: "dashboard",
  chunk: "file-code",
  elided: "fold",
  skippedGroup: "circle-slash",
  skipped: "dash",
  warning: "warning",
};
