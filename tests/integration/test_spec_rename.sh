#!/usr/bin/env bash
# A renamed spec directory keeps its work (script worker, real git): commits carry the old name in
# their `Spec:` trailer, and the SPC number says they are still this spec's. After
# `git mv SPC-001-alpha SPC-001-alpha-v2`, status, verify and orchestrate agree the spec is
# complete, and a redo of one task runs only that task. With a second directory of the same
# number beside it (the old name or another), names must match exactly: the old commits are no
# longer this spec's, and the other spec runs its own plans.
set -euo pipefail
cli=${HARNESS_CLI:?}
src=${HARNESS_SOURCE_DIR:?}
source "$src/tests/integration/lib/project.sh"
project_tmp
p=$tmp/p
old=docs/specs/SPC-001-alpha
new=docs/specs/SPC-001-alpha-v2
alpha_spec "$p/$old"
phase_plan "$p/$old" 01-02
(cd "$p" && git init -q && git add -A && git commit -qm init)

run() { # spec log -> output in $out, exit code in $rc
  rc=0
  (cd "$p" && timeout 120 "$cli" orchestrate "$1" --worker script --yes >"$tmp/$2.out" 2>&1 </dev/null) || rc=$?
  out=$(cat "$tmp/$2.out")
}
started() { grep -o 'task_started  *[^ ]*' <<<"$out" | awk '{print $2}' | sort | tr '\n' ' '; }
commits_of() { (cd "$p" && git log --format=%H --fixed-strings --grep "Plan: $1, Task: $2/" | wc -l); }

run "$old" first
[[ $rc -eq 0 && $out == *"run_finished       : complete"* ]] || fail "first run: rc $rc: $out"
(cd "$p" && git mv "$old" "$new" && git commit -qm rename)

st=$(cd "$p" && "$cli" status "$new")
[[ $st == *"2/2 plans verified (100%), 2 executed, complete"* ]] || fail "status after the rename: $st"
(cd "$p" && "$cli" verify "$new" 01-01 >"$tmp/verify.out" 2>&1) || fail "verify after the rename: $(cat "$tmp/verify.out")"
# The SUMMARY was committed under the old name: the plan's document, not an undeclared write.
if grep -q "changed outside files_modified" "$tmp/verify.out"; then fail "verify after the rename: $(cat "$tmp/verify.out")"; fi
run "$new" renamed
[[ $rc -eq 0 && $out == *"run_finished       : complete"* && -z $(started) ]] || fail "the run after the rename: rc $rc, started $(started): $out"

# One task again under the new name: task 1's commit (old name) still stands.
a=$(cat "$p/out/a.txt") b=$(cat "$p/out/b.txt")
(cd "$p" && "$cli" redo "$new" 01-01:2 >/dev/null)
run "$new" redo
[[ $rc -eq 0 && $(started) == "execute:01-01 final verify-phase:01 verify-plan:01-01 " ]] || fail "after redo: rc $rc, $(started): $out"
[[ $(commits_of 01-01 1) -eq 1 && $(commits_of 01-01 2) -eq 2 ]] || fail "task commits: $(commits_of 01-01 1) / $(commits_of 01-01 2)"
[[ $(cat "$p/out/a.txt") == "$a" && $(cat "$p/out/b.txt") != "$b" ]] || fail "task 1 ran again, or task 2 did not"

# Another spec of the same number beside it (SPC-001-c, with its own 01-01): the renamed spec's
# old commits are neither's, and c executes its plan.
c=docs/specs/SPC-001-c
mkdir -p "$p/$c/planning/plans/01-p01"
printf '# C\n' >"$p/$c/SPEC.md"
cat >"$p/$c/planning/plans/01-p01/01-01-PLAN.md" <<'PLAN'
---
plan_id: '01-01'
depends_on: []
files_modified: ['out/c.txt']
---
# 01-01 of c

### Task 1: c

```bash
mkdir -p out && echo c > out/c.txt
```
PLAN
(cd "$p" && git add -A && git commit -qm "SPC-001-c")
run "$c" third-spec
[[ $rc -eq 0 && $(started) == "execute:01-01 final verify-phase:01 verify-plan:01-01 " && -f $p/out/c.txt ]] \
  || fail "SPC-001-c took the old commits as its own: rc $rc, started $(started): $out"
rc=0
v=$(cd "$p" && "$cli" verify "$new" 01-02 2>&1) || rc=$?
[[ $rc -eq 1 && $v == *"they carry 'Spec: SPC-001-alpha'"* ]] || fail "with two specs of number 1 the old commits stay claimed: rc $rc: $v"
(cd "$p" && git rm -rq "$c" && git commit -qm "drop SPC-001-c")

# A spec of the old name beside it: the old commits are that spec's, not this one's.
mkdir -p "$p/$old"
printf '# Alpha again\n' >"$p/$old/SPEC.md"
phase_plan "$p/$old" 01-01
(cd "$p" && git add -A && git commit -qm "a new SPC-001-alpha")
rc=0
v=$(cd "$p" && "$cli" verify "$new" 01-02 2>&1) || rc=$?
[[ $rc -eq 1 && $v == *"commits for 01-02 lack 'Spec: SPC-001-alpha-v2': they carry 'Spec: SPC-001-alpha'"* ]] \
  || fail "verify with the old name's directory back: rc $rc: $v"
echo PASS
