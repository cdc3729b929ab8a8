#!/usr/bin/env bash
# execution/commits.log removed in the middle of a run (a `git clean -fd` while the file is
# untracked, or any rm): the run knows what it wrote there, notices the file shrank, and writes it
# whole again before it commits. Before, the run's commit held only the lines written after the
# removal, and the next run added the rest as `recovered`.
set -euo pipefail
cli=${HARNESS_CLI:?}
src=${HARNESS_SOURCE_DIR:?}
source "$src/tests/integration/lib/project.sh"
project_tmp
spec=docs/specs/SPC-001-log
p=$tmp/p
file_plans_project "$p" "$spec" "Log" 01-01 01-02
s=$p/$spec
# 01-03 runs after both: by then their lines are in the log, and its block removes the file.
core_plan "$s" 01-03 "['01-01', '01-02']" "" "" "rm -f $spec/execution/commits.log"
(cd "$p" && git add -A && git commit -qm "01-03 removes the log")
rc=0
out=$(cd "$p" && timeout 120 "$cli" orchestrate "$spec" --worker script 2>&1 </dev/null) || rc=$?
[[ $rc -eq 0 && $out == *"run_finished"*"complete"* ]] || fail "the run should complete: rc $rc: $out"
[[ $out == *"execution/commits.log lost lines this run had written"*"written whole again"* ]] ||
  fail "no note about the log written whole again: $out"
# Every trailer commit of the spec is in the committed log, each once.
commits=$(cd "$p" && git log --format=%H --all-match --grep='^Plan: ' --grep='^Spec: SPC-001-log' | sort)
logged=$(cd "$p" && git show "HEAD:$spec/execution/commits.log" | cut -d' ' -f1 | sort)
[[ -n $commits && $commits == "$logged" ]] ||
  fail "the committed log does not hold every trailer commit once: commits:
$commits
logged:
$(cd "$p" && git show "HEAD:$spec/execution/commits.log")"
[[ -z $(cd "$p" && git status --porcelain -- "$spec") ]] || fail "the spec directory is left changed: $(cd "$p" && git status --porcelain)"
# The next run has nothing to recover.
out=$(cd "$p" && timeout 120 "$cli" orchestrate "$spec" --worker script 2>&1 </dev/null) || fail "the second run failed: $out"
! grep -q recovered "$s/execution/commits.log" || fail "the next run recovered lines: $(cat "$s/execution/commits.log")"
echo PASS
