#!/usr/bin/env bash
# A worker's questions answered from the command line. An MCP worker (harness-mcp --worker) asks
# decision_needed with options for execute:01-01 and action_needed for execute:01-02, then waits in
# harness_worker_await. The person sees the options wherever the question is shown (the run's
# checkpoint_opened event, `respond --list` and its JSON, `status`), answers with an option's text
# or number (an answer that is none of them is exit 2 naming them), or `done` for the action; the
# worker receives {"choice": <the option>} and {"outcome": "done"}. A worker that tries to answer
# its own question (respond, or harness_respond of a harness-mcp it starts) is refused.
set -euo pipefail
cli=${HARNESS_CLI:?}
src=${HARNESS_SOURCE_DIR:?}
export HARNESS_TEST_LIB=$src/tests/integration/lib # mcp_worker.py, for the test agents
source "$src/tests/integration/lib/project.sh"
project_tmp
orch=""
spec=docs/specs/SPC-010-questions
p=$tmp/project
file_plans_project "$p" "$spec" "Questions" 01-01 01-02

cat >"$tmp/asker.py" <<'PY'
# A worker for `--worker command`: asks its task's question over MCP and waits for the answer,
# prints it, then does the plan's work with the script worker.
import json, os, subprocess, sys, time
sys.path.insert(0, os.environ["HARNESS_TEST_LIB"])
from mcp_worker import McpWorker
mcp, cli = sys.argv[1:3]
task = os.environ.get("HARNESS_TASK_ID")
questions = {
    "execute:01-01": ("decision_needed", {"question": "Which greeting?", "options": ["hello", "hi there"]}),
    "execute:01-02": ("action_needed", {"action": "log in to the registry", "reason": "the token expired"}),
}
if task in questions:
    kind, payload = questions[task]
    w = McpWorker(mcp)
    asked = w.tool("harness_worker_report", {"type": kind, "payload": payload})
    # A worker must not answer its own question: not with respond (harness-cli is on its PATH), not
    # with harness_respond of a harness-mcp it starts itself.
    own = None
    for _ in range(100):
        listed = json.loads(subprocess.run([cli, "respond", "--list", "--json"], capture_output=True, text=True).stdout)
        own = next((c["id"] for c in listed["checkpoints"] if c["task"] == task), None)
        if own: break
        time.sleep(0.1)
    r = subprocess.run([cli, "respond", own or "none", "done"], capture_output=True, text=True)
    print("own respond:", r.returncode, r.stderr.strip(), flush=True)
    m = McpWorker(mcp, worker=False)
    said = m.request("tools/call", {"name": "harness_respond", "arguments": {"message_id": asked["message_id"], "response": {"outcome": "done", "choice": "hello"}}})
    print("own harness_respond:", json.dumps(said), flush=True)
    m.close()
    answer = w.tool("harness_worker_await", {"message_id": asked["message_id"], "timeout_seconds": 120})
    print("answered:", json.dumps(answer.get("response")), flush=True)
    w.close()
sys.exit(subprocess.run([cli, "script-worker"]).returncode)
PY

(cd "$p" && exec "$cli" orchestrate "$spec" --slots 2 --worker command --command "python3 $tmp/asker.py {harness_mcp} {harness_cli}" \
   --yes --json >"$tmp/events.jsonl" 2>"$tmp/stderr.log" </dev/null) &
orch=$!
# checkpoint TASK: the id `respond --list` shows for TASK while the run is alive.
checkpoint() {
  local id=
  for _ in $(seq 1 300); do
    id=$(cd "$p" && "$cli" respond --list 2>/dev/null | awk -v t="$1" '$3 == t {print $1; exit}')
    [[ -n $id ]] && break
    kill -0 "$orch" 2>/dev/null || break
    sleep 0.1
  done
  echo "$id"
}
decision=$(checkpoint execute:01-01)
action=$(checkpoint execute:01-02)
[[ -n $decision && -n $action ]] || { cat "$tmp/stderr.log" "$tmp/events.jsonl" >&2; fail "the workers' questions never became checkpoints"; }

# The options wherever the question is shown.
list=$(cd "$p" && "$cli" respond --list)
[[ $list == *"Which greeting?  [answer: hello|'hi there'|refuse]"* ]] || fail "respond --list: $list"
[[ $list == *"log in to the registry (the token expired)  [answer: done|refuse]"* ]] || fail "respond --list: $list"
(cd "$p" && "$cli" respond --list --json) | python3 -c '
import json, sys
cps = {c["task"]: c for c in json.load(sys.stdin)["checkpoints"]}
assert cps["execute:01-01"]["asks"] == "decision" and cps["execute:01-01"]["options"] == ["hello", "hi there", "refuse"], cps
assert cps["execute:01-02"]["asks"] == "action" and cps["execute:01-02"]["options"] == ["done", "refuse"], cps
' || fail "respond --list --json"
grep -q "\"checkpoint_opened\".*Which greeting? -- answer with: harness-cli respond $decision hello|'hi there'|refuse" "$tmp/events.jsonl" \
  || fail "the checkpoint_opened event names no options: $(grep checkpoint_opened "$tmp/events.jsonl")"
# The same as fields of the --json event, for a program driving orchestrate.
python3 - "$tmp/events.jsonl" "$decision" "$action" <<'PY' || fail "checkpoint_opened events' fields: $(grep checkpoint_opened "$tmp/events.jsonl")"
import json, sys
ev = {e["task"]: e for e in map(json.loads, open(sys.argv[1])) if e["event"] == "checkpoint_opened"}
assert ev["execute:01-01"]["checkpoint_id"] == sys.argv[2] and ev["execute:01-01"]["options"] == ["hello", "hi there"], ev
assert ev["execute:01-02"]["checkpoint_id"] == sys.argv[3] and "options" not in ev["execute:01-02"], ev
PY
(cd "$p" && "$cli" status "$spec" --json) | python3 -c '
import json, sys
r = json.load(sys.stdin)["running_orchestrate"]
assert r["pid"] == int(sys.argv[1]) and r["spec"] == sys.argv[2] and r["started_at"], r
' "$orch" "$spec" || fail "status --json running_orchestrate: $(cd "$p" && "$cli" status "$spec" --json)"
status=$(cd "$p" && "$cli" status "$spec")
[[ $status == *"respond $decision hello|'hi there'|refuse"* && $status == *"respond $action done|refuse"* ]] \
  || fail "status's waiting lines: $status"

# An answer that is none of the options is refused, naming them; approve is no option.
rc=0; err=$(cd "$p" && "$cli" respond "$decision" approve 2>&1) || rc=$?
[[ $rc -eq 2 && $err == *"answer 'approve' is none of the worker's options: 1 hello, 2 'hi there'"*"or refuse"* ]] \
  || fail "respond with approve to a decision: rc $rc, $err"
rc=0; err=$(cd "$p" && "$cli" respond "$decision" 3 2>&1) || rc=$?
[[ $rc -eq 2 ]] || fail "respond with option 3 of 2: rc $rc, $err"
rc=0; err=$(cd "$p" && "$cli" respond "$action" maybe 2>&1) || rc=$?
[[ $rc -eq 2 && $err == *"answer 'maybe' is not done or refuse"* ]] || fail "respond maybe to an action: rc $rc, $err"
# By number, and with done.
out=$(cd "$p" && "$cli" respond "$decision" 2) || fail "respond 2 exited $?"
[[ $out == "answered $decision: hi there" ]] || fail "respond 2 said: $out"
(cd "$p" && "$cli" respond "$action" done --note "logged in" >/dev/null) || fail "respond done exited $?"

rc=0; wait "$orch" || rc=$?
orch=
[[ $rc -eq 0 ]] || { tail -5 "$tmp/events.jsonl" >&2; cat "$tmp/stderr.log" >&2; fail "orchestrate exited $rc"; }
# Each worker's own answer was refused, by respond (exit 2) and by harness_respond alike.
for log in "$p/.orchestration/sessions/execute-01-0"[12]"-a1-"*/output.log; do
  grep -q 'own respond: 2 harness-cli: error: respond cp-.*: this runs inside worker session execute-01-0.* of this project (HARNESS_SESSION_ID): a checkpoint asks a person' "$log" \
    || fail "a worker answered its own question with respond: $(grep 'own respond' "$log")"
  grep -q 'own harness_respond: .*this runs inside worker session.*"isError": true' "$log" \
    || fail "a worker answered its own question with harness_respond: $(grep 'own harness_respond' "$log")"
done
grep -q 'answered: {"choice": "hi there"' "$p/.orchestration/sessions/execute-01-01-a1-"*/output.log \
  || fail "the decision's worker got: $(grep answered: "$p/.orchestration/sessions/execute-01-01-a1-"*/output.log)"
grep -q 'answered: {"outcome": "done", "note": "logged in"}' "$p/.orchestration/sessions/execute-01-02-a1-"*/output.log \
  || fail "the action's worker got: $(grep answered: "$p/.orchestration/sessions/execute-01-02-a1-"*/output.log)"
grep -q '"checkpoint_answered".*"task":"execute:01-01".*"message":"chose '"'hi there'"'".*"checkpoint_id":"'"$decision"'"' "$tmp/events.jsonl" \
  || fail "checkpoint_answered: $(grep checkpoint_answered "$tmp/events.jsonl")"
# One answer, one line, saying what was answered (no second "approved; continuing" as the worker
# goes on), in the slot the worker waited in.
python3 - "$tmp/events.jsonl" <<'PY' || fail "checkpoint_answered events: $(grep checkpoint_answered "$tmp/events.jsonl")"
import json, sys
ev = [e for e in map(json.loads, open(sys.argv[1])) if e["event"] == "checkpoint_answered"]
assert [e["task"] for e in ev] == ["execute:01-01", "execute:01-02"] or [e["task"] for e in ev] == ["execute:01-02", "execute:01-01"], ev
said = {e["task"]: e for e in ev}
assert said["execute:01-01"]["message"] == "chose 'hi there'" and said["execute:01-01"].get("slot", 0) >= 1, ev
assert said["execute:01-02"]["message"] == "approved: logged in", ev
PY
tail -1 "$tmp/events.jsonl" | grep -q '"event":"run_finished".*"outcome":"complete","exit_code":0' \
  || fail "run_finished: $(tail -1 "$tmp/events.jsonl")"
echo "orchestrate worker questions: all checks passed"
