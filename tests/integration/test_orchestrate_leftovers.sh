#!/usr/bin/env bash
# A plan given up on (script worker, real git): what its failed attempts left in its declared
# files is named in the block (and in STATUS.md): it is not finished work, and committed by hand
# it would become the base the next attempt builds on. A file the user had changed before the
# run is theirs and not named. The next run's start note calls them an earlier attempt's, not
# the user's uncommitted changes to commit first.
set -euo pipefail
cli=${HARNESS_CLI:?}
src=${HARNESS_SOURCE_DIR:?}
source "$src/tests/integration/lib/project.sh"
project_tmp
spec=docs/specs/SPC-001-left
p=$tmp/p
file_plans_project "$p" "$spec" "Leftovers" 01-01 01-02
s=$p/$spec
# 01-01 appends a guard line, then fails; 01-02's file has an edit of the user's.
sed -i 's|^mkdir -p out \&\& echo 01-01 > out/01-01.txt$|mkdir -p out \&\& echo "# guard" >> out/01-01.txt \&\& false|' \
  "$s/planning/plans/01-core/01-01-PLAN.md"
grep -q '&& false' "$s/planning/plans/01-core/01-01-PLAN.md" || fail "the plan was not edited"
(cd "$p" && git commit -qam "01-01 fails" && mkdir -p out && echo mine > out/01-02.txt)
rc=0
out=$(cd "$p" && timeout 120 "$cli" orchestrate "$spec" --worker script 2>&1 </dev/null) || rc=$?
[[ $rc -eq 1 && $out == *"task_blocked"*"execute:01-01"* ]] || fail "the run should block 01-01: rc $rc: $out"
note="its failed attempts left uncommitted changes in out/01-01.txt: not finished work, so do not commit them as they are"
[[ $out == *"$note"* ]] || fail "the block does not name the leftover: $out"
grep -qF "$note" "$s/STATUS.md" || fail "STATUS.md does not name it: $(cat "$s/STATUS.md")"
[[ $out != *"left uncommitted changes in out/01-02.txt"* ]] || fail "the user's file was named as a leftover: $out"
# The next run starts with those leftovers in a file a pending plan writes. They are an earlier
# attempt's (the store has its sessions), not the user's edits: the note says so and that the
# next attempt resets them, rather than advise committing them into the plan's commit.
rc=0
out=$(cd "$p" && timeout 120 "$cli" orchestrate "$spec" --worker script 2>&1 </dev/null) || rc=$?
[[ $out == *"out/01-01.txt has uncommitted changes an earlier attempt of plan 01-01 left"*"not finished work, so do not commit them as they are; the plan's next attempt resets the file"* ]] ||
  fail "the second run's start note does not name the earlier attempt: rc $rc: $out"
[[ $out != *"out/01-01.txt has uncommitted changes and plan 01-01 writes it"* ]] ||
  fail "the second run advises committing an attempt's leftovers: $out"
echo PASS
