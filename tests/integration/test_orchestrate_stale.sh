#!/usr/bin/env bash
# What the spec's documents say is done must hold for the plans there are now, for `orchestrate`
# and `status` alike (script worker, real git):
#   1. A plan added to a phase that passed its verification is executed; the phase and the final
#      verification run again and cover it; status agrees before and after.
#   2. A phase added to a finished spec: its plan runs, and the final verification runs again.
#   3. A SUMMARY removed (the user wants the plan done again): the plan runs again (its committed
#      tasks are not repeated), then its phase and the final are verified again.
#   4. Plans all verified, the phase and final verifications never run (a killed run): status says
#      what is left; orchestrate runs exactly those.
set -euo pipefail
cli=${HARNESS_CLI:?}
src=${HARNESS_SOURCE_DIR:?}
source "$src/tests/integration/lib/project.sh"
project_tmp
spec=docs/specs/SPC-001-stale
p=$tmp/p
s=$p/$spec
mkdir -p "$s"
printf '# Stale\n\nTwo phases of two plans.\n' >"$s/SPEC.md"
phase_plan "$s" 01-01
phase_plan "$s" 01-02
phase_plan "$s" 02-01 "['01-01']"
phase_plan "$s" 02-02 "['01-02']"
(cd "$p" && git init -q && git add -A && git commit -qm init)

run() { # log name -> the run's output in $out, its exit code in $rc
  rc=0
  (cd "$p" && timeout 120 "$cli" orchestrate "$spec" --worker script --yes >"$tmp/$1.out" 2>&1 </dev/null) || rc=$?
  out=$(cat "$tmp/$1.out")
}
status() { (cd "$p" && "$cli" status "$spec"); }
started() { grep -o 'task_started  *[^ ]*' <<<"$out" | awk '{print $2}' | sort | tr '\n' ' '; }
covers() { # file -> the plans its frontmatter says it covered
  sed -n "s/^plans: \[\(.*\)\]$/\1/p" "$1" | tr -d "' "
}

run first
[[ $rc -eq 0 && $out == *"run_finished       : complete"* ]] || fail "the first run: $out"
[[ $(covers "$s/execution/FINAL-VERIFICATION.md") == "01-01,01-02,02-01,02-02" ]] || fail "final covers: $(head -8 "$s/execution/FINAL-VERIFICATION.md")"

# 1. A plan added to the verified phase 01.
phase_plan "$s" 01-03
(cd "$p" && git add -A && git commit -qm "add 01-03")
st=$(status)
[[ $st == *"4/5 plans verified"* && $st != *complete* && $st == *"Ready now: 01-03"* ]] || fail "status after adding 01-03: $st"
[[ $st == *"  - phase 01: again, its report no longer holds: 01-03 added since"* ]] || fail "status does not say phase 01 is verified again: $st"
[[ $st == *"  - final: again, its report no longer holds: 01-03 added since"* ]] || fail "status does not say the final runs again: $st"
[[ $(grep '^Phase 01' <<<"$st") == *"executing"* ]] || fail "phase 01 still reads as verified: $st"
run added-plan
[[ $rc -eq 0 && $out == *"run_finished       : complete"* ]] || fail "the run after adding 01-03: rc $rc: $out"
[[ $(started) == "execute:01-03 final verify-phase:01 verify-plan:01-03 " ]] || fail "tasks run after adding 01-03: $(started)"
[[ -f $p/out/01-03.txt ]] || fail "01-03 never wrote its file"
[[ $(covers "$s/execution/phases/01-p01/VERIFICATION.md") == "01-01,01-02,01-03" ]] || fail "phase 01's report does not cover 01-03"
[[ $(covers "$s/execution/FINAL-VERIFICATION.md") == "01-01,01-02,01-03,02-01,02-02" ]] || fail "the final does not cover 01-03"
st=$(status)
[[ $st == "SPC-001-stale: 5/5 plans verified (100%), 5 executed, complete"* && $st != *"Verifications to run"* ]] || fail "status after the run: $st"
grep -q '^\*\*complete\*\* — 5/5 plans verified' "$s/STATUS.md" || fail "STATUS.md: $(cat "$s/STATUS.md")"
[[ -z $(cd "$p" && git status --porcelain) ]] || fail "left uncommitted: $(cd "$p" && git status --porcelain)"

# 2. A phase added to the finished spec.
phase_plan "$s" 03-01 "['02-01']"
(cd "$p" && git add -A && git commit -qm "phase 03")
[[ $(status) == *"  - final: again, its report no longer holds: 03-01 added since"* ]] || fail "status after adding phase 03: $(status)"
run added-phase
[[ $rc -eq 0 && $(started) == "execute:03-01 final verify-phase:03 verify-plan:03-01 " ]] || fail "after adding phase 03: rc $rc, $(started): $out"
[[ $(covers "$s/execution/FINAL-VERIFICATION.md") == "01-01,01-02,01-03,02-01,02-02,03-01" ]] || fail "the final does not cover 03-01"
[[ $(status) == *"6/6 plans verified (100%), 6 executed, complete"* ]] || fail "status: $(status)"

# 3. A SUMMARY removed: the plan is done again, without repeating its committed tasks.
(cd "$p" && git rm -q "$spec/execution/phases/02-p02/02-01-SUMMARY.md" && git commit -qm "redo 02-01")
st=$(status)
[[ $st == *"02-01    02-01"*"planned  (ready)"* && $st == *"  - phase 02: again, its report no longer holds: 02-01 not executed (no SUMMARY)"* ]] \
  || fail "status after removing 02-01's SUMMARY: $st"
run redo
[[ $rc -eq 0 && $(started) == "execute:02-01 final verify-phase:02 verify-plan:02-01 " ]] || fail "redo: rc $rc, $(started): $out"
[[ -f $s/execution/phases/02-p02/02-01-SUMMARY.md ]] || fail "02-01 has no SUMMARY again"
[[ $(wc -l <"$p/out/02-01.txt") -eq 2 ]] || fail "02-01's tasks ran twice: $(cat "$p/out/02-01.txt")"
[[ $(status) == *"6/6 plans verified (100%), 6 executed, complete"* ]] || fail "status after the redo: $(status)"

# 4. The phase and final verifications of a run that was killed before them.
(cd "$p" && git rm -q "$spec/execution/phases/03-p03/VERIFICATION.md" "$spec/execution/FINAL-VERIFICATION.md" && git commit -qm "as if killed")
st=$(status)
[[ $(grep '^Phase 03' <<<"$st") == *"executed "*"1/1 verified"* ]] || fail "phase 03 reads as verified without its verification: $st"
[[ $st == *$'Ready now: nothing\nVerifications to run (orchestrate runs them):\n  - phase 03: every plan is verified; this verification has not run\n  - final: every plan is verified; this verification has not run\nBlockers: none'* ]] \
  || fail "status does not say what is left: $st"
json=$(cd "$p" && "$cli" status "$spec" --json)
python3 -c 'import json,sys; j=json.loads(sys.argv[1]); assert not j["complete"] and len(j["verifications_due"]) == 2, j' "$json" \
  || fail "status --json: $json"
run left
[[ $rc -eq 0 && $(started) == "final verify-phase:03 " ]] || fail "the verifications left: rc $rc, $(started): $out"
[[ $(status) == *"complete"* ]] || fail "status at the end: $(status)"
echo "orchestrate stale: all checks passed"
