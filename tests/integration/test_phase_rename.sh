#!/usr/bin/env bash
# A renamed phase directory keeps its work (script worker, real git): after
# `git mv planning/plans/01-p01 planning/plans/01-core` the phase's SUMMARYs and VERIFICATION.md
# stay in execution/phases/01-p01/, where harness keeps reading them. validate warns once (H035)
# with the `git mv` that moves them, status says complete, orchestrate runs nothing again, and a
# redo writes the phase's new results beside the old ones. After the suggested `git mv` all is
# quiet. Review H4: the SUMMARYs were orphaned ("there is no plan 01-01") and the phase ran again.
set -euo pipefail
cli=${HARNESS_CLI:?}
src=${HARNESS_SOURCE_DIR:?}
source "$src/tests/integration/lib/project.sh"
project_tmp
p=$tmp/p
s=docs/specs/SPC-001-alpha
alpha_spec "$p/$s"
phase_plan "$p/$s" 01-02
phase_plan "$p/$s" 02-01 "['01-01']"
(cd "$p" && git init -q && git add -A && git commit -qm init)

run() { # log -> output in $out, exit code in $rc
  rc=0
  (cd "$p" && timeout 120 "$cli" orchestrate "$s" --worker script --yes >"$tmp/$1.out" 2>&1 </dev/null) || rc=$?
  out=$(cat "$tmp/$1.out")
}
started() { grep -o 'task_started  *[^ ]*' <<<"$out" | awk '{print $2}' | sort | tr '\n' ' '; }
complete="3/3 plans verified (100%), 3 executed, complete"

run first
[[ $rc -eq 0 && $out == *"run_finished       : complete"* ]] || fail "first run: rc $rc: $out"
[[ -f $p/$s/execution/phases/01-p01/01-01-SUMMARY.md && -f $p/$s/execution/phases/01-p01/VERIFICATION.md ]] \
  || fail "the first run's results: $(find "$p/$s/execution")"
(cd "$p" && git mv "$s/planning/plans/01-p01" "$s/planning/plans/01-core" && git commit -qm "rename phase 1")

move="git mv $s/execution/phases/01-p01 $s/execution/phases/01-core"
v=$(cd "$p" && "$cli" validate "$s" 2>&1) || fail "validate after the rename: $v"
[[ $v == *"execution/phases/01-p01: warning[H035]: phase 01's results are read from execution/phases/01-p01/"*"\`$move\`"* ]] \
  || fail "validate does not say where the results are and how to move them: $v"
[[ $v != *H031* && $v == *"3 plans in 2 phases, 0 errors, 1 warning"* ]] || fail "validate after the rename: $v"
st=$(cd "$p" && "$cli" status "$s")
[[ $st == *"$complete"* ]] || fail "status after the rename: $st"

run renamed
[[ $rc -eq 0 && $out == *"run_finished       : complete"* && -z $(started) ]] || fail "the run after the rename: rc $rc, started $(started): $out"
[[ $(grep -c 'H035' <<<"$out") -eq 1 ]] || fail "the run does not warn once: $out"
[[ ! -e $p/$s/execution/phases/01-core ]] || fail "the run wrote results under the new name: $(find "$p/$s/execution/phases/01-core")"

# A redo of one task: its plan's SUMMARY and the phase's verification are written where the others are.
(cd "$p" && "$cli" redo "$s" 01-01:2 >/dev/null)
run redo
[[ $rc -eq 0 && $(started) == "execute:01-01 final verify-phase:01 verify-plan:01-01 " ]] || fail "after redo: rc $rc, $(started): $out"
[[ ! -e $p/$s/execution/phases/01-core ]] || fail "the redo wrote results under the new name: $(find "$p/$s/execution/phases/01-core")"
[[ -z $(cd "$p" && git status --porcelain -- "$s") ]] || fail "results left uncommitted: $(cd "$p" && git status --porcelain)"

# Moved as the warning says: nothing to say, nothing to run.
(cd "$p" && $move && git commit -qm "move phase 1's results")
v=$(cd "$p" && "$cli" validate "$s" 2>&1) || fail "validate after the move: $v"
[[ $v == *"3 plans in 2 phases, 0 errors, 0 warnings"* ]] || fail "validate after the move: $v"
st=$(cd "$p" && "$cli" status "$s")
[[ $st == *"$complete"* ]] || fail "status after the move: $st"
run moved
[[ $rc -eq 0 && $out == *"run_finished       : complete"* && -z $(started) ]] || fail "the run after the move: rc $rc, started $(started): $out"
echo PASS
