#!/usr/bin/env bash
# orchestrate with the REAL Codex CLI (npm @openai/codex, pinned in tests/node) as the execute
# worker. No model runs here: tests/agents/responses_stub.mjs answers the CLI's Responses API calls
# from a script (tests/agents/execute_plan_codex.json), so Codex really starts harness-mcp from the
# CODEX_HOME the adapter writes, really calls harness_worker_report (as namespace mcp__harness) and
# its own exec_command inside its workspace-write sandbox (with .git writable, so it can commit),
# and the orchestrator must hear every report, read the JSON events, check the SUMMARY and the
# trailer commits, verify and finish. In a network namespace of its own when the machine allows.
set -euo pipefail
cli=${HARNESS_CLI:?}
src=${HARNESS_SOURCE_DIR:?}
fail() { echo "FAIL: $*" >&2; exit 1; }
source "$src/tests/integration/lib/agents.sh"
codex=$(agent_cli codex)
offline "$0"

tmp=$(mktemp -d)
trap 'kill $stub_pid 2>/dev/null || true; pkill -KILL -f "$tmp" 2>/dev/null || true; rm -rf "$tmp"' EXIT
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com
spec=docs/specs/SPC-043-codex

start_stub responses_stub.mjs execute_plan_codex.json "$tmp"
export STUB_KEY=stub-key
base_url=http://127.0.0.1:$stub_port/v1

new_project() { # dir [extra config lines]
  local p=$1
  one_plan_project "$p" "$spec"
  # Codex runs the plans; the mechanical tasks (research, phase checks) stay with `script`.
  printf 'adapters: {default: script, executor: codex}\nworkers:\n  codex: {binary: %s, base_url: "%s", env_key: STUB_KEY, model: gpt-stub}\nmax_attempts: 1\ntimeouts: {task: 120, idle: 60}\n' \
    "$codex" "$base_url" >"$p/.orchestration/config.yaml"
}

# The plan done by Codex, every report heard.
p=$tmp/ok
new_project "$p"
(cd "$p" && "$cli" orchestrate "$spec" --yes --json >"$tmp/events.jsonl" 2>"$tmp/stderr.log") \
  || { tail -5 "$tmp/events.jsonl"; cat "$tmp/stderr.log"; cat "$p"/.orchestration/sessions/execute-*/output.log | tail -20; fail "orchestrate exited $?"; }
python3 - "$tmp/events.jsonl" <<'PY'
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
assert ev[-1]["event"] == "run_finished" and ev[-1]["message"].startswith("complete"), ev[-1]
progress = [e.get("message", "") for e in ev if e["event"] == "task_progress" and e.get("task") == "execute:01-01"]
assert any("wrote out/01-01.txt" in m for m in progress), progress
done = [e for e in ev if e["event"] == "task_succeeded" and e.get("task") == "execute:01-01"]
assert len(done) == 1 and done[0]["message"].startswith("done (1 turns, $0.0000)"), done  # Codex reports no cost
PY
cd "$p"
[[ "$(cat out/01-01.txt)" == hello ]] || fail "the file Codex's exec_command wrote"
[[ $'\n'"$(git log --format=%B)"$'\n' == *$'\nPlan: 01-01, Task: 1/1\n'* ]] || fail "trailer commit"
grep -q "^status: passed" "$spec/execution/FINAL-VERIFICATION.md" || fail "final verification"
types=$(sqlite3 .orchestration/harness.db "select group_concat(message_type) from (select message_type from worker_messages where session_id like 'execute-01-01%' order by seq)")
[[ "$types" == "session_ready,task_started,progress_update,task_completed" ]] || fail "messages in the store: $types"
log=$(ls .orchestration/sessions/execute-01-01-*/output.log)
grep -q '"type":"thread.started"' "$log" || fail "no thread.started event in the worker log"
[[ $(grep -c '"type":"mcp_tool_call","server":"harness","tool":"harness_worker_report".*"status":"completed"' "$log") -eq 4 ]] \
  || fail "Codex did not complete its four harness_worker_report calls"
grep -q '"type":"turn.completed"' "$log" || fail "no turn.completed event"
[[ $(grep -c '"namespace":"mcp__harness"' "$tmp/requests.jsonl") -eq 4 ]] || fail "the stub did not serve the MCP calls"
echo "orchestrate with the real Codex CLI: all checks passed"

