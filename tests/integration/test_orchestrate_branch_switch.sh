#!/usr/bin/env bash
# The branch a run commits to (script worker, real git): HEAD switched to another branch during
# the run (here by a plan's own shell block, as a `git switch` in another terminal would) stops
# it: no new task, the moved-to branch gets no verification, STATUS.md or write-back commit, and
# the run ends blocked (exit 1) naming both branches and the way back. Back on the branch, the next
# run completes. A run started on a detached HEAD says at its start that its commits will be on no
# branch, and goes on as its own commits move that HEAD.
set -euo pipefail
cli=${HARNESS_CLI:?}
src=${HARNESS_SOURCE_DIR:?}
source "$src/tests/integration/lib/project.sh"
project_tmp
spec=docs/specs/SPC-001-switch
p=$tmp/p
file_plans_project "$p" "$spec" "Switch" 01-01 01-02 01-03
s=$p/$spec
(cd "$p" && git branch -M main)
plan_runs "$s" 01-01 'mkdir -p out && echo 01-01 > out/01-01.txt && git switch -q -c other'
(cd "$p" && git commit -qam "01-01 switches the branch")

rc=0
out=$(cd "$p" && timeout 120 "$cli" orchestrate "$spec" --worker script --slots 1 2>&1 </dev/null) || rc=$?
[[ $rc -eq 1 ]] || fail "the run should end blocked (exit 1): rc $rc: $out"
[[ $out == *"HEAD moved from main to other during the run"* ]] || fail "the switch is not named: $out"
[[ $out == *"blocked after"* ]] || fail "the outcome should be blocked: $out"
[[ $out == *"blocked: run: HEAD moved from main to other during the run: switch back (git switch main) and run orchestrate again"* ]] ||
  fail "the end of the run does not say how to go on: $out"
[[ $out != *"task_started"*"execute:01-02"* && $out != *"task_started"*"execute:01-03"* ]] ||
  fail "tasks started after the switch: $out"
[[ $out != *"verify-plan:01-01"* ]] || fail "01-01 was verified on the other branch: $out"
log_other=$(cd "$p" && git log --format=%s other)
[[ $log_other != *"docs(SPC-001-switch)"* ]] || fail "harness committed on the other branch: $log_other"
[[ -z $(cd "$p" && git status --porcelain -- "$spec/STATUS.md") ]] || fail "STATUS.md was written on the other branch"

# Back on the run's branch, the next run takes up the work and completes.
(cd "$p" && git switch -q main) || fail "cannot switch back to main"
sed -i 's| \&\& git switch -q -c other||' "$s/planning/plans/01-core/01-01-PLAN.md"
(cd "$p" && git commit -qam "01-01 stays on its branch")
rc=0
out=$(cd "$p" && timeout 120 "$cli" orchestrate "$spec" --worker script 2>&1 </dev/null) || rc=$?
[[ $rc -eq 0 && $out == *"complete after"* ]] || fail "the run back on main should complete: rc $rc: $out"
[[ $out != *"HEAD"* ]] || fail "a run on its branch says something about HEAD: $out"

# A detached HEAD: said at the start; the run goes on, though each of its commits moves HEAD.
sed 's/01-01/01-04/g' "$s/planning/plans/01-core/01-01-PLAN.md" >"$s/planning/plans/01-core/01-04-PLAN.md"
(cd "$p" && git add -A && git commit -qm "01-04" && git switch -q --detach)
rc=0
out=$(cd "$p" && timeout 120 "$cli" orchestrate "$spec" --worker script 2>&1 </dev/null) || rc=$?
[[ $rc -eq 0 && $out == *"complete after"* ]] || fail "the run on a detached HEAD should complete: rc $rc: $out"
[[ $out == *"HEAD is detached (at "*"): this run's commits will be on no branch"* ]] || fail "no note about the detached HEAD: $out"
[[ $out != *"HEAD moved"* && $out != *"rewound"* ]] || fail "the run's own commits on a detached HEAD stopped it: $out"
[[ -n $(cd "$p" && git log --format=%H --grep "Plan: 01-04" HEAD) ]] || fail "01-04 was not committed on the detached HEAD"
echo PASS
