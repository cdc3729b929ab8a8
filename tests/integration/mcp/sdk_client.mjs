// The official TypeScript SDK client (@modelcontextprotocol/sdk) drives two harness-mcp
// processes sharing one temp project: an orchestrator and a worker. Usage:
//   node sdk_client.mjs <harness-mcp> <project-dir>
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { DatabaseSync } from 'node:sqlite';
import assert from 'node:assert/strict';
import path from 'node:path';

const [binary, project] = process.argv.slice(2);

async function connect(args, env = {}) {
  const client = new Client({ name: 'harness-sdk-test', version: '1.0.0' });
  const transport = new StdioClientTransport({ command: binary, args, env, stderr: 'inherit' });
  await client.connect(transport);
  return client;
}

const text = (result) => result.content.find((c) => c.type === 'text')?.text ?? '';

const orch = await connect(['--project', project]);
assert.equal(orch.getServerVersion().name, 'harness-mcp');
const tools = (await orch.listTools()).tools;
assert.equal(tools.length, 12);
for (const t of tools) {
  assert.equal(t.inputSchema.type, 'object', t.name);
  assert.equal(t.outputSchema?.type, 'object', t.name);
}

let r = await orch.callTool({ name: 'harness_set_state', arguments: { key: 'phase', value: { n: 2 } } });
assert.deepEqual(r.structuredContent, { key: 'phase' });
r = await orch.callTool({ name: 'harness_get_state', arguments: {} });
assert.deepEqual(r.structuredContent.state.phase, { n: 2 });
// Every tool that can run without a live orchestrator, once: the SDK checks each result against
// the tool's declared outputSchema and throws on a mismatch.
r = await orch.callTool({ name: 'harness_get_project_state', arguments: {} });
assert.equal(r.isError, undefined, text(r));
assert.equal(typeof r.structuredContent.pending_messages, 'number');
r = await orch.callTool({ name: 'harness_sync_state', arguments: {} });
assert.match(r.structuredContent.path, /state\.json$/);
r = await orch.callTool({ name: 'harness_mark_phase_verified', arguments: { phase: '01', note: 'ok' } });
assert.equal(r.structuredContent.verified, true);
r = await orch.callTool({ name: 'harness_list_sessions', arguments: {} });
assert.ok(Array.isArray(r.structuredContent.sessions));
r = await orch.callTool({ name: 'harness_start_session', arguments: { plan_id: '01-01' } });
assert.equal(r.isError, true);
assert.match(text(r), /orchestrator not running/);
r = await orch.callTool({ name: 'harness_respond', arguments: { message_id: 'x' } });
assert.equal(r.isError, true, 'invalid arguments are a tool error');
await assert.rejects(orch.callTool({ name: 'no_such_tool', arguments: {} }), (e) => e.code === -32602);

// The orchestrator registers sessions in the store (harness.db) when it launches workers; here
// the test does it, with the store's schema.
const db = new DatabaseSync(path.join(project, '.orchestration', 'harness.db'));
db.prepare(`INSERT INTO sessions(id, slot, status, working_dir, task_id, token)
            VALUES ('s1', 1, 'running', ?, '01-02', 'tok')`).run(project);
db.close();

const worker = await connect(['--worker', '--project', project], { HARNESS_SESSION_ID: 's1', HARNESS_TOKEN: 'tok' });
assert.equal((await worker.listTools()).tools.length, 4);
r = await worker.callTool({ name: 'harness_worker_get_task', arguments: {} });
assert.equal(r.structuredContent.task.task_id, '01-02');
r = await worker.callTool({ name: 'harness_worker_report',
  arguments: { type: 'decision_needed', payload: { question: 'A or B?', options: ['A', 'B'] } } });
const messageId = r.structuredContent.message_id;
assert.equal(typeof messageId, 'string');
// A report that needs no answer is not pending for anyone.
r = await worker.callTool({ name: 'harness_worker_report', arguments: { type: 'progress_update', payload: { message: 'half way' } } });
assert.equal(typeof r.structuredContent.message_id, 'string');
r = await worker.callTool({ name: 'harness_worker_report', arguments: { type: 'decision_needed', payload: {} } });
assert.equal(r.isError, true, 'a payload the protocol rejects is a tool error');

// Cancelling a blocked await: the SDK sends notifications/cancelled; the server keeps serving.
const controller = new AbortController();
const cancelled = worker.callTool({ name: 'harness_worker_await', arguments: { timeout_seconds: 30 } },
  undefined, { signal: controller.signal });
setTimeout(() => controller.abort('test'), 200);
await assert.rejects(cancelled);
await worker.ping();

const progress = [];
const awaited = worker.callTool({ name: 'harness_worker_await', arguments: { timeout_seconds: 30 } },
  undefined, { onprogress: (p) => progress.push(p), timeout: 60000 });
r = await orch.callTool({ name: 'harness_get_pending', arguments: {} });
assert.equal(r.structuredContent.messages.length, 1, 'only the question is pending');
assert.equal(r.structuredContent.messages[0].payload.question, 'A or B?');
r = await orch.callTool({ name: 'harness_list_sessions', arguments: {} });
assert.equal(r.structuredContent.sessions.find((s) => s.session_id === 's1').pending, 1);
r = await orch.callTool({ name: 'harness_wait_for_state', arguments: { session_id: 's1', timeout_seconds: 0.2 } });
assert.equal(r.isError, undefined, text(r));
r = await orch.callTool({ name: 'harness_get_output', arguments: { session_id: 's1' } });
assert.equal(r.structuredContent?.session_id ?? 's1', 's1');
await new Promise((resolve) => setTimeout(resolve, 1300));  // let one progress notification through
r = await orch.callTool({ name: 'harness_respond',
  arguments: { message_id: messageId, response: { type: 'decision_made', choice: 'B' } } });
assert.equal(r.structuredContent.responded, true);
r = await awaited;
assert.equal(r.structuredContent.answered, true);
assert.equal(r.structuredContent.response.choice, 'B');
assert.ok(progress.length >= 1, 'progress notifications arrive while waiting');

const stranger = await connect(['--worker', '--project', project]);
r = await stranger.callTool({ name: 'harness_worker_get_task', arguments: {} });
assert.equal(r.isError, true);
assert.match(text(r), /HARNESS_SESSION_ID/);

await Promise.all([orch.close(), worker.close(), stranger.close()]);
console.log('sdk client: all checks passed');
