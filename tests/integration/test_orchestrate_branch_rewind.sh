#!/usr/bin/env bash
# The branch a run commits to, rewound under it (script worker, real git): a plan's shell block
# runs `git reset --hard HEAD~2` (as an agent might), which takes earlier plans' commits and the
# run's own write-backs off the branch. The run notices (the tip no longer descends from the last
# commit it saw), starts nothing more, verifies and commits nothing more, and ends blocked (exit 1)
# naming the lost commits, their plans and the way back; it does not verify the rewound branch and
# blame the plans whose work was erased. `git reset --hard OLD` as it says, and the next run
# completes. A `git commit --amend` of the run's commit is the same rewind, said as such.
set -euo pipefail
cli=${HARNESS_CLI:?}
src=${HARNESS_SOURCE_DIR:?}
source "$src/tests/integration/lib/project.sh"
project_tmp
spec=docs/specs/SPC-001-rewind
p=$tmp/p
file_plans_project "$p" "$spec" "Rewind" 01-01 01-02 01-03
s=$p/$spec
plans=$s/planning/plans/01-core
(cd "$p" && git branch -M main)
# 01-03 runs after the others are verified, and rewinds the branch in its task.
sed -i "s/^depends_on: \[\]$/depends_on: ['01-01', '01-02']/" "$plans/01-03-PLAN.md"
plan_runs "$s" 01-03 'mkdir -p out && echo 01-03 > out/01-03.txt && git reset -q --hard HEAD~2'
(cd "$p" && git commit -qam "01-03 rewinds the branch")

rc=0
out=$(cd "$p" && timeout 120 "$cli" orchestrate "$spec" --worker script --slots 1 2>&1 </dev/null) || rc=$?
[[ $rc -eq 1 ]] || fail "the run should end blocked (exit 1): rc $rc: $out"
[[ $out == *"main was rewound during the run (a reset, an amend or a rebase"* ]] || fail "the rewind is not named: $out"
[[ $out == *"commits the run made or counted are on no branch now"* ]] || fail "the lost commits are not counted: $out"
[[ $out =~ \(plans?\ 01-0[12] ]] || fail "the plans whose commits are lost are not named: $out"
[[ $out =~ git\ reset\ --hard\ ([0-9a-f]{40}) ]] || fail "no way back given: $out"
old=${BASH_REMATCH[1]}
[[ $out == *"blocked: run: main was rewound during the run: 2 commits it held are on no branch now"*"(\`git branch rewound-"*" main\` keeps what was committed on the rewound branch"*"then git reset --hard "* ]] ||
  fail "the end of the run does not say what was lost and how to keep what came after: $out"
[[ $out != *"verify-plan:01-03"* && $out != *"verify-phase:01"* ]] || fail "the rewound branch was verified: $out"
[[ $out != *"gaps"* ]] || fail "a gap was blamed on a plan whose commits were erased: $out"
after=$(cd "$p" && git log --format=%s -1)
[[ $after != "docs(SPC-001-rewind)"* ]] || fail "harness committed on the rewound branch: $after"
# The hash the message gives is where the branch was: both earlier plans' commits are in it.
for plan in 01-01 01-02; do
  [[ -n $(cd "$p" && git log --format=%H --grep "Plan: $plan" "$old") ]] || fail "$old does not hold $plan's commits"
done

# Back where the run left it (the rewinding plan fixed), the next run takes up the work and completes.
(cd "$p" && git reset -q --hard "$old")
sed -i 's| \&\& git reset -q --hard HEAD~2||' "$plans/01-03-PLAN.md"
(cd "$p" && git commit -qam "01-03 leaves the branch alone")
rc=0
out=$(cd "$p" && timeout 120 "$cli" orchestrate "$spec" --worker script 2>&1 </dev/null) || rc=$?
[[ $rc -eq 0 && $out == *"complete after"* ]] || fail "the run after the reset should complete: rc $rc: $out"
[[ $out != *"rewound"* ]] || fail "a run on an intact branch says it was rewound: $out"

# An amend of the run's last commit replaces it: the replaced commit is lost, its successor named.
cp "$plans/01-03-PLAN.md" "$plans/01-04-PLAN.md"
sed -i -e 's/01-03/01-04/g' -e "s/^depends_on: .*/depends_on: ['01-03']/" \
  -e "s|^mkdir -p out \&\& echo 01-04 > out/01-04.txt$|mkdir -p out \&\& echo 01-04 > out/01-04.txt \&\& git commit -q --amend -m 'amended by a worker'|" \
  "$plans/01-04-PLAN.md"
grep -q "amended by a worker" "$plans/01-04-PLAN.md" || fail "plan 01-04 was not written"
(cd "$p" && git add -A && git commit -qm "01-04 amends")
amended_from=$(cd "$p" && git rev-parse HEAD)
rc=0
out=$(cd "$p" && timeout 120 "$cli" orchestrate "$spec" --worker script 2>&1 </dev/null) || rc=$?
[[ $rc -eq 1 ]] || fail "the amend should end the run blocked: rc $rc: $out"
[[ $out == *"main was rewound during the run"*"1 commit the run made or counted is on no branch now"*"${amended_from:0:10} 01-04 amends"* ]] ||
  fail "the replaced commit is not named: $out"
[[ $out == *"made on the rewound branch since: "*"amended by a worker"* ]] || fail "the amended commit is not named: $out"
echo PASS
