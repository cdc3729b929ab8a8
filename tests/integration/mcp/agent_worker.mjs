// A stand-in for an AI agent, run by `harness-cli orchestrate --worker command`: a real MCP client
// (the official TypeScript SDK) of `harness-mcp --worker`, speaking the worker protocol. It does
// the plan's work through `harness-cli script-worker` (no LLM here) and reports every step.
// argv: <harness-mcp> <harness-cli>
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

const [mcp, cli] = process.argv.slice(2);
const env = process.env;
const transport = new StdioClientTransport({
  command: mcp,
  args: ["--worker", "--project", env.HARNESS_PROJECT],
  env: { ...env },
  stderr: "inherit",
});
const client = new Client({ name: "harness-test-agent", version: "1.0.0" });
await client.connect(transport);

async function report(type, payload) {
  const r = await client.callTool({ name: "harness_worker_report", arguments: { type, payload } });
  if (r.isError) throw new Error(`${type} refused: ${JSON.stringify(r.content)}`);
  return r.structuredContent.message_id;
}

await report("session_ready", { adapter: "command" });
await report("task_started", { task_id: env.HARNESS_TASK_ID, attempt: 1 });
await report("progress_update", { message: "reading the plan" });
if (env.HARNESS_TASK_ID === "execute:01-01") {
  const id = await report("decision_needed", { question: "Keep tasks in a JSON file?", options: ["yes", "no"] });
  const answer = await client.callTool({ name: "harness_worker_await", arguments: { message_id: id, timeout_seconds: 120 } });
  if (!answer.structuredContent.answered) throw new Error("no answer to the decision");
  console.log(`decision answered: ${JSON.stringify(answer.structuredContent.response)}`);
}
await report("progress_update", { message: "running the plan's shell blocks" });
execFileSync(cli, ["script-worker"], { env, stdio: ["ignore", "inherit", "inherit"] });
const result = JSON.parse(readFileSync(`${env.HARNESS_STATE_DIR}/sessions/${env.HARNESS_SESSION_ID}/result.json`, "utf8"));
await report("task_completed", {
  summary_path: result.summaryPath,
  commits: result.commits,
  files_touched: result.filesTouched,
});
await client.close();
