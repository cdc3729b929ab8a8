// A scripted stand-in for the OpenAI Responses API, for driving the REAL Codex CLI offline in
// tests (the Codex counterpart of anthropic_stub.mjs). It is not a model: it replays a script.
//
// Usage: node responses_stub.mjs SCRIPT.json PORT_FILE [LOG_FILE]
//   Listens on 127.0.0.1 (a free port, written to PORT_FILE). In CODEX_HOME/config.toml, a model
//   provider with base_url = "http://127.0.0.1:<port>/v1" and wire_api = "responses".
//
// SCRIPT.json: the same format as anthropic_stub.mjs ("vars", "steps"); a step's "tool" is either
//   "mcp__<server>__<tool>" (sent as a function call in namespace "mcp__<server>", the form Codex
//   accepts for MCP tools) or one of Codex's own functions ("exec_command" with {"cmd": ...}).
//   The step served is the number of function calls and assistant messages already in `input`.
//   A step {"hang": true} never answers (the request stays open): a stalled model, for timeouts.
import http from "node:http";
import fs from "node:fs";
import { loadScript, substitute, textOf, varsFrom } from "./script.mjs";

const [scriptFile, portFile, logFile] = process.argv.slice(2);
const script = loadScript(scriptFile);

function next(body) {
  const input = Array.isArray(body.input) ? body.input : [];
  const prompt = input.filter((i) => i.type === "message" && i.role === "user").map((i) => textOf(i.content)).join("\n");
  const vars = varsFrom(script, prompt);
  const step = input.filter((i) => i.type === "function_call" || (i.type === "message" && i.role === "assistant")).length;
  const s = script.steps[step];
  if (s && s.hang) return { step, hang: true };
  if (!s || s.text !== undefined)
    return { step, item: { type: "message", id: `msg_stub_${step}`, role: "assistant", status: "completed",
                           content: [{ type: "output_text", text: s ? s.text : "done", annotations: [] }] } };
  const item = { type: "function_call", id: `fc_stub_${step}`, call_id: `call_stub_${step}`, status: "completed",
                 arguments: JSON.stringify(substitute(s.input, vars)) };
  const mcp = s.tool.match(/^(mcp__[^_]+(?:_[^_]+)*?)__(.+)$/);
  if (mcp) Object.assign(item, { namespace: mcp[1], name: mcp[2] });
  else item.name = s.tool;
  return { step, item };
}

const server = http.createServer((req, res) => {
  let data = "";
  req.on("data", (c) => (data += c));
  req.on("end", () => {
    const path = req.url.split("?")[0];
    if (req.method !== "POST" || !path.endsWith("/responses")) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(path.endsWith("/models") ? '{"object":"list","data":[]}' : "{}");
      return;
    }
    let body = {};
    try { body = JSON.parse(data); } catch { /* empty conversation: step 0 */ }
    const r = next(body);
    if (logFile)
      fs.appendFileSync(logFile, JSON.stringify({ path, step: r.step, stream: !!body.stream,
                                                   answer: r.hang ? "hang" : r.item.name || "text",
                                                   namespace: r.hang ? undefined : r.item.namespace }) + "\n");
    if (r.hang) return; // a model that never answers: the request stays open until the client goes
    const id = `resp_stub_${r.step}`;
    const usage = { input_tokens: 12, input_tokens_details: { cached_tokens: 0 }, output_tokens: 8,
                    output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 20 };
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    const send = (type, payload) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...payload })}\n\n`);
    send("response.created", { response: { id, object: "response", status: "in_progress", output: [] } });
    send("response.output_item.added", { output_index: 0, item: { ...r.item, status: "in_progress" } });
    send("response.output_item.done", { output_index: 0, item: r.item });
    send("response.completed", { response: { id, object: "response", status: "completed", output: [r.item], usage } });
    res.end();
  });
});
server.listen(0, "127.0.0.1", () => fs.writeFileSync(portFile, String(server.address().port)));
