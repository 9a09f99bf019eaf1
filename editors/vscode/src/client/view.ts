// The envelope as the user sees it: tree nodes for the "ctxd Context"
// view and the status bar text. Pure functions with no `vscode` import;
// extension.ts maps nodes to TreeItems.

import type { Chunk, Envelope, LineRange, Skipped } from "./protocol";

/** Location is a place to open: a repo-relative file and a 1-based line range. */
export interface Location {
  file: string;
  start: number;
  end: number;
}

/** Node is one row of the context tree. */
export interface Node {
  /** id is unique within one envelope's tree. */
  id: string;
  label: string;
  description: string;
  tooltip: string;
  kind: "summary" | "chunk" | "elided" | "skippedGroup" | "skipped" | "warning";
  /** location is where a click goes, for rows that are files. */
  location?: Location;
  children: Node[];
}

/** isFileSource tells file chunks from the synthetic ones (structure, deps, git:log, git:diff). */
export function isFileSource(c: { source: string; chunk_type?: string }): boolean {
  if (c.chunk_type !== undefined) {
    return c.chunk_type === "file";
  }
  return !["structure", "deps"].includes(c.source) && !c.source.startsWith("git:");
}

/**
 * chunkLocation is where a chunk opens: the cursor of an open file, else
 * its first error line, else its first line kept (after a leading elided
 * range), spanning to the end of the file's kept head.
 */
export function chunkLocation(c: Chunk): Location | undefined {
  if (!isFileSource(c)) {
    return undefined;
  }
  const lines = typeof c.facts?.lines === "number" && c.facts.lines > 0 ? c.facts.lines : 1;
  let start = 1;
  const elided = [...(c.elided ?? [])].sort((a, b) => a.start - b.start);
  if (typeof c.facts?.cursor === "number" && c.facts.cursor > 0) {
    start = c.facts.cursor;
  } else if (Array.isArray(c.facts?.error_lines) && c.facts.error_lines.length > 0) {
    start = Math.min(...c.facts.error_lines);
  } else if (elided.length > 0 && elided[0] && elided[0].start <= 1) {
    start = elided[0].end + 1;
  }
  let end = lines;
  const next = elided.find((r) => r.start > start);
  if (next) {
    end = next.start - 1;
  }
  start = Math.min(Math.max(1, start), lines);
  return { file: c.source, start, end: Math.max(start, Math.min(end, lines)) };
}

function pct(x: number): string {
  return `${Math.round(x * 100)}%`;
}

function score(x: number): string {
  return Number.isInteger(x) ? String(x) : x.toFixed(1);
}

/** chunkDescription is a chunk's row text: priority, score, tokens and truncation level. */
export function chunkDescription(c: Chunk): string {
  const parts = [c.priority, `score ${score(c.score)}`, `${c.tokens} tok`];
  if (c.truncated) {
    parts.push(c.truncation ? `truncated: ${c.truncation}` : "truncated");
  } else {
    parts.push("full");
  }
  return parts.join(" · ");
}

function chunkTooltip(c: Chunk): string {
  const lines = [`${c.source} (${c.chunk_type})`, chunkDescription(c)];
  if (c.truncated && c.original_tokens) {
    lines.push(`original: ${c.original_tokens} tokens`);
  }
  for (const t of c.score_breakdown ?? []) {
    lines.push(`${t.value >= 0 ? "+" : ""}${score(t.value)} ${t.term}${t.reason ? `: ${t.reason}` : ""}`);
  }
  const reasons = c.facts?.reasons;
  if (Array.isArray(reasons) && reasons.length) {
    lines.push(`gathered: ${reasons.join(", ")}`);
  }
  return lines.join("\n");
}

function elidedNode(c: Chunk, r: LineRange, i: number): Node {
  return {
    id: `chunk:${c.source}:elided:${i}`,
    label: `lines ${r.start}-${r.end} elided`,
    description: c.truncation ?? "",
    tooltip: `Lines ${r.start}-${r.end} of ${c.source} are left out of the prompt (${c.truncation ?? "truncated"}).`,
    kind: "elided",
    location: { file: c.source, start: r.start, end: r.end },
    children: [],
  };
}

function skippedNode(s: Skipped, i: number): Node {
  const node: Node = {
    id: `skipped:${i}:${s.source}`,
    label: s.source,
    description: `${s.reason} · score ${score(s.score)}`,
    tooltip: `${s.source}: skipped: ${s.reason} (${s.tokens} tokens, score ${score(s.score)})`,
    kind: "skipped",
    children: [],
  };
  if (isFileSource(s)) {
    node.location = { file: s.source, start: 1, end: 1 };
  }
  return node;
}

/** statusText is the status bar item: budget utilization of the last envelope. */
export function statusText(env: Envelope | undefined): { text: string; tooltip: string } {
  if (!env) {
    return { text: "ctxd", tooltip: "ctxd: no prompt built yet" };
  }
  const c = env.context;
  return {
    text: `ctxd ${pct(c.utilization)} of ${c.budget}`,
    tooltip:
      `Context budget: ${c.tokens_used} of ${c.budget} tokens (${pct(c.utilization)}), ` +
      `${c.chunks.length} chunks, ${c.skipped?.length ?? 0} skipped; model ${env.model.name}; task ${env.task_type}`,
  };
}

/**
 * treeOf turns an envelope into the context tree: a summary row, one row
 * per included chunk (in the envelope's order, with its elided ranges as
 * children), the skipped chunks under one group, and the warnings.
 */
export function treeOf(env: Envelope): Node[] {
  const c = env.context;
  const nodes: Node[] = [
    {
      id: "summary",
      label: `${env.task_type} · ${c.tokens_used}/${c.budget} tokens (${pct(c.utilization)})`,
      description: env.model.name,
      tooltip: statusText(env).tooltip,
      kind: "summary",
      children: [],
    },
  ];
  c.chunks.forEach((ch, i) => {
    const node: Node = {
      id: `chunk:${i}:${ch.source}`,
      label: ch.source,
      description: chunkDescription(ch),
      tooltip: chunkTooltip(ch),
      kind: "chunk",
      children: (ch.elided ?? []).map((r, j) => elidedNode(ch, r, j)),
    };
    const loc = chunkLocation(ch);
    if (loc) {
      node.location = loc;
    }
    nodes.push(node);
  });
  const skipped = c.skipped ?? [];
  if (skipped.length) {
    nodes.push({
      id: "skipped",
      label: `Skipped (${skipped.length})`,
      description: "",
      tooltip: "Chunks left out of the prompt, with the reason",
      kind: "skippedGroup",
      children: skipped.map(skippedNode),
    });
  }
  (env.warnings ?? []).forEach((w, i) => {
    nodes.push({ id: `warning:${i}`, label: w, description: "warning", tooltip: w, kind: "warning", children: [] });
  });
  return nodes;
}
