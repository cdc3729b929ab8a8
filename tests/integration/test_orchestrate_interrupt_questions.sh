#!/usr/bin/env bash
# Ctrl-C while a worker waits for a person: the run does not wait for the answer, and the answer
# is not lost. MCP workers (harness-mcp --worker) without a terminal, two slots:
# - run 1: execute:01-01 asks a decision and waits; execute:01-02 works until the test lets it go.
#   A first SIGINT stops 01-01's worker at once (its session `ended`, not failed: no attempt
#   spent) while 01-02 finishes; the run exits 130 listing the open question with its `respond`
#   command, and `respond --list` still shows it;
# - run 2, --stop-on-interrupt: 01-01's new worker is told its question is still unanswered and
#   asks it again (report_again), taking over the same checkpoint; 01-03 asks an action; SIGINT
#   stops both and keeps both questions;
# - between the runs the person answers 01-01's question; 01-03's stays unanswered;
# - run 3: 01-01's new worker finds the answer in its task input (earlier_questions) and does its
#   work without asking; 01-03's asks again (report_again: an action's question is the run's
#   wording of two fields) and gets the answer given to the same checkpoint
#   while it waits; the run completes, and both questions are closed as answered.
set -euo pipefail
cli=${HARNESS_CLI:?}
src=${HARNESS_SOURCE_DIR:?}
export HARNESS_TEST_LIB=$src/tests/integration/lib # mcp_worker.py, for the test agents
source "$src/tests/integration/lib/project.sh"
project_tmp
orch=""
spec=docs/specs/SPC-013-interrupt-questions
p=$tmp/project
file_plans_project "$p" "$spec" "Interrupt questions" 01-01 01-02 01-03

cat >"$tmp/agent.py" <<'PY'
# Prints what its task input says an earlier worker asked; asks its own question unless that
# question was answered since, waits for the answer, then does the plan's work.
import json, os, subprocess, sys, time
sys.path.insert(0, os.environ["HARNESS_TEST_LIB"])
from mcp_worker import McpWorker, task_input
mcp, cli, prompt, tmp = sys.argv[1:5]
task = task_input(prompt)
earlier = task.get("earlier_questions", [])
print("earlier:", json.dumps(earlier), flush=True)
questions = {
    "execute:01-01": ("decision_needed", {"question": "Which greeting?", "options": ["hello", "hi"]}),
    "execute:01-03": ("action_needed", {"action": "log in to the registry", "reason": "the token expired"}),
}
if task["task"] == "execute:01-02":
    open(os.path.join(tmp, "busy"), "w").close()
    while not os.path.exists(os.path.join(tmp, "go")):
        time.sleep(0.1)
elif task["task"] in questions and not any(q["answered"] for q in earlier):
    kind, payload = questions[task["task"]]
    # Asked before and unanswered: the worker prompt says to send report_again as it is.
    again = [q for q in earlier if not q["answered"]]
    if again:
        kind, payload = again[0]["type"], again[0]["report_again"]
    w = McpWorker(mcp)
    asked = w.tool("harness_worker_report", {"type": kind, "payload": payload})
    got = w.tool("harness_worker_await", {"message_id": asked["message_id"], "timeout_seconds": 120})
    print("answered:", json.dumps(got.get("response")), flush=True)
    w.close()
sys.exit(subprocess.run([cli, "script-worker"]).returncode)
PY

run() { # N [flags...]: orchestrate in the background, events in events-N.jsonl
  local n=$1
  shift
  (cd "$p" && exec "$cli" orchestrate "$spec" --slots 2 --worker command \
     --command "python3 $tmp/agent.py {harness_mcp} {harness_cli} {prompt_file} $tmp" "$@" --json \
     >"$tmp/events-$n.jsonl" 2>"$tmp/stderr-$n.log" </dev/null) &
  orch=$!
}
finish() { # N EXPECTED_EXIT
  local rc=0
  wait "$orch" || rc=$?
  orch=
  [[ $rc -eq $2 ]] || { cat "$tmp/events-$1.jsonl" "$tmp/stderr-$1.log" >&2; fail "run $1 exited $rc, expected $2"; }
}
sessions() { # TASK: "status|end_reason" per session of TASK, oldest first
  python3 - "$p/.orchestration/harness.db" "$1" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
for status, reason in db.execute("SELECT status, end_reason FROM sessions WHERE task_id = ? ORDER BY rowid", (sys.argv[2],)):
    print(f"{status}|{reason or ''}")
PY
}

# Run 1: one worker waits for a person, one is busy; the first SIGINT.
run 1
decision=$(checkpoint_of "$p" execute:01-01 "$orch")
[[ -n $decision ]] || { cat "$tmp/stderr-1.log" "$tmp/events-1.jsonl" >&2; fail "execute:01-01's question never became a checkpoint"; }
for _ in $(seq 1 300); do [[ -f $tmp/busy ]] && break; sleep 0.1; done
[[ -f $tmp/busy ]] || fail "execute:01-02 never started"
kill -INT "$orch"
# The waiting worker is stopped without waiting for the busy one.
for _ in $(seq 1 300); do
  grep -q '"task":"execute:01-01".*stays open' "$tmp/events-1.jsonl" && break
  kill -0 "$orch" 2>/dev/null || break
  sleep 0.1
done
grep -q '"task":"execute:01-01".*stays open' "$tmp/events-1.jsonl" \
  || { cat "$tmp/events-1.jsonl" >&2; fail "the waiting worker was not stopped while the busy one ran"; }
kill -0 "$orch" 2>/dev/null || fail "the run ended before the busy worker finished"
touch "$tmp/go"
finish 1 130
grep -q '"event":"task_succeeded",.*"task":"execute:01-02"' "$tmp/events-1.jsonl" || fail "the busy worker did not finish: $(cat "$tmp/events-1.jsonl")"
! grep -q '"task_started".*"task":"execute:01-03"' "$tmp/events-1.jsonl" || fail "a task started after the interrupt"
[[ $(sessions execute:01-01) == "ended|interrupted while waiting for an answer" ]] \
  || fail "01-01's session: $(sessions execute:01-01)"
! grep -q "withdrawn\|expired" "$tmp/events-1.jsonl" || fail "the question was withdrawn: $(grep 'withdrawn\|expired' "$tmp/events-1.jsonl")"
grep -q "waiting: execute:01-01 of SPC-013-interrupt-questions: decision_needed: Which greeting? -- answer with: harness-cli respond $decision hello|hi|refuse" "$tmp/stderr-1.log" \
  || fail "stderr does not list the open question: $(cat "$tmp/stderr-1.log")"
tail -1 "$tmp/events-1.jsonl" | grep -q '"outcome":"interrupted","exit_code":130' || fail "run_finished: $(tail -1 "$tmp/events-1.jsonl")"
list=$(cd "$p" && "$cli" respond --list)
[[ $list == *"$decision"*"execute:01-01"*"Which greeting?"*"its worker was stopped while it waited"* ]] || fail "respond --list: $list"
# Over MCP too, though no worker's message waits for it any more: the checkpoint, with the options.
pending=$(mcp_call "$p" harness_get_pending '{}')
python3 - "$decision" "$pending" <<'PY' || fail "harness_get_pending: $pending"
import json, sys
messages = json.loads(sys.argv[2])["result"]["structuredContent"]["messages"]
assert [(m["message_id"], m["type"], m["payload"]["options"]) for m in messages] == [(sys.argv[1], "checkpoint", ["hello", "hi"])], messages
PY

# Run 2, --stop-on-interrupt: 01-03 asks; the interrupt stops it and keeps its question too.
rm -f "$tmp/busy"
run 2 --stop-on-interrupt
action=$(checkpoint_of "$p" execute:01-03 "$orch")
[[ -n $action ]] || { cat "$tmp/stderr-2.log" "$tmp/events-2.jsonl" >&2; fail "execute:01-03's question never became a checkpoint"; }
# 01-01 waits for the answer (its input says unanswered, so it asked again: the same checkpoint).
for _ in $(seq 1 300); do
  grep -q "\"checkpoint_opened\".*\"checkpoint_id\":\"$decision\"" "$tmp/events-2.jsonl" && break
  sleep 0.1
done
grep -q "\"checkpoint_opened\".*\"task\":\"execute:01-01\".*(asked by an earlier run too)\",\"checkpoint_id\":\"$decision\"" "$tmp/events-2.jsonl" \
  || fail "01-01's worker did not take over its earlier checkpoint: $(grep checkpoint_opened "$tmp/events-2.jsonl")"
kill -INT "$orch"
finish 2 130
grep -q "waiting: execute:01-03 .*respond $action done|refuse" "$tmp/stderr-2.log" || fail "run 2's stderr: $(cat "$tmp/stderr-2.log")"
grep -q "waiting: execute:01-01 .*respond $decision hello|hi|refuse" "$tmp/stderr-2.log" || fail "run 2's stderr: $(cat "$tmp/stderr-2.log")"
[[ $(sessions execute:01-03) == "ended|interrupted while waiting for an answer" ]] || fail "01-03's session: $(sessions execute:01-03)"

# The person answers 01-01 while no run is alive; 01-03 stays unanswered.
(cd "$p" && "$cli" respond "$decision" hi >/dev/null) || fail "respond $decision exited $?"

# Run 3: the answer reaches 01-01's new worker without a second answer; 01-03 asks again.
run 3
action_again=$(checkpoint_of "$p" execute:01-03 "$orch" "$tmp/events-3.jsonl" '"checkpoint_opened".*execute:01-03')
[[ $action_again == "$action" ]] || { cat "$tmp/events-3.jsonl" >&2; fail "01-03's question asked again is checkpoint '$action_again', not $action"; }
(cd "$p" && "$cli" respond "$action" done >/dev/null) || fail "respond $action exited $?"
finish 3 0
newest_log() { # TASK: the output.log of its last session (run 3's)
  python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT log_path FROM sessions WHERE task_id = ? ORDER BY rowid DESC LIMIT 1", (sys.argv[2],)).fetchone()[0])' \
    "$p/.orchestration/harness.db" "$1"
}
log01=$(newest_log execute:01-01)
log03=$(newest_log execute:01-03)
python3 - "$log01" "$decision" <<'PY' || fail "01-01's new worker was not given the answer: $(cat "$log01")"
import json, sys
line = next(l for l in open(sys.argv[1]) if l.startswith("earlier: "))
earlier = json.loads(line[len("earlier: "):])
assert len(earlier) == 1, earlier
q = earlier[0]
assert q["checkpoint_id"] == sys.argv[2] and q["type"] == "decision_needed" and q["question"] == "Which greeting?", q
assert q["options"] == ["hello", "hi"] and q["answered"] is True and q["answer"]["choice"] == "hi", q
PY
! grep -q '^answered:' "$log01" || fail "01-01's new worker asked again"
grep -q 'answered: {"outcome": "done"' "$log03" \
  || fail "01-03's new worker got: $(cat "$log03")"
grep -q '"event":"task_succeeded",.*"task":"execute:01-01"' "$tmp/events-3.jsonl" || fail "01-01 did not succeed in run 3"
# No attempt was a failure: every earlier session of the two ended on purpose.
[[ $(sessions execute:01-01) == $'ended|interrupted while waiting for an answer\nended|interrupted while waiting for an answer\ncompleted|' ]] \
  || fail "01-01's sessions: $(sessions execute:01-01)"
[[ $(sessions execute:01-03) == $'ended|interrupted while waiting for an answer\ncompleted|' ]] || fail "01-03's sessions: $(sessions execute:01-03)"
! grep -q '"task_blocked"\|"attempt":2' "$tmp/events-3.jsonl" || fail "run 3 retried or blocked: $(cat "$tmp/events-3.jsonl")"
# Answered and taken: nothing left to answer.
[[ -f $p/.orchestration/sessions/$decision/checkpoint.answered.json && -f $p/.orchestration/sessions/$action/checkpoint.answered.json ]] \
  || fail "the questions were not closed as answered: $(ls "$p/.orchestration/sessions/$decision" "$p/.orchestration/sessions/$action")"
[[ -z $(cd "$p" && "$cli" respond --list) ]] || fail "respond --list after run 3: $(cd "$p" && "$cli" respond --list)"
echo "orchestrate interrupt questions: all checks passed"
