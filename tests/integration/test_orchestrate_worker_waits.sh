#!/usr/bin/env bash
# A worker waiting for a person is not idle, may go on without the answer, and may say a retry is
# pointless. Three MCP workers (harness-mcp --worker) under timeouts of 2 s (idle) and 4 s (task):
# - execute:01-01 asks a decision and waits in harness_worker_await (1 s at a time, again and
#   again, as the worker prompt says) until the answer comes 6 s later, then does its work: one
#   attempt, not killed by either timeout meanwhile;
# - execute:01-02 asks, waits 1 s once, goes on without the answer and completes properly: done,
#   its question withdrawn with a note;
# - execute:01-03 reports task_failed with retry: forbidden: blocked after that one attempt.
set -euo pipefail
cli=${HARNESS_CLI:?}
src=${HARNESS_SOURCE_DIR:?}
source "$src/tests/integration/lib/project.sh"
project_tmp
orch=""
spec=docs/specs/SPC-011-waits
p=$tmp/project
file_plans_project "$p" "$spec" "Waits" 01-01 01-02 01-03
printf 'timeouts: {idle: 2, task: 4}\n' >"$p/.orchestration/config.yaml"

cat >"$tmp/waiter.py" <<'PY'
import json, os, subprocess, sys
sys.path.insert(0, os.environ["HARNESS_TEST_LIB"])
from mcp_worker import McpWorker
mcp, cli = sys.argv[1:3]
task = os.environ.get("HARNESS_TASK_ID")
w = McpWorker(mcp)
if task == "execute:01-03":
    w.tool("harness_worker_report", {"type": "task_failed", "payload": {"error": "the registry token is missing", "retry": "forbidden"}})
    sys.exit(1)
asked = w.tool("harness_worker_report", {"type": "decision_needed", "payload": {"question": "Which greeting?", "options": ["hello", "hi"]}})
while True:
    got = w.tool("harness_worker_await", {"message_id": asked["message_id"], "timeout_seconds": 1})
    if got["answered"] or task == "execute:01-02":
        break
print("answered:", json.dumps(got.get("response")), flush=True)
w.close()
sys.exit(subprocess.run([cli, "script-worker"]).returncode)
PY

(cd "$p" && HARNESS_TEST_LIB=$src/tests/integration/lib exec "$cli" orchestrate "$spec" --slots 3 --worker command --command "python3 $tmp/waiter.py {harness_mcp} {harness_cli}" \
   --json >"$tmp/events.jsonl" 2>"$tmp/stderr.log" </dev/null) &
orch=$!
id=$(checkpoint_of "$p" execute:01-01 "$orch")
[[ -n $id ]] || { cat "$tmp/stderr.log" "$tmp/events.jsonl" >&2; fail "execute:01-01's question never became a checkpoint"; }
sleep 6 # past both timeouts
kill -0 "$orch" 2>/dev/null || { cat "$tmp/events.jsonl" "$tmp/stderr.log" >&2; fail "the run ended before the answer"; }
(cd "$p" && "$cli" respond "$id" hi >/dev/null) || fail "respond exited $?"

rc=0; wait "$orch" || rc=$?
orch=
events=$(cat "$tmp/events.jsonl")
[[ $rc -eq 1 ]] || { echo "$events" >&2; cat "$tmp/stderr.log" >&2; fail "orchestrate exited $rc, expected 1 (01-03 blocked)"; }
# 01-01: one attempt, the answer delivered, done.
grep -q 'answered: {"choice": "hi"' "$p/.orchestration/sessions/execute-01-01-a1-"*/output.log || fail "01-01's worker got no answer"
grep -q '"event":"task_succeeded",.*"task":"execute:01-01"' <<<"$events" || fail "01-01 did not succeed: $events"
! grep -q '"task":"execute:01-01".*"attempt":2' <<<"$events" || fail "01-01 needed a second attempt: $(grep 01-01 <<<"$events")"
! grep -q 'idle (no output\|task timeout' <<<"$events" || fail "a waiting worker was stopped by a timeout: $events"
# 01-02: went on without the answer; its completion counts, its question is withdrawn.
grep -q '"event":"task_succeeded",.*"task":"execute:01-02"' <<<"$events" || fail "01-02 did not succeed: $(grep 01-02 <<<"$events")"
grep -q '"task":"execute:01-02".*withdrawn: the worker finished its task without the answer' <<<"$events" \
  || fail "01-02's question was not withdrawn with a note: $(grep 01-02 <<<"$events")"
# 01-03: one attempt, blocked with the worker's reason.
grep -q '"event":"task_blocked",.*"task":"execute:01-03".*the registry token is missing.*(not retried: a retry cannot help)' <<<"$events" \
  || fail "01-03's block: $(grep 01-03 <<<"$events")"
! grep -q '"task":"execute:01-03".*"attempt":2' <<<"$events" || fail "01-03 was retried: $(grep 01-03 <<<"$events")"
echo "orchestrate worker waits: all checks passed"
