#!/usr/bin/env bash
# A worker that went on without its answer and then waits for it again is not idle while it waits,
# and a wait that ended does not shield it for good. Two MCP workers (harness-mcp --worker) under
# timeouts of 6 s (idle) and 10 s (task), each asking a decision, waiting 1 s for it in vain and then
# reporting progress (which ends what the question held):
# - execute:01-01 then waits again, once, for up to 60 s, and gets its answer 11 s later (past both
#   timeouts): one attempt, not stopped by a timeout meanwhile;
# - execute:01-02 then waits again 1 s in vain and hangs silently: its first attempt is stopped by a
#   timeout soon after that wait ended; its second attempt does the work;
# - execute:01-03 hangs silently right after its first wait (no progress report in between): the
#   question's hold ends with that wait too, and a timeout stops the attempt.
# The timeouts are no shorter than that: a worker's start-up (python, then harness-mcp, a sanitizer
# build of it on a loaded machine) counts toward both, and took more than 2 s under load. Only the
# hangs (40 s, 60 s) and the answer's delay depend on their length, and are set from them.
set -euo pipefail
cli=${HARNESS_CLI:?}
src=${HARNESS_SOURCE_DIR:?}
source "$src/tests/integration/lib/project.sh"
project_tmp
orch=""
spec=docs/specs/SPC-012-awaits-again
p=$tmp/project
file_plans_project "$p" "$spec" "Awaits again" 01-01 01-02 01-03
idle=6 task=10
printf 'timeouts: {idle: %s, task: %s}\n' "$idle" "$task" >"$p/.orchestration/config.yaml"

cat >"$tmp/waiter.py" <<'PY'
import json, os, subprocess, sys, time
sys.path.insert(0, os.environ["HARNESS_TEST_LIB"])
from mcp_worker import McpWorker
mcp, cli, hung = sys.argv[1:4]
task = os.environ.get("HARNESS_TASK_ID")
if task in ("execute:01-02", "execute:01-03") and os.path.exists(hung + task):
    sys.exit(subprocess.run([cli, "script-worker"]).returncode)  # the attempt after the hung one
w = McpWorker(mcp)
asked = w.tool("harness_worker_report", {"type": "decision_needed", "payload": {"question": "Which greeting?", "options": ["hello", "hi"]}})
got = w.tool("harness_worker_await", {"message_id": asked["message_id"], "timeout_seconds": 1})
assert not got["answered"], got
if task == "execute:01-03":
    open(hung + task, "w").close()
    print("hanging with the question open", flush=True)
    time.sleep(40)
    sys.exit(1)
w.tool("harness_worker_report", {"type": "progress_update", "payload": {"message": "going on without the answer for now"}})
if task == "execute:01-02":
    open(hung + task, "w").close()
    w.tool("harness_worker_await", {"message_id": asked["message_id"], "timeout_seconds": 1})
    print("hanging", flush=True)
    time.sleep(60)
    sys.exit(1)
got = w.tool("harness_worker_await", {"message_id": asked["message_id"], "timeout_seconds": 60})
print("answered:", json.dumps(got.get("response")), flush=True)
w.close()
sys.exit(subprocess.run([cli, "script-worker"]).returncode)
PY

(cd "$p" && HARNESS_TEST_LIB=$src/tests/integration/lib exec "$cli" orchestrate "$spec" --slots 3 --worker command \
   --command "python3 $tmp/waiter.py {harness_mcp} {harness_cli} $tmp/hung" --json >"$tmp/events.jsonl" 2>"$tmp/stderr.log" </dev/null) &
orch=$!
# 01-01's question, once its worker went on and waits again (its progress report is in the store).
id=$(checkpoint_of "$p" execute:01-01 "$orch" "$tmp/events.jsonl" 'going on without the answer')
[[ -n $id ]] || { cat "$tmp/stderr.log" "$tmp/events.jsonl" >&2; fail "execute:01-01's question never became a checkpoint"; }
sleep $((task + 1)) # past both timeouts
kill -0 "$orch" 2>/dev/null || { cat "$tmp/events.jsonl" "$tmp/stderr.log" >&2; fail "the run ended before the answer"; }
(cd "$p" && "$cli" respond "$id" hi >/dev/null) || fail "respond exited $?"

rc=0; wait "$orch" || rc=$?
orch=
events=$(cat "$tmp/events.jsonl")
[[ $rc -eq 0 ]] || { echo "$events" >&2; cat "$tmp/stderr.log" >&2; fail "orchestrate exited $rc, expected 0"; }
# 01-01: one attempt, waiting the second time counted toward no timeout, the answer delivered.
grep -q 'answered: {"choice": "hi"' "$p/.orchestration/sessions/execute-01-01-a1-"*/output.log || fail "01-01's worker got no answer"
grep -q '"event":"task_succeeded",.*"task":"execute:01-01"' <<<"$events" || fail "01-01 did not succeed: $events"
! grep -q '"task":"execute:01-01".*"attempt":2' <<<"$events" || fail "01-01 needed a second attempt: $(grep 01-01 <<<"$events")"
! grep -q '"task":"execute:01-01".*\(idle (no output\|task timeout\)' <<<"$events" \
  || fail "01-01 was stopped by a timeout while it waited again: $(grep 01-01 <<<"$events")"
# 01-02: its ended wait did not keep a hung worker alive; the next attempt did the work.
grep -q '"task":"execute:01-02".*"attempt":1.*\(idle (no output\|task timeout\)' <<<"$events" \
  || fail "01-02's hung worker was not stopped by a timeout: $(grep 01-02 <<<"$events")"
grep -q '"event":"task_succeeded",.*"task":"execute:01-02"' <<<"$events" || fail "01-02 did not succeed: $(grep 01-02 <<<"$events")"
# 01-03: the question's hold ended with the wait it asked in.
grep -q '"task":"execute:01-03".*"attempt":1.*\(idle (no output\|task timeout\)' <<<"$events" \
  || fail "01-03's hung worker was not stopped by a timeout: $(grep 01-03 <<<"$events")"
grep -q '"event":"task_succeeded",.*"task":"execute:01-03"' <<<"$events" || fail "01-03 did not succeed: $(grep 01-03 <<<"$events")"
echo "orchestrate worker awaits again: all checks passed"
