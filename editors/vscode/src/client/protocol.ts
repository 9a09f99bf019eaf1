// Types of the ctxd JSON-RPC protocol as the extension uses them
// (docs/protocol.md is the reference). Field names are the daemon's
// snake_case; everything the daemon may add later is optional here.

/** TaskType is a ctxd task, or "auto" to let the daemon detect it. */
export type TaskType = "auto" | "implement" | "debug" | "refactor" | "test" | "analyze";

/** TASK_TYPES lists the task types offered to the user, auto first. */
export const TASK_TYPES: readonly TaskType[] = ["auto", "implement", "debug", "refactor", "test", "analyze"];

/** Format is the prompt's rendering. */
export type Format = "markdown" | "xml";

/** LineRange is a 1-based inclusive range of lines. */
export interface LineRange {
  start: number;
  end: number;
}

/** OpenFile is an editor buffer sent with a request. */
export interface OpenFile {
  path: string;
  line?: number;
  selection?: LineRange;
  /** text is the unsaved buffer; it wins over the file on disk. */
  text?: string;
}

/** TokenBudget is a budget request: total alone is split by the configured shares. */
export interface TokenBudget {
  total?: number;
  system?: number;
  context?: number;
  user_request?: number;
  response?: number;
}

/** InitializeParams are the ctxd fields of initialize. */
export interface InitializeParams {
  root: string;
  clientInfo: { name: string; version: string };
  model?: string;
  token_budget?: TokenBudget;
  format?: Format;
  exclude?: string[];
}

/** InitializeResult is the part of initialize's answer the extension reads. */
export interface InitializeResult {
  methods: string[];
  root: string;
  model: { name: string; context_window?: number; encoding?: string };
  format: string;
  serverInfo?: { name: string; version: string };
  token_budget?: TokenBudget;
}

/** BuildPromptParams are ctx/buildPrompt's parameters. */
export interface BuildPromptParams {
  user_request: string;
  task_type?: TaskType;
  model?: string;
  token_budget?: TokenBudget;
  open_files?: OpenFile[];
  patterns?: string[];
  max_files?: number;
  format?: Format;
  session_id?: string;
}

/** ScoreTerm is one term of a chunk's score. */
export interface ScoreTerm {
  term: string;
  value: number;
  reason?: string;
}

/** Facts say why a chunk was gathered. */
export interface Facts {
  reasons?: string[];
  lines?: number;
  open?: boolean;
  cursor?: number;
  error_lines?: number[];
  [key: string]: unknown;
}

/** Chunk is one piece of context in an envelope. */
export interface Chunk {
  source: string;
  chunk_type: string;
  priority: string;
  score: number;
  score_breakdown?: ScoreTerm[];
  tokens: number;
  truncated?: boolean;
  truncation?: string;
  elided?: LineRange[];
  original_tokens?: number;
  hash?: string;
  facts?: Facts;
  content?: string;
}

/** Skipped is a chunk left out of the context, with the reason. */
export interface Skipped {
  source: string;
  reason: string;
  tokens: number;
  score: number;
}

/** Envelope is the answer of ctx/buildPrompt and ctx/gather. */
export interface Envelope {
  task_type: string;
  task_type_source?: string;
  user_request: string;
  session_id?: string;
  root: string;
  model: { name: string; context_window?: number; encoding?: string };
  token_budget: TokenBudget;
  context: {
    chunks: Chunk[];
    tokens_used: number;
    budget: number;
    utilization: number;
    skipped?: Skipped[];
  };
  format?: string;
  prompt?: string;
  prompt_tokens?: number;
  warnings?: string[];
  stats?: { chunks_gathered: number; chunks_included: number; files_scanned: number; duration_ms: number };
}

/** SessionInfo is one session of ctx/sessions/list. */
export interface SessionInfo {
  session_id: string;
  state: string;
  updated: string;
  latest_seq: number;
  checkpoints: number;
  task_type: string;
  user_request: string;
  root?: string;
  context_summary?: { chunks_included: number; tokens_used: number; utilization: number };
}

/** SessionListing is the answer of ctx/sessions/list. */
export interface SessionListing {
  sessions: SessionInfo[];
  problems: unknown[];
}

/** SourceStatus says what became of a recorded source on resume. */
export interface SourceStatus {
  source: string;
  chunk_type: string;
  status: "unchanged" | "changed" | "missing" | "regenerated";
  included: boolean;
}

/** ResumeResult is the answer of ctx/sessions/resume. */
export interface ResumeResult {
  resumed: boolean;
  reason?: string;
  session_id?: string;
  envelope?: Envelope;
  sources: SourceStatus[];
  unchanged: number;
  changed: number;
  missing: number;
  warnings?: string[];
}

/** ErrorCodes are the JSON-RPC error codes the extension branches on. */
export const ErrorCodes = {
  RequestCancelled: -32800,
  InvalidParams: -32602,
  NotFound: -31002,
} as const;
