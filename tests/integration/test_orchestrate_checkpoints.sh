#!/usr/bin/env bash
# Checkpoints without a terminal and across runs, with the real harness-cli, harness-mcp and the
# script worker. Plan 01-01 asks for a verification checkpoint; 01-03 depends on it; 01-02 does not.
#   1. No terminal, no --yes: the run does all it can (01-02), then stops with exit 3; the
#      checkpoint's line says what it waits for and how to answer it, and so does `status`.
#   2. No run is alive: `respond --list` and harness_get_pending still show the checkpoint;
#      `respond` refuses an unclear answer (exit 2), takes a refusal, and replaces it by "Approve"
#      with --replace (only then).
#   3. The next run takes that answer (the same checkpoint, no new question) and completes; the
#      answered checkpoint is refused from then on, and no run reads it as a worker report.
#   3b. The approved plan runs again (redo): the earlier phase and final reports do not verify the
#      new work, so a refusal of its checkpoint given between runs is taken, not dropped.
#   3c. That refusal is kept in the SUMMARY: --yes does not approve over it, the question names
#      it; an answer given between runs for work changed since is not taken, the plan asked again.
#   4. A run killed (kill -9) while its checkpoint waits: the checkpoint outlives it, a refusal
#      over MCP (harness_respond) is taken, and the next run blocks the plan as refused.
#   4b. A plan refused while the run goes on: start-session says what reopens it.
#   4c. A plan approved while the run goes on, the run killed before the SUMMARY records it: the
#      next run takes the approval instead of asking again.
#   5. A phase that needs a person: --yes does not answer for them; the line names the check.
#   6. A worker's question (an MCP worker waiting in harness_worker_await) dies with its killed
#      run: not listed, `respond` refuses it as stale; once the next run's worker asks again,
#      the refusal names the new checkpoint, which an answer then settles.
#   7. The same question answered, then the run killed at once: the next worker gets the answer,
#      nobody is asked twice.
#   8. A checkpoint --yes approved in a later run: answering it says who did.
set -euo pipefail
cli=${HARNESS_CLI:?}
source "${HARNESS_SOURCE_DIR:?}/tests/integration/lib/project.sh" # mcp_call
export HARNESS_TEST_LIB=$HARNESS_SOURCE_DIR/tests/integration/lib # mcp_worker.py, for the test agents
tmp=$(mktemp -d)
export SLOW=$((700000 + RANDOM)) # a unique sleep argument to find the slow worker's child by
orch=""
cleanup() {
  [[ -n $orch ]] && kill -KILL "$orch" 2>/dev/null || true
  pkill -KILL -f "sleep $SLOW" 2>/dev/null || true
  pkill -KILL -f "$tmp/asker.py" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com
spec=docs/specs/SPC-009-checkpoints

new_project() { # dir [extra must_pass item of 01-02]
  local s=$1/$spec extra=${2:-}
  mkdir -p "$s/planning/plans/01-core"
  printf '# Checkpoints\n\nThree plans; 01-01 wants a person to look at it.\n' >"$s/SPEC.md"
  plan() { # id depends_on checkpoints script
    cat >"$s/planning/plans/01-core/$1-PLAN.md" <<PLAN
---
plan_id: '$1'
depends_on: [$2]
files_modified: ['out/$1.txt']
checkpoints: [$3]
must_pass:
  - id: written
    type: file_exists
    path: out/$1.txt
$([[ $1 == 01-02 ]] && printf '%s' "$extra")
---
# $1

### Task 1: write

\`\`\`bash
$4
mkdir -p out && echo $1 > out/$1.txt
\`\`\`
PLAN
  }
  plan 01-01 "" "'verification'" ""
  # Slow only when the test asks (SLOW_0102 in orchestrate's environment reaches the worker).
  plan 01-02 "" "" 'if [ -n "${SLOW_0102:-}" ]; then sleep $SLOW & wait $!; fi'
  plan 01-03 "'01-01'" "" ""
  (cd "$1" && git init -q && git add -A && git commit -qm init)
}

# wait_for_checkpoint [TASK]: the id `respond --list` shows in project $p (for TASK, or the
# first one) while the run $orch is alive; empty after 30 s or when the run ended.
wait_for_checkpoint() {
  local id=
  for _ in $(seq 1 300); do
    id=$(cd "$p" && "$cli" respond --list 2>/dev/null | awk -v t="${1:-}" 't == "" || $3 == t {print $1; exit}')
    [[ -n $id ]] && break
    kill -0 "$orch" 2>/dev/null || break
    sleep 0.1
  done
  echo "$id"
}

# 1. Nothing left but the checkpoint: exit 3, and the line says what to do.
p=$tmp/stop
new_project "$p"
rc=0
# (A run that waits for ever instead is stopped by the timeout: exit 124.)
(cd "$p" && timeout 120 "$cli" orchestrate "$spec" --worker script >"$tmp/stop.out" 2>"$tmp/stop.err" </dev/null) || rc=$?
[[ $rc -eq 3 ]] || { cat "$tmp/stop.out" "$tmp/stop.err" >&2; fail "a run left with only a checkpoint exited $rc, expected 3"; }
out=$(cat "$tmp/stop.out")
err=$(cat "$tmp/stop.err")
line=$(grep "checkpoint_opened" <<<"$out") || fail "no checkpoint line: $out"
[[ $line == *"verify-plan:01-01: verification of 01-01: automated checks passed (2/2 checks passed) -- answer with: harness-cli respond cp-SPC-009-checkpoints-verify-plan-01-01-"*" approve|refuse" ]] \
  || fail "the checkpoint line does not say what it waits for and how to answer: $line"
id=$(sed -n 's/.*harness-cli respond \(cp-[^ ]*\) approve|refuse.*/\1/p' <<<"$line")
[[ -n $id ]] || fail "no checkpoint id in: $line"
[[ $out == *"run_finished       : waiting_for_human after"* ]] || fail "run_finished: $out"
# The question is about the work as the run left it: its last commit, not the one when it asked.
grep -q "\"head\":\"$(cd "$p" && git rev-parse HEAD)\"" "$p/.orchestration/sessions/$id/checkpoint.json" \
  || fail "the checkpoint's head is not the run's last commit: $(cat "$p/.orchestration/sessions/$id/checkpoint.json")"
[[ $err == *"waiting: verify-plan:01-01 of SPC-009-checkpoints: verification of 01-01"*"harness-cli respond $id approve|refuse"* ]] || fail "stderr: $err"
[[ $err == *"then run harness-cli orchestrate $spec again"* ]] || fail "stderr does not say how to go on: $err"
[[ $out == *"task_succeeded      verify-plan:01-02"* ]] || fail "01-02 did not run while the checkpoint waited: $out"
[[ $out != *"task_started        execute:01-03"* ]] || fail "01-03 ran before 01-01 was approved"
grep -q 'waiting_for_human' "$p/$spec/STATUS.md" || fail "STATUS.md: $(head -5 "$p/$spec/STATUS.md")"
status=$(cd "$p" && "$cli" status "$spec")
[[ $status == *$'Waiting for your answer:\n  - verify-plan:01-01 of SPC-009-checkpoints: verification of 01-01: automated checks passed (2/2 checks passed) -- answer with: harness-cli respond '"$id"' approve|refuse'* ]] \
  || fail "status does not show the waiting checkpoint: $status"
[[ $status == *"plan 01-01: its checks passed; it waits for a person's answer (harness-cli respond --list)"* ]] \
  || fail "status does not say 01-01 waits for an answer: $status"
# The SUMMARY says so too: a phase report run by hand meanwhile does not pass over the question.
grep -q '^verification: human_needed$' "$p/$spec/execution/phases/01-core/01-01-SUMMARY.md" \
  || fail "01-01's SUMMARY: $(cat "$p/$spec/execution/phases/01-core/01-01-SUMMARY.md")"
rc=0; out=$(cd "$p" && "$cli" verify "$spec" --phase 01) || rc=$? # gaps: 01-03 has not run
[[ $rc -eq 1 && $out == *"human    01-01   approval                 01-01's checks passed and it needs a person's approval (harness-cli respond --list shows its checkpoint"* ]] \
  || fail "verify --phase by hand while 01-01's checkpoint waits: rc $rc: $out"
rm "$p/$spec/execution/phases/01-core/VERIFICATION.md"

# 2. No run alive: still listed (saying who reads the answer), over MCP too; answers are read as words.
list=$(cd "$p" && "$cli" respond --list)
[[ $list == "$id  SPC-009-checkpoints  verify-plan:01-01  verification of 01-01"*"(no orchestrate runs; the next one of SPC-009-checkpoints takes the answer when it reaches verify-plan:01-01 with commit "*" in its history)" ]] \
  || fail "respond --list: $list"
pending=$(mcp_call "$p" harness_get_pending '{}')
python3 - "$pending" "$id" <<'PY' || fail "harness_get_pending: $pending"
import json, sys
msgs = json.loads(sys.argv[1])["result"]["structuredContent"]["messages"]
assert len(msgs) == 1 and msgs[0]["message_id"] == sys.argv[2] and msgs[0]["type"] == "checkpoint", msgs
assert msgs[0]["payload"]["question"].startswith("verification of 01-01: automated checks passed"), msgs
PY
rc=0; err=$(cd "$p" && "$cli" respond "$id" perhaps 2>&1) || rc=$?
[[ $rc -eq 2 && $err == *"answer 'perhaps' is not approve or refuse"* ]] || fail "an unclear answer: rc $rc, $err"
rc=0; err=$(cd "$p" && "$cli" respond "" approve 2>&1) || rc=$? # `respond "$ID" approve` with $ID unset
[[ $rc -eq 2 && $err == *"the checkpoint ID is empty, so 'approve' answers nothing"* ]] || fail "an empty id: rc $rc, $err"
# A mistaken answer is replaced with --replace while no run can have read it, and only then.
(cd "$p" && "$cli" respond "$id" refuse --note "wrong one" >/dev/null) || fail "respond refuse exited $?"
rc=0; err=$(cd "$p" && "$cli" respond "$id" Approve 2>&1) || rc=$?
[[ $rc -eq 2 && $err == *"has an answer already (refuse: wrong one); the first answer stands: no run has read it yet, so \`harness-cli respond $id ANSWER --replace\` replaces it"* ]] \
  || fail "a second answer without --replace: rc $rc, $err"
out=$(cd "$p" && "$cli" respond "$id" Approve --note "looked at it" --replace) || fail "respond --replace exited $?"
[[ $out == "answered $id: approve (it replaces refuse, whose note was: wrong one)" ]] || fail "respond --replace: $out"
# --json: `answer` is the answer alone; the replaced one has its own field (review MM M2).
out=$(cd "$p" && "$cli" respond "$id" approve --note "looked at it" --replace --json) || fail "respond --replace --json exited $?"
[[ $out == "{\"id\":\"$id\",\"answer\":\"approve\",\"replaces\":{\"answer\":\"approve\",\"note\":\"looked at it\"}}" ]] ||
  fail "respond --replace --json: $out"
rc=0; err=$(cd "$p" && "$cli" respond --list --project "$tmp/no-such-dir" 2>&1) || rc=$?
[[ $rc -eq 2 && $err == *"--project $tmp/no-such-dir is not a directory"* ]] || fail "respond --list in a missing project: rc $rc, $err"
rc=0; err=$(cd "$p" && "$cli" respond --list --project "$p/docs" 2>&1) || rc=$? # a directory, not the project's root
[[ $rc -eq 2 && $err == *"--project $p/docs is not a project's root: it holds neither .git nor .orchestration"* ]] \
  || fail "respond --list in a subdirectory: rc $rc, $err"
[[ -z $(cd "$p" && "$cli" respond --list) ]] || fail "an answered checkpoint is still listed as pending"

# 3. The next run takes the answer: the same checkpoint, approved with the note, and the spec completes.
rc=0
(cd "$p" && timeout 120 "$cli" orchestrate "$spec" --worker script >"$tmp/resume.out" 2>&1 </dev/null) || rc=$?
out=$(cat "$tmp/resume.out")
[[ $rc -eq 0 ]] || fail "the resumed run exited $rc: $out"
[[ $(grep -c "checkpoint_opened" <<<"$out") -eq 1 && $out == *"($id: asked by an earlier run, answered since"* ]] \
  || fail "the resumed run did not take over $id: $out"
[[ $out == *"checkpoint_answered verify-plan:01-01: approved: looked at it"* ]] || fail "the answer was not taken: $out"
# The sign-off is in the plan's SUMMARY, which the run commits: not only in the ignored .orchestration/.
summary=$(ls "$p/$spec"/execution/phases/*/01-01-SUMMARY.md)
grep -q '^approved_by: ".*(harness-cli respond)"$' "$summary" && grep -q '^approval_note: "looked at it"$' "$summary" \
  || fail "01-01's SUMMARY does not record the approval: $(cat "$summary")"
[[ -z $(cd "$p" && git status --porcelain -- "$summary") ]] || fail "the SUMMARY with the approval is not committed"
[[ $out == *"task_succeeded      execute:01-03"* && $out == *"run_finished       : complete"* ]] || fail "not complete: $out"
[[ $out != *"ingest:"* ]] || fail "a checkpoint file was read as a worker report: $out"
rc=0; err=$(cd "$p" && "$cli" respond "$id" approve 2>&1) || rc=$?
[[ $rc -eq 2 && $err == *"checkpoint $id was answered already (approved by "*"(harness-cli respond))"* ]] || fail "answering twice: rc $rc, $err"

# 3b. The approved plan runs again (redo) and writes the same files: the new work's checkpoint is
# refused while no run is alive. The phase's and the final verification of the earlier work must
# not verify it: the next run takes the refusal and blocks the plan.
(cd "$p" && "$cli" redo "$spec" 01-01 >/dev/null) || fail "redo 01-01 exited $?"
rc=0
(cd "$p" && timeout 120 "$cli" orchestrate "$spec" --worker script >"$tmp/redo.out" 2>&1 </dev/null) || rc=$?
[[ $rc -eq 3 ]] || fail "the run after redo exited $rc, expected 3: $(cat "$tmp/redo.out")"
grep -q "^executed_since: \['01-01'\]" "$p/$spec"/execution/phases/*/VERIFICATION.md \
  || fail "the phase's report does not say 01-01 ran again: $(cat "$p/$spec"/execution/phases/*/VERIFICATION.md)"
grep -q "^executed_since: \['01-01'\]" "$p/$spec/execution/FINAL-VERIFICATION.md" || fail "the final report does not say 01-01 ran again"
[[ -z $(cd "$p" && git status --porcelain -- "$spec") ]] || fail "the marks are not committed: $(cd "$p" && git status --porcelain)"
# ...and committed before the new SUMMARY: a clone after a crash never holds one without the other.
log=$(cd "$p" && git log --format=%s -3)
[[ $log == *"docs(01-01): summary"*"01-01 runs again: the reports of its earlier work no longer hold"* ]] \
  || fail "the marks were not committed before the new SUMMARY: $log"
id=$(cd "$p" && "$cli" respond --list | awk '{print $1; exit}')
[[ -n $id ]] || fail "no checkpoint for the new work: $(cat "$tmp/redo.out")"
(cd "$p" && "$cli" respond "$id" refuse --note "not this" >/dev/null) || fail "respond refuse exited $?"
rc=0
(cd "$p" && timeout 120 "$cli" orchestrate "$spec" --worker script >"$tmp/refused.out" 2>&1 </dev/null) || rc=$?
out=$(cat "$tmp/refused.out")
[[ $rc -eq 1 && $out == *"task_blocked        verify-plan:01-01: refused by a human: not this"* ]] || fail "the refusal was not taken: rc $rc: $out"
[[ $out != *"expired"* ]] || fail "the refused checkpoint expired: $out"
status=$(cd "$p" && "$cli" status "$spec")
[[ $status == *"2/3 plans verified"* && $status == *"its report no longer holds: 01-01 executed again since"* ]] \
  || fail "status after the refusal: $status"
# The phase verified by hand now, every other plan verified: the refused plan is not verified by it.
rc=0; out=$(cd "$p" && "$cli" verify "$spec" --phase 01) || rc=$?
[[ $rc -eq 3 && $out == *"human    01-01   approval                 01-01 was refused by "*": not this: it is verified once a person approves it"* ]] \
  || fail "verify --phase by hand after the refusal: rc $rc: $out"
status=$(cd "$p" && "$cli" status "$spec")
[[ $status == *"2/3 plans verified"* && $status == *"plan 01-01: its checks passed; refused by "*": not this: the next orchestrate asks again"* ]] \
  || fail "status after verify --phase by hand: $status"

# 3c. The refusal lasts: the SUMMARY records it, the next run asks again naming it, and --yes
# does not approve over it. An approval given between runs for work changed since (a commit to the
# plan's file) is not taken: asked again.
grep -q '^refusal_note: "not this"$' "$p/$spec"/execution/phases/*/01-01-SUMMARY.md || fail "the refusal is not in the SUMMARY"
rc=0
(cd "$p" && timeout 120 "$cli" orchestrate "$spec" --worker script --yes >"$tmp/yes.out" 2>&1 </dev/null) || rc=$?
out=$(cat "$tmp/yes.out")
[[ $rc -eq 3 && $out == *"--yes does not answer it: a person refused this plan's work before"* ]] || fail "--yes over a refusal: rc $rc: $out"
[[ $out == *"checkpoint_opened   verify-plan:01-01: verification of 01-01: automated checks passed (2/2 checks passed); refused before by "*": not this -- answer with"* ]] \
  || fail "the question does not name the refusal: $out"
id=$(cd "$p" && "$cli" respond --list | awk '{print $1; exit}')
(cd "$p" && "$cli" respond "$id" approve >/dev/null) || fail "respond approve exited $?"
(cd "$p" && echo "changed by hand" >out/01-01.txt && git commit -qam "fix 01-01 by hand")
rc=0
(cd "$p" && timeout 120 "$cli" orchestrate "$spec" --worker script >"$tmp/changed.out" 2>&1 </dev/null) || rc=$?
out=$(cat "$tmp/changed.out")
[[ $rc -eq 3 && $out == *"checkpoint $id of an earlier run expired: the plan or its files changed since it asked"*"(approved) was about other work: asked again"* ]] \
  || fail "an approval of changed work was taken: rc $rc: $out"
id=$(cd "$p" && "$cli" respond --list | awk '{print $1; exit}')
(cd "$p" && "$cli" respond "$id" approve --note "the hand fix is right" >/dev/null) || fail "respond approve exited $?"
rc=0
(cd "$p" && timeout 120 "$cli" orchestrate "$spec" --worker script >"$tmp/approved.out" 2>&1 </dev/null) || rc=$?
[[ $rc -eq 0 ]] || fail "the run after the approval exited $rc: $(cat "$tmp/approved.out")"
grep -q '^approval_note: "the hand fix is right"$' "$p/$spec"/execution/phases/*/01-01-SUMMARY.md || fail "the approval is not in the SUMMARY"
[[ $(cd "$p" && "$cli" status "$spec") == *"3/3 plans verified"* ]] || fail "status after the approval: $(cd "$p" && "$cli" status "$spec")"

# 4. Killed while the checkpoint waits (01-02 keeps the run busy): the checkpoint outlives the run.
p=$tmp/killed
new_project "$p"
(cd "$p" && SLOW_0102=1 exec "$cli" orchestrate "$spec" --worker script --json >"$tmp/killed.jsonl" 2>&1 </dev/null) &
orch=$!
id=$(wait_for_checkpoint)
[[ -n $id ]] || { cat "$tmp/killed.jsonl" >&2; fail "no checkpoint while the run was alive"; }
kill -0 "$orch" 2>/dev/null || fail "the run ended before it could be killed: $(tail -3 "$tmp/killed.jsonl")"
kill -KILL "$orch"
wait "$orch" 2>/dev/null || true
orch=
list=$(cd "$p" && "$cli" respond --list)
[[ $list == "$id  SPC-009-checkpoints  verify-plan:01-01  "*"(no orchestrate runs; the next one of SPC-009-checkpoints takes the answer"* ]] || fail "after kill -9: $list"
# Its slow worker goes on: status names it, and does not offer its plan as ready.
status=$(cd "$p" && "$cli" status "$spec")
[[ $status == *"workers a killed run left running: execute:01-02 (pid "*") (they go on and commit; the next orchestrate stops them)"* ]] \
  || fail "status after kill -9 does not name the worker left running: $status"
[[ $status != *"01-02"*"(ready)"* ]] || fail "status offers the plan a left worker runs as ready: $status"
[[ $(cd "$p" && "$cli" status "$spec" --json) == *'"left_running":["execute:01-02 (pid '* ]] || fail "status --json: no left_running"
out=$(mcp_call "$p" harness_respond "{\"message_id\":\"$id\",\"response\":{\"verdict\":\"rejected\",\"feedback\":\"not like this\"}}")
[[ $out == *'"responded":true'* ]] || fail "harness_respond: $out"
rc=0
(cd "$p" && timeout 120 "$cli" orchestrate "$spec" --worker script >"$tmp/after-kill.out" 2>&1 </dev/null) || rc=$?
out=$(cat "$tmp/after-kill.out")
[[ $rc -eq 1 ]] || fail "a run whose checkpoint was refused exited $rc, expected 1 (blocked): $out"
[[ $out == *"($id: asked by an earlier run, answered since"* ]] || fail "not taken over: $out"
[[ $out == *"task_blocked        verify-plan:01-01: refused by a human: not like this"* ]] || fail "the refusal was not taken: $out"
[[ $out == *"stopping 1 worker an earlier run left running (up to 5 s)"*"stopped a worker left running by an earlier run"* ]] ||
  fail "the killed run's slow worker was not announced and stopped: $out"
[[ $out != *"ingest:"* ]] || fail "ingest notes: $out"

# 4b. Refused while the run goes on (01-02 keeps it busy): start-session of the refused plan says
# what reopens it, instead of "is done".
p=$tmp/refused-live
new_project "$p"
(cd "$p" && SLOW_0102=1 exec "$cli" orchestrate "$spec" --worker script >"$tmp/refused-live.out" 2>&1 </dev/null) &
orch=$!
id=$(wait_for_checkpoint)
[[ -n $id ]] || { cat "$tmp/refused-live.out" >&2; fail "no checkpoint while the run was alive"; }
(cd "$p" && "$cli" respond "$id" refuse --note "wrong" >/dev/null) || fail "respond refuse exited $?"
for _ in $(seq 1 100); do grep -q 'task_blocked        verify-plan:01-01' "$tmp/refused-live.out" && break; sleep 0.1; done
rc=0; err=$(cd "$p" && "$cli" start-session 01-01 2>&1) || rc=$?
[[ $rc -eq 1 && $err == *"execute:01-01 has run, and its verification is blocked (refused by a human: wrong): the next orchestrate verifies it again (and asks again), or harness-cli redo $spec 01-01 runs the plan again"* ]] \
  || fail "start-session of a refused plan: rc $rc: $err"
kill -KILL "$orch" # 01-02 would sleep again in its retry
wait "$orch" 2>/dev/null || true
orch=
pkill -KILL -f "sleep $SLOW" 2>/dev/null || true

# 4c. Approved while the run goes on, and the run killed before the approval reached the SUMMARY
# (one slot, held by 01-02: the approved verification waits for it): the next run takes the
# approval, and nobody is asked twice.
p=$tmp/approved-live
new_project "$p"
(cd "$p" && SLOW_0102=1 exec "$cli" orchestrate "$spec" --worker script --slots 1 >"$tmp/approved-live.out" 2>&1 </dev/null) &
orch=$!
id=$(wait_for_checkpoint)
[[ -n $id ]] || { cat "$tmp/approved-live.out" >&2; fail "no checkpoint while the run was alive"; }
(cd "$p" && "$cli" respond "$id" approve --note "fine" >/dev/null) || fail "respond approve exited $?"
for _ in $(seq 1 100); do grep -q 'checkpoint_answered verify-plan:01-01' "$tmp/approved-live.out" && break; sleep 0.1; done
grep -q 'checkpoint_answered verify-plan:01-01' "$tmp/approved-live.out" || fail "the run did not read the answer: $(cat "$tmp/approved-live.out")"
kill -KILL "$orch"
wait "$orch" 2>/dev/null || true
orch=
pkill -KILL -f "sleep $SLOW" 2>/dev/null || true
grep -q '^verification: human_needed$' "$p/$spec/execution/phases/01-core/01-01-SUMMARY.md" \
  || fail "the killed run marked 01-01 already (the test kills too late): $(cat "$p/$spec/execution/phases/01-core/01-01-SUMMARY.md")"
rc=0
(cd "$p" && timeout 120 "$cli" orchestrate "$spec" --worker script >"$tmp/approved-after.out" 2>&1 </dev/null) || rc=$?
out=$(cat "$tmp/approved-after.out")
[[ $rc -eq 0 ]] || fail "the run after an approval its killed predecessor read exited $rc (asked again?): $out"
[[ $out == *"($id: asked by an earlier run, answered since: taking that answer)"* && $out != *"respond $id approve|refuse"* ]] \
  || fail "the approval was not taken over: $out"
grep -q '^approval_note: "fine"$' "$p/$spec/execution/phases/01-core/01-01-SUMMARY.md" \
  || fail "the approval is not in the SUMMARY: $(cat "$p/$spec/execution/phases/01-core/01-01-SUMMARY.md")"
[[ -z $(cd "$p" && "$cli" respond --list) ]] || fail "a checkpoint is listed after the run: $(cd "$p" && "$cli" respond --list)"
[[ -f $p/.orchestration/sessions/$id/checkpoint.answered.json ]] || fail "the approval's checkpoint was not closed: $(ls "$p/.orchestration/sessions/$id")"

# 5. A phase that needs a person (a visual_quality check): --yes does not answer for them, and the
# line says which check a person must look at and what approving does.
p=$tmp/human
new_project "$p" "  - {id: looks, type: visual_quality, description: 'the list looks tidy on a phone'}"
rc=0
(cd "$p" && timeout 120 "$cli" orchestrate "$spec" --worker script --yes >"$tmp/human.out" 2>&1 </dev/null) || rc=$?
out=$(cat "$tmp/human.out")
[[ $rc -eq 3 ]] || fail "a phase waiting for a person exited $rc, expected 3: $out"
line=$(grep "checkpoint_opened   verify-phase:01" <<<"$out") || fail "no checkpoint for phase 01: $out"
[[ $line == *": phase 01 verification: human_needed ("*"); a person must check (execution/phases/01-core/VERIFICATION.md): 01-02 looks: the list looks tidy on a phone; approve to count the phase as verified, refuse to block it -- answer with: harness-cli respond cp-SPC-009-checkpoints-verify-phase-01-"*" approve|refuse" ]] \
  || fail "the phase checkpoint line: $line"

# 6. A worker's question outlives neither its worker nor its run.
cat >"$tmp/asker.py" <<'PY'
# A worker for `--worker command`: execute:01-01 asks a question over MCP (harness-mcp --worker)
# and waits for the answer; then, like every other task, the script worker does the plan's work.
import json, os, subprocess, sys
sys.path.insert(0, os.environ["HARNESS_TEST_LIB"])
from mcp_worker import McpWorker
mcp, cli = sys.argv[1:3]
if os.environ.get("HARNESS_TASK_ID") == "execute:01-01":
    w = McpWorker(mcp)
    asked = w.tool("harness_worker_report", {"type": "decision_needed",
                                             "payload": {"question": "Keep the output in out/?", "options": ["yes", "no"]}})
    answer = w.tool("harness_worker_await", {"message_id": asked["message_id"], "timeout_seconds": 120})
    print("answered:", json.dumps(answer), flush=True)
    w.close()
sys.exit(subprocess.run([cli, "script-worker"]).returncode)
PY
p=$tmp/asked
new_project "$p"
worker=(--worker command --command "python3 $tmp/asker.py {harness_mcp} {harness_cli}" --yes)
wait_for_question() { wait_for_checkpoint execute:01-01; }
(cd "$p" && exec "$cli" orchestrate "$spec" "${worker[@]}" >"$tmp/asked1.out" 2>&1 </dev/null) &
orch=$!
old=$(wait_for_question)
[[ -n $old ]] || { cat "$tmp/asked1.out" >&2; fail "the worker's question never became a checkpoint"; }
kill -KILL "$orch"
wait "$orch" 2>/dev/null || true
orch=
[[ -z $(cd "$p" && "$cli" respond --list) ]] || fail "a dead worker's question is listed: $(cd "$p" && "$cli" respond --list)"
rc=0; err=$(cd "$p" && "$cli" respond "$old" approve 2>&1) || rc=$?
[[ $rc -eq 2 && $err == *"checkpoint $old is stale: the run that opened it has ended and the worker that asked ended with it"* ]] \
  || fail "answering a dead worker's question: rc $rc, $err"
(cd "$p" && exec "$cli" orchestrate "$spec" "${worker[@]}" >"$tmp/asked2.out" 2>&1 </dev/null) &
orch=$!
new=$(wait_for_question)
[[ -n $new && $new != "$old" ]] || { cat "$tmp/asked2.out" >&2; fail "the next run's worker did not ask again"; }
rc=0; err=$(cd "$p" && "$cli" respond "$old" approve 2>&1) || rc=$?
[[ $rc -eq 2 && $err == *"checkpoint $old has expired"*"execute:01-01 waits on checkpoint $new now: harness-cli respond $new yes|no|refuse"* ]] \
  || fail "the old question does not name the new one: rc $rc, $err"
(cd "$p" && "$cli" respond "$new" yes >/dev/null) || fail "respond to the live question exited $?"
rc=0; wait "$orch" || rc=$?
orch=
[[ $rc -eq 0 ]] || fail "the run after the answer exited $rc: $(tail -5 "$tmp/asked2.out")"
grep -q 'answered: {"message_id"' "$p/.orchestration/sessions/execute-01-01-a1-"*/output.log || fail "the worker never got the answer"

# 7. The same question answered, and the run killed right after `respond` returned (before it
# could pass the answer on): the answer is not lost; the next run's worker gets it at once.
p=$tmp/answered
new_project "$p"
(cd "$p" && exec "$cli" orchestrate "$spec" "${worker[@]}" >"$tmp/answered1.out" 2>&1 </dev/null) &
orch=$!
id=$(wait_for_question)
[[ -n $id ]] || { cat "$tmp/answered1.out" >&2; fail "the worker's question never became a checkpoint"; }
(cd "$p" && "$cli" respond "$id" yes >/dev/null) || fail "respond yes exited $?"
kill -KILL "$orch"
wait "$orch" 2>/dev/null || true
orch=
rc=0
(cd "$p" && timeout 120 "$cli" orchestrate "$spec" "${worker[@]}" >"$tmp/answered2.out" 2>&1 </dev/null) || rc=$?
out=$(cat "$tmp/answered2.out")
[[ $rc -eq 0 ]] || fail "the run after the answered kill exited $rc (the person asked again?): $out"
[[ $out != *"checkpoint_opened   execute:01-01"*"-- answer with"* || $out == *"answered since: taking that answer"* ]] \
  || fail "the answer given before the kill was not taken: $out"
grep -q 'answered: {"message_id"' "$p/.orchestration/sessions/execute-01-01-"*/output.log || fail "no worker got the answer"

# 8. A checkpoint left open by one run, approved by the next one's --yes: answering it later says
# who answered it.
p=$tmp/yes-later
new_project "$p"
rc=0
(cd "$p" && timeout 120 "$cli" orchestrate "$spec" --worker script >"$tmp/yes1.out" 2>&1 </dev/null) || rc=$?
[[ $rc -eq 3 ]] || fail "the first run exited $rc: $(cat "$tmp/yes1.out")"
id=$(cd "$p" && "$cli" respond --list | awk '{print $1; exit}')
rc=0
(cd "$p" && timeout 120 "$cli" orchestrate "$spec" --worker script --yes >"$tmp/yes2.out" 2>&1 </dev/null) || rc=$?
[[ $rc -eq 0 ]] || fail "the --yes run exited $rc: $(cat "$tmp/yes2.out")"
rc=0; err=$(cd "$p" && "$cli" respond "$id" refuse 2>&1) || rc=$?
[[ $rc -eq 2 && $err == *"checkpoint $id was answered already (approved by orchestrate --yes (its checks passed))"* ]] \
  || fail "answering what --yes approved: rc $rc, $err"

echo "orchestrate checkpoints: all checks passed"
