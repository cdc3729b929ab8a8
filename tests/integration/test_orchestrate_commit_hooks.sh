#!/usr/bin/env bash
# A commit-msg hook (under core.hooksPath) that keeps only the subject line drops the Plan:/Spec:
# trailers of the script worker's task commits: the task fails at once, its one attempt is not
# retried (a retry would run the task again and lose the trailers again), and the block names the
# hook's file.
set -euo pipefail
cli=${HARNESS_CLI:?}
src=${HARNESS_SOURCE_DIR:?}
source "$src/tests/integration/lib/project.sh"
project_tmp
spec=docs/specs/SPC-001-hooks
p=$tmp/p
file_plans_project "$p" "$spec" "Commit hooks" 01-01
# Appends: a task run twice leaves two lines and two commits.
plan_runs "$p/$spec" 01-01 'mkdir -p out && echo 01-01 >> out/01-01.txt'
mkdir -p "$p/.githooks"
printf '#!/bin/sh\nhead -1 "$1" > "$1.t" && mv "$1.t" "$1"\n' >"$p/.githooks/commit-msg"
chmod +x "$p/.githooks/commit-msg"
(cd "$p" && git config core.hooksPath .githooks && git add -A && git commit -qm "hook")
rc=0
out=$(cd "$p" && timeout 120 "$cli" orchestrate "$spec" --worker script --yes 2>&1 </dev/null) || rc=$?
[[ $rc -eq 1 && $out == *"task_blocked"*"execute:01-01"* ]] || fail "the run should block 01-01: rc $rc: $out"
[[ $out == *"the commit message hook .githooks/commit-msg removed or changed the Plan:/Spec: trailers of commit "*": make it keep the lines starting with 'Plan:' and 'Spec:'"* ]] ||
  fail "the block does not name the hook: $out"
[[ $out == *"not retried"* ]] || fail "the block does not say it was not retried: $out"
[[ $(cat "$p/out/01-01.txt") == "01-01" ]] || fail "the task ran more than once: $(cat "$p/out/01-01.txt")"
[[ $(git -C "$p" log --format=%H -- out/01-01.txt | wc -l) -eq 1 ]] || fail "more than one task commit: $(git -C "$p" log --oneline)"
echo PASS
