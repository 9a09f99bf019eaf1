// Drives `ctxd mcp` with the official TypeScript SDK client over stdio:
// initialize, list tools, call each tool, a bad call, then a good one.
// Usage: node mcp-client.mjs CTXD_BINARY REPO STATE_DIR
// Prints one JSON object with what it saw; exits 1 on a protocol failure.
import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [bin, repo, state] = process.argv.slice(2);
const transport = new StdioClientTransport({
  command: bin,
  args: ["mcp", "--root", repo, "--state-dir", state],
  stderr: "inherit",
});
const client = new Client({ name: "ctxd-interop", version: "1.0.0" });
await client.connect(transport);

const out = { server: client.getServerVersion(), tools: [], calls: {}, progress: 0 };
const { tools } = await client.listTools();
out.tools = tools.map((t) => ({ name: t.name, hasSchema: !!t.inputSchema, hasDescription: !!t.description }));

const text = (r) => (r.content || []).filter((c) => c.type === "text").map((c) => c.text).join("");
async function call(name, args, opts) {
  const r = await client.callTool({ name, arguments: args }, undefined, opts);
  return { isError: !!r.isError, text: text(r), structured: r.structuredContent ?? null };
}

out.calls.build_context = await call(
  "build_context",
  { request: "fix Store.Put returning ErrFull too early", task: "debug", open_files: [{ path: "store/store.go", line: 20 }] },
  { onprogress: () => { out.progress++; } },
);
out.calls.find_symbol = await call("find_symbol", { name: "Put" });
out.calls.outline = await call("outline", { path: "store/store.go", level: "outline" });
out.calls.count_tokens = await call("count_tokens", { text: "hello world", model: "gpt-4o" });
out.calls.compact_history = await call("compact_history", { request: JSON.parse(readFileSync(process.env.CTXD_TEST_REQUEST_FILE, "utf8")), smart: true, session: "ts-test" });
const body = out.calls.compact_history.text;
const m = body.match(/sha256=([0-9a-f]{16})/);
out.calls.rehydrate = m
  ? await call("rehydrate", { session: "ts-test", reference: m[1], lines: "1-2" })
  : { isError: true, text: "no reference in the compacted request" };
out.calls.bad = await call("outline", { path: "../outside.go" });
out.calls.after_bad = await call("count_tokens", { text: "still serving" });

await client.close();
process.stdout.write(JSON.stringify(out) + "\n");
