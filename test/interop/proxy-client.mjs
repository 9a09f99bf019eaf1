// Drives `ctxd proxy` with the official OpenAI and Anthropic SDK clients
// pointed at the proxy's base URL: each route as JSON and as a stream,
// and an upstream error per client.
// Usage: node proxy-client.mjs PROXY_BASE_URL REQUEST_DIR
// REQUEST_DIR holds chat.json, responses.json and anthropic.json (request
// bodies). Prints one JSON object with what the clients saw.
import { readFileSync } from "node:fs";
import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";

const [base, dir] = process.argv.slice(2);
const load = (name) => JSON.parse(readFileSync(`${dir}/${name}.json`, "utf8"));
const lastItem = (body) => JSON.stringify((body.messages || body.input).at(-1));

const openai = new OpenAI({ baseURL: `${base}/v1`, apiKey: "sk-interop-SECRET-openai", maxRetries: 0 });
const anthropic = new Anthropic({ baseURL: base, apiKey: "sk-ant-interop-SECRET", maxRetries: 0 });
const out = {};

async function streamed(name, iterable) {
  const times = [];
  const events = [];
  for await (const ev of iterable) {
    times.push(Date.now());
    events.push(ev.type || ev.object || "chunk");
  }
  out[name] = { events, spreadMs: times.at(-1) - times[0] };
}

const chat = load("chat");
out.chat_last = lastItem(chat);
const c = await openai.chat.completions.create(chat);
out.chat = { content: c.choices[0].message.content, prompt_tokens: c.usage.prompt_tokens };
await streamed("chat_stream", await openai.chat.completions.create({ ...chat, stream: true, stream_options: { include_usage: true } }));

const responses = load("responses");
out.responses_last = lastItem(responses);
const r = await openai.responses.create(responses);
out.responses = { content: r.output_text, input_tokens: r.usage.input_tokens };
await streamed("responses_stream", await openai.responses.create({ ...responses, stream: true }));

const messages = load("anthropic");
out.anthropic_last = lastItem(messages);
const m = await anthropic.messages.create(messages);
out.anthropic = { content: m.content[0].text, input_tokens: m.usage.input_tokens };
await streamed("anthropic_stream", await anthropic.messages.create({ ...messages, stream: true }));

for (const [name, call] of [
  ["openai_error", () => openai.chat.completions.create(chat, { headers: { "X-Test-Status": "429" } })],
  ["anthropic_error", () => anthropic.messages.create(messages, { headers: { "X-Test-Status": "429" } })],
]) {
  try {
    await call();
    out[name] = { status: 0 };
  } catch (err) {
    out[name] = { status: err.status, message: err.message, requestId: err.requestID ?? err.request_id ?? null };
  }
}
process.stdout.write(JSON.stringify(out) + "\n");
