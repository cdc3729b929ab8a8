#!/usr/bin/env bash
# A spec's branch squash-merged into main, as teams merge pull requests (review HH F2, UU): the
# squash commit is the only record of the plans' work there, its message gathering their trailers
# (git indents them under `commit <hash>` headers). status, verify --final and orchestrate on main
# agree that the spec is complete; a redo marker squashed with the plan's older work keeps the redo.
set -euo pipefail
cli=${HARNESS_CLI:?}
src=${HARNESS_SOURCE_DIR:?}
source "$src/tests/integration/lib/project.sh"
project_tmp
spec=docs/specs/SPC-001-sq
p=$tmp/p
file_plans_project "$p" "$spec" "Squash" 01-01 01-02 01-03
cd "$p"
main=$(git branch --show-current)
git checkout -q -b feature
"$cli" orchestrate "$spec" --worker script --yes >"$tmp/run1.log" 2>&1 || { cat "$tmp/run1.log" >&2; fail "the run on the branch failed"; }
git checkout -q "$main"
git merge -q --squash feature >/dev/null
git commit -q --no-edit
[[ $(git log --format=%s -1) == "Squashed commit of the following:" ]] || fail "not git's squash message: $(git log -1 --format=%B | head -3)"
"$cli" verify "$spec" --final >"$tmp/final.out" 2>&1 || { cat "$tmp/final.out" >&2; fail "verify --final after the squash merge failed"; }
grep -q "^passed   01-02   commits                  1 commit, 1 of 1 tasks covered" "$tmp/final.out" ||
  fail "the commits check does not count the squash commit once: $(grep commits "$tmp/final.out")"
"$cli" status "$spec" | grep -q "3/3 plans verified (100%), 3 executed, complete" || fail "status after the squash: $("$cli" status "$spec")"
"$cli" orchestrate "$spec" --worker script --yes >"$tmp/run2.log" 2>&1 || { cat "$tmp/run2.log" >&2; fail "orchestrate on main after the squash failed"; }
grep -q "run_finished       : complete" "$tmp/run2.log" || fail "orchestrate on main: $(tail -n 3 "$tmp/run2.log")"
! grep -q "task_started .*execute:" "$tmp/run2.log" || fail "a plan ran again after the squash: $(grep task_started "$tmp/run2.log")"

# A redo on the branch, squashed with the plan's older work, is not lost (review UU H2): git's
# message lists the marker before the work it undoes, and the plan runs again on main.
p2=$tmp/p2
file_plans_project "$p2" "$spec" "Squash" 01-01 01-02
cd "$p2"
main=$(git branch --show-current)
git checkout -q -b feature
"$cli" orchestrate "$spec" --worker script --yes >"$tmp/run3.log" 2>&1 || { cat "$tmp/run3.log" >&2; fail "the run on the second branch failed"; }
"$cli" redo "$spec" 01-02 >/dev/null
git checkout -q "$main"
git merge -q --squash feature >/dev/null
git commit -q --no-edit
"$cli" orchestrate "$spec" --worker script --yes >"$tmp/run4.log" 2>&1 || { cat "$tmp/run4.log" >&2; fail "the run after the squashed redo failed"; }
grep -q "task_started .*execute:01-02" "$tmp/run4.log" || fail "the squashed redo of 01-02 did not run it again: $(grep task_ "$tmp/run4.log")"
! grep -q "task_started .*execute:01-01" "$tmp/run4.log" || fail "01-01 ran again after the squash"
echo "squash merge: all checks passed"
