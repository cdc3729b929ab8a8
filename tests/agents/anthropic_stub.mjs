// A scripted stand-in for the Anthropic Messages API, for driving the REAL Claude Code CLI
// offline in tests. It is not a model: it replays a script, one step per assistant turn.
//
// Usage: node anthropic_stub.mjs SCRIPT.json PORT_FILE [LOG_FILE]
//   Listens on 127.0.0.1 (a free port, written to PORT_FILE once listening). Point the CLI at
//   it with ANTHROPIC_BASE_URL=http://127.0.0.1:<port> and any ANTHROPIC_API_KEY.
//   Every request is appended to LOG_FILE as one JSON line {path, model, step, stream, tools,
//   answer, prompt (the first user message), tool_results (those the last message carries)}.
//
// SCRIPT.json:
//   { "vars":  { "NAME": "<regex with one group, matched against the first user message>" },
//     "steps": [ { "tool": "mcp__harness__harness_worker_report", "input": { ... } },
//                { "tool": "Bash", "input": { "command": "..." } },
//                { "text": "final words" } ] }
//   "{{NAME}}" anywhere in a step's strings is replaced by the NAME match. The step served is
//   the number of assistant turns already in the conversation, so the stub keeps no state; after
//   the last step it answers with the final text (or "done"). Requests that carry no tools (the
//   CLI's side requests) get a short text answer. Streaming (SSE) and plain JSON both work.
//   A step {"hang": true} never answers (the request stays open): a stalled model, for timeouts.
import http from "node:http";
import fs from "node:fs";
import { loadScript, substitute, textOf, varsFrom } from "./script.mjs";

const [scriptFile, portFile, logFile] = process.argv.slice(2);
const script = loadScript(scriptFile);

function reply(body) {
  const messages = body.messages || [];
  const hasTools = Array.isArray(body.tools) && body.tools.length > 0;
  if (!hasTools) return { step: -1, blocks: [{ type: "text", text: "ok" }], stop: "end_turn" };
  const firstUser = messages.find((m) => m.role === "user");
  const prompt = firstUser ? textOf(firstUser.content) : "";
  const vars = varsFrom(script, prompt);
  const step = messages.filter((m) => m.role === "assistant").length;
  const s = script.steps[step];
  if (s && s.hang) return { step, hang: true, blocks: [] };
  if (!s || s.text !== undefined) return { step, blocks: [{ type: "text", text: s ? s.text : "done" }], stop: "end_turn" };
  const block = { type: "tool_use", id: `toolu_stub_${step}`, name: s.tool, input: substitute(s.input, vars) };
  return { step, blocks: [block], stop: "tool_use" };
}

function sse(res, model, r) {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const send = (event, data) => res.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`);
  send("message_start", {
    message: { id: `msg_stub_${r.step}`, type: "message", role: "assistant", model, content: [],
               stop_reason: null, stop_sequence: null, usage: { input_tokens: 12, output_tokens: 1 } },
  });
  r.blocks.forEach((b, index) => {
    if (b.type === "text") {
      send("content_block_start", { index, content_block: { type: "text", text: "" } });
      send("content_block_delta", { index, delta: { type: "text_delta", text: b.text } });
    } else {
      send("content_block_start", { index, content_block: { type: "tool_use", id: b.id, name: b.name, input: {} } });
      send("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: JSON.stringify(b.input) } });
    }
    send("content_block_stop", { index });
  });
  send("message_delta", { delta: { stop_reason: r.stop, stop_sequence: null }, usage: { output_tokens: 8 } });
  send("message_stop", {});
  res.end();
}

const server = http.createServer((req, res) => {
  let data = "";
  req.on("data", (c) => (data += c));
  req.on("end", () => {
    const path = req.url.split("?")[0];
    if (req.method !== "POST" || path !== "/v1/messages") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(path.endsWith("/count_tokens") ? '{"input_tokens":12}' : "{}");
      return;
    }
    let body = {};
    try { body = JSON.parse(data); } catch { /* answered as a side request */ }
    const r = reply(body);
    const model = body.model || "claude-stub";
    if (logFile) {
      const tools = (body.tools || []).map((t) => t.name);
      const msgs = body.messages || [];
      const first = msgs.find((m) => m.role === "user");
      const last = msgs.length ? msgs[msgs.length - 1] : null;
      const results = last && Array.isArray(last.content)
        ? last.content.filter((b) => b.type === "tool_result").map((b) => textOf(b.content)).join("\n") : "";
      fs.appendFileSync(logFile, JSON.stringify({ path, model, step: r.step, stream: !!body.stream, tools,
                                                   answer: r.hang ? ["hang"] : r.blocks.map((b) => b.name || "text"),
                                                   prompt: first ? textOf(first.content).slice(0, 4000) : "",
                                                   tool_results: results.slice(0, 4000) }) + "\n");
    }
    if (r.hang) return; // a model that never answers: the request stays open until the client goes
    if (body.stream) return sse(res, model, r);
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ id: `msg_stub_${r.step}`, type: "message", role: "assistant", model, content: r.blocks,
                             stop_reason: r.stop, stop_sequence: null, usage: { input_tokens: 12, output_tokens: 8 } }));
  });
});
server.listen(0, "127.0.0.1", () => fs.writeFileSync(portFile, String(server.address().port)));
