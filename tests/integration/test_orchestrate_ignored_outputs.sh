#!/usr/bin/env bash
# A plan whose files git ignores (script worker, real git; here a personal core.excludesFile, as
# a project .gitignore would): its checks pass on the files on disk and the run completes, but
# nothing of the work is committed, so the run says so for each plan, naming the files and the
# rule. A plan whose files git keeps gets no such note.
set -euo pipefail
cli=${HARNESS_CLI:?}
src=${HARNESS_SOURCE_DIR:?}
source "$src/tests/integration/lib/project.sh"
project_tmp
spec=docs/specs/SPC-001-ignored
p=$tmp/p
file_plans_project "$p" "$spec" "Ignored" 01-01 01-02
echo 'out/01-01.txt' >"$tmp/gignore"
(cd "$p" && git config core.excludesFile "$tmp/gignore")
rc=0
out=$(cd "$p" && timeout 120 "$cli" orchestrate "$spec" --worker script 2>&1 </dev/null) || rc=$?
[[ $rc -eq 0 ]] || fail "the run should complete: rc $rc: $out"
note="01-01: the files it changed, out/01-01.txt, are ignored by git (rule 'out/01-01.txt' in $tmp/gignore): none of them was committed, and 1 of its 1 task has no commit"
[[ $out == *"$note"* ]] || fail "the ignored files are not named: $out"
[[ $out != *"01-02: the files it changed"* ]] || fail "01-02's files are kept by git, yet named: $out"
[[ -z $(cd "$p" && git log --format=%s -- out/01-01.txt) ]] || fail "out/01-01.txt was committed after all"
echo PASS
