#!/usr/bin/env bash
# A deliberately broken worker for `orchestrate --worker command`: what it does depends on the plan
# it is given and on how many times it has been started for that plan (counted in $FAULT_DIR).
#   01-01 crash   : first attempt dies of SIGSEGV before reporting anything; then works
#   01-02 hang    : first attempt starts a child and sleeps silently (idle timeout); then works
#   01-03 garbage : binary noise and a 200 KB line without newline on stdout, then works
#   01-04 liar    : reports task_completed (file transport) without SUMMARY or commits, every time
#   01-05 stray   : does the work, writes its SUMMARY and commits it, but the commit's Spec trailer
#                   names another spec, every time
#   01-06 mute    : says why on stderr and exits 4 without a report, every time
#   01-07 sloppy  : first attempt does the work and commits a SUMMARY saying `status: done` (not
#                   a status: H017); then works
#   01-08 misnamed: first attempt does the work and commits a SUMMARY whose plan_id names 01-01
#                   (H006); then works (the script adapter finds the task committed)
#   01-09 quitter : does the work (the real script worker: its task and SUMMARY committed), then
#                   reports task_failed over it and exits 1, every time
#   01-10 late quitter: the same, but then sleeps instead of exiting (its run is killed -9 meanwhile)
# Working = `harness-cli script-worker`, the real script adapter.
# argv: <harness-cli>
set -u
cli=$1
plan=${HARNESS_TASK_ID#execute:}
n=$(( $(cat "$FAULT_DIR/$plan" 2>/dev/null || echo 0) + 1 ))
echo $n >"$FAULT_DIR/$plan"
# The work done by hand, committed with this spec's trailers, its SUMMARY saying status $1 and plan_id $2.
work_with_summary() {
  cd "$HARNESS_PROJECT"
  mkdir -p out && echo "$plan" >"out/$plan.txt"
  local d=$HARNESS_SPEC_DIR/execution/phases/01-core
  mkdir -p "$d"
  printf -- '---\nplan_id: "%s"\nstatus: %s\ncommits: []\nfiles_touched: [out/%s.txt]\ndeviations: []\n---\n# %s\n' \
    "$2" "$1" "$plan" "$plan" >"$d/$plan-SUMMARY.md"
  flock "$HARNESS_STATE_DIR/git.lock" sh -c "git add out/$plan.txt '$d/$plan-SUMMARY.md' &&
    git commit -q -m 'feat($plan): write' -m 'Plan: $plan, Task: 1/1' -m 'Spec: SPC-007-faults'"
  report_completed
}
report_completed() {
  local sessions=$HARNESS_STATE_DIR/sessions/$HARNESS_SESSION_ID
  mkdir -p "$sessions"
  printf '{"sessionId":"%s","token":"%s","timestamp":"2026-01-01T00:00:00.000Z","status":"completed","summaryPath":"x","commits":[],"filesTouched":[]}' \
    "$HARNESS_SESSION_ID" "$HARNESS_TOKEN" >"$sessions/result.json.tmp"
  mv "$sessions/result.json.tmp" "$sessions/result.json"
  exit 0
}
case "$plan:$n" in
  01-01:1) kill -SEGV $$ ;;
  01-02:1) sleep "$FAULT_SLEEP" & wait ;;
  01-03:*) head -c 65536 /dev/urandom; printf '\n\377\376 not json {{{\n'; head -c 200000 /dev/zero | tr '\0' x ;;
  01-04:*)
    sessions=$HARNESS_STATE_DIR/sessions/$HARNESS_SESSION_ID
    mkdir -p "$sessions"
    printf '{"sessionId":"%s","token":"%s","timestamp":"2026-01-01T00:00:00.000Z","status":"completed","summaryPath":"nowhere/SUMMARY.md","commits":["0000000"],"filesTouched":[]}' \
      "$HARNESS_SESSION_ID" "$HARNESS_TOKEN" >"$sessions/result.json.tmp"
    mv "$sessions/result.json.tmp" "$sessions/result.json"
    exit 0 ;;
  01-06:*) echo "fault worker: cannot reach the model API" >&2; exit 4 ;;
  01-09:*|01-10:*)
    "$cli" script-worker || exit $?
    sessions=$HARNESS_STATE_DIR/sessions/$HARNESS_SESSION_ID
    printf '{"sessionId":"%s","token":"%s","timestamp":"2026-01-01T00:00:00.000Z","status":"failed","error":"the tests of task 1 fail"}' \
      "$HARNESS_SESSION_ID" "$HARNESS_TOKEN" >"$sessions/result.json.tmp"
    mv "$sessions/result.json.tmp" "$sessions/result.json"
    [[ $plan == 01-09 ]] && exit 1
    touch "$FAULT_DIR/01-10.waiting"
    sleep "$FAULT_SLEEP" & wait
    exit 1 ;;
  01-05:*)
    cd "$HARNESS_PROJECT"
    mkdir -p out && echo 01-05 >out/01-05.txt
    d=$HARNESS_SPEC_DIR/execution/phases/01-core
    mkdir -p "$d"
    printf -- '---\nplan_id: "01-05"\nstatus: complete\ncommits: []\nfiles_touched: [out/01-05.txt]\ndeviations: []\n---\n# 01-05\n' >"$d/01-05-SUMMARY.md"
    # under the harness's repository lock, as the script workers committing beside it
    flock "$HARNESS_STATE_DIR/git.lock" sh -c "git add out/01-05.txt '$d/01-05-SUMMARY.md' &&
      git commit -q -m 'feat(01-05): write' -m 'Plan: 01-05, Task: 1/1' -m 'Spec: SPC-999-elsewhere'"
    report_completed ;;
  01-07:1) work_with_summary done 01-07 ;;
  01-08:1) work_with_summary complete 01-01 ;;
esac
exec "$cli" script-worker
