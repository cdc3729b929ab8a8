#!/usr/bin/env bash
# PLAN files edited, added and removed while a run goes on (script worker, real git): the run
# notices before it starts anything else, takes a plan that has not started as it is now written,
# and says so. Plans wait on files the test creates, so each edit lands while a known plan runs.
#  1. A pending plan edited to write what a running plan writes does not start beside it, and
#     each plan's commits hold only its own files.
#  2. A dependency added is waited for, a removed plan is dropped, an added plan joins its phase,
#     an edit of the running plan is for its next attempt; `status` afterwards lists no blocker.
#  3. A plan whose file stops validating is held: run once fixed, or blocked as held at the end.
set -euo pipefail
cli=${HARNESS_CLI:?}
src=${HARNESS_SOURCE_DIR:?}
source "$src/tests/integration/lib/project.sh"
project_tmp
spec=docs/specs/SPC-001-edits

# plan DIR ID ESTIMATE FILES DEPS [SHELL]: writes DIR's plan ID (core_plan: through a rename, as
# editors do), whose task runs SHELL before it writes out/ID.txt.
plan() { core_plan "$1/$spec" "$2" "$5" "$4" "$3" "${6:-}"; }
# waits (inside a plan's shell block) for the test to create FILE
wait_for() { echo "for i in \$(seq 1 1200); do [ -e $1 ] && break; sleep 0.05; done; [ -e $1 ]"; }
project() {
  mkdir -p "$1/$spec"
  printf '# Edits\n\nPlans edited while the run goes on.\n' >"$1/$spec/SPEC.md"
}
commit() { (cd "$1" && git init -q && git add -A && git commit -qm init); }
start() { # DIR LOG SLOTS: orchestrate in the background; pid in $run
  (cd "$1" && exec timeout 120 "$cli" orchestrate "$spec" --worker script --yes --slots "$3" >"$2" 2>&1 </dev/null) &
  run=$!
}
await() { # FILE [TEXT]: waits up to 30 s for FILE (to hold TEXT)
  for _ in $(seq 1 600); do
    if [[ -e $1 ]] && { [[ -z ${2:-} ]] || grep -qF -- "$2" "$1"; }; then return 0; fi
    sleep 0.05
  done
  fail "waited in vain for $1 ${2:+to say '$2'}: $(cat "${log:-/dev/null}" 2>/dev/null)"
}
await_re() { # FILE REGEX: waits up to 30 s for a line of FILE to match REGEX
  for _ in $(seq 1 600); do grep -qE -- "$2" "$1" 2>/dev/null && return 0; sleep 0.05; done
  fail "waited in vain for $1 to match '$2': $(cat "$1")"
}
line_of() { grep -nE -- "$2" "$1" | head -1 | cut -d: -f1; }

# 1. 01-03 writes shared/ and runs until go-03; 01-02 runs until go-02; 01-01 waits for a slot.
p=$tmp/p1
project "$p"
plan "$p" 01-03 50 "['out/01-03.txt', 'shared/**']" "[]" \
  "mkdir -p shared && echo from-01-03 > shared/x.txt && touch $tmp/started-03 && $(wait_for "$tmp/go-03")"
plan "$p" 01-02 40 "['out/01-02.txt']" "[]" "touch $tmp/started-02 && $(wait_for "$tmp/go-02")"
plan "$p" 01-01 5 "['out/01-01.txt']" "[]"
commit "$p"
log=$tmp/run1.log
start "$p" "$log" 2
await "$tmp/started-03"
await "$tmp/started-02"
# The person decides 01-01 writes shared/ too, and 01-02 ends at once: its slot frees.
plan "$p" 01-01 5 "['out/01-01.txt', 'shared/**']" "[]" "mkdir -p shared && echo from-01-01 > shared/y.txt"
touch "$tmp/go-02"
await "$log" "01-01-PLAN.md changed during the run: re-read (now writes out/01-01.txt, shared/**)"
await_re "$log" "task_succeeded +verify-plan:01-02"
sleep 0.5 # time enough for a start that must not come
if grep -qE "task_started +execute:01-01" "$log"; then fail "01-01 started beside 01-03, which writes shared/ too: $(cat "$log")"; fi
touch "$tmp/go-03"
rc=0
wait "$run" || rc=$?
[[ $rc -eq 0 ]] || fail "run 1 exit $rc: $(cat "$log")"
(( $(line_of "$log" "task_succeeded +execute:01-03") < $(line_of "$log" "task_started +execute:01-01") )) \
  || fail "01-01 started before 01-03 ended: $(cat "$log")"
files_of() { (cd "$p" && git log --format= --name-only --fixed-strings --grep "Plan: $1" | grep -v '^docs/' | sort -u | tr '\n' ' '); }
[[ $(files_of 01-01) == "out/01-01.txt shared/y.txt " ]] || fail "01-01's commits: $(files_of 01-01)"
[[ $(files_of 01-03) == "out/01-03.txt shared/x.txt " ]] || fail "01-03's commits: $(files_of 01-03)"

# 2. One slot; 01-03 runs until go-b. Without the edits the order would be 01-04, 01-02, 01-01.
p=$tmp/p2
project "$p"
plan "$p" 01-03 50 "['out/01-03.txt']" "[]" "touch $tmp/started-b && $(wait_for "$tmp/go-b")"
plan "$p" 01-04 40 "['out/01-04.txt']" "[]"
plan "$p" 01-02 30 "['out/01-02.txt']" "[]"
plan "$p" 01-01 10 "['out/01-01.txt']" "[]"
commit "$p"
log=$tmp/run2.log
start "$p" "$log" 1
await "$tmp/started-b"
plan "$p" 01-04 40 "['out/01-04.txt']" "['01-01']"
(cd "$p" && git rm -q "$spec/planning/plans/01-core/01-02-PLAN.md")
plan "$p" 01-05 20 "['out/01-05.txt']" "[]"
plan "$p" 01-03 50 "['out/01-03.txt']" "[]" "touch $tmp/started-b && $(wait_for "$tmp/go-b") && echo again"
await "$log" "01-05 added during the run: joins phase 01"
touch "$tmp/go-b"
rc=0
wait "$run" || rc=$?
[[ $rc -eq 0 ]] || fail "run 2 exit $rc: $(cat "$log")"
for note in "01-04-PLAN.md changed during the run: re-read (now depends on 01-01)" \
  "01-02 removed during the run: dropped" \
  "01-03-PLAN.md changed during the run: 01-03 is running as it started (and is checked so in this run); the edit applies to its work if it runs again"; do
  grep -qF -- "$note" "$log" || fail "no note '$note': $(cat "$log")"
done
if grep -qE "execute:01-02" <(grep -E "task_(started|blocked)" "$log"); then fail "the removed 01-02 ran or blocked: $(cat "$log")"; fi
(( $(line_of "$log" "task_succeeded +verify-plan:01-01") < $(line_of "$log" "task_started +execute:01-04") )) \
  || fail "01-04 started before its new dependency 01-01 was verified: $(cat "$log")"
grep -qE "task_succeeded +execute:01-05" "$log" || fail "the added 01-05 did not run: $(cat "$log")"
# The run took a PLAN file nobody committed: said at its end, as a run's start says it.
grep -qF "added during the run: the spec's own files are not committed: 1 of its" "$log" \
  || fail "the uncommitted added PLAN file is not named at the end: $(cat "$log")"
status=$(cd "$p" && "$cli" status "$spec")
[[ $status != *"blocked by the last run"* ]] || fail "status lists a blocker: $status"

# 3. One slot; 01-01 runs until go-c. 01-02 and 01-03 stop validating; 01-02 is fixed meanwhile.
p=$tmp/p3
project "$p"
plan "$p" 01-01 50 "['out/01-01.txt']" "[]" "touch $tmp/started-c && $(wait_for "$tmp/go-c")"
plan "$p" 01-02 20 "['out/01-02.txt']" "[]"
plan "$p" 01-03 10 "['out/01-03.txt']" "[]"
commit "$p"
log=$tmp/run3.log
start "$p" "$log" 1
await "$tmp/started-c"
plan "$p" 01-02 20 "['out/01-02.txt']" "['01-99']"
plan "$p" 01-03 10 "['out/01-03.txt']" "['01-98']"
await "$log" "01-02-PLAN.md changed during the run and does not validate: planning/plans/01-core/01-02-PLAN.md:3:14: error[H007]: depends_on names unknown plan '01-99'; 01-02 is held until the file is fixed"
await "$log" "01-03-PLAN.md changed during the run and does not validate"
plan "$p" 01-02 20 "['out/01-02.txt']" "[]"
await "$log" "01-02-PLAN.md was fixed during the run: re-read"
touch "$tmp/go-c"
rc=0
wait "$run" || rc=$?
[[ $rc -eq 1 ]] || fail "run 3 exit $rc (expected blocked): $(cat "$log")"
grep -qE "task_succeeded +execute:01-02" "$log" || fail "the fixed 01-02 did not run: $(cat "$log")"
if grep -qE "task_started +execute:01-03" "$log"; then fail "01-03 ran with errors in its file: $(cat "$log")"; fi
grep -qE "task_blocked +execute:01-03.*held: its PLAN file does not validate since the run read it" "$log" \
  || fail "01-03 not blocked as held: $(cat "$log")"
echo PASS
