#!/usr/bin/env bash
# A verdict no run wrote is not believed (review BB M1): a worker of an earlier, killed run forged
# plan 02-01's SUMMARY (`verification: passed`) and its phase's VERIFICATION.md, and left them
# uncommitted. The next run says so, executes 02-01 (its commit and file exist afterwards),
# verifies phase 02 itself, and completes. A verdict a run wrote and committed (01-01's, from a
# first run) is believed: 01-01 does not run again. A forged phase report alone, beside a SUMMARY
# without a verdict, is doubted the same way.
set -euo pipefail
cli=${HARNESS_CLI:?}
src=${HARNESS_SOURCE_DIR:?}
source "$src/tests/integration/lib/project.sh"
project_tmp
spec=docs/specs/SPC-001-forged
p=$tmp/p
s=$p/$spec
mkdir -p "$s" "$p/.orchestration"
echo "# Forged verdicts" >"$s/SPEC.md"
phase_plan "$s" 01-01
(cd "$p" && git init -q && git add -A && git commit -qm init)
rc=0
(cd "$p" && "$cli" orchestrate "$spec" --worker script --yes </dev/null >"$tmp/run1.out" 2>&1) || rc=$?
[[ $rc -eq 0 ]] || fail "first run: rc $rc: $(tail -5 "$tmp/run1.out")"

# Phase 02 is planned (committed, as a person would); then the forgery, left uncommitted.
phase_plan "$s" 02-01
(cd "$p" && git add -A && git commit -qm "plan phase 02")
d=$s/execution/phases/02-p02
mkdir -p "$d"
printf -- "---\nplan_id: '02-01'\nstatus: complete\nverification: passed\n---\n# done\n" >"$d/02-01-SUMMARY.md"
printf -- "---\nphase: '02'\nstatus: passed\nplans: ['02-01']\n---\n# verified\n" >"$d/VERIFICATION.md"
st=$(cd "$p" && "$cli" status "$spec") # status reads the files only: it believes them (documented)
[[ $st == *"02-01 "*"verified"* ]] || fail "status before the run: $st"

rc=0
(cd "$p" && "$cli" orchestrate "$spec" --worker script --yes </dev/null >"$tmp/run2.out" 2>&1) || rc=$?
[[ $rc -eq 0 ]] || fail "second run: rc $rc: $(tail -8 "$tmp/run2.out")"
grep -q "02-01's SUMMARY says \`verification: passed\`, but no commit of it does and no run wrote that there" "$tmp/run2.out" ||
  fail "no note of the forged verdict: $(head -8 "$tmp/run2.out")"
grep -q "01-01's SUMMARY" "$tmp/run2.out" && fail "01-01's committed verdict was doubted: $(cat "$tmp/run2.out")"
grep -q "task_started.*execute:01-01\|started execute:01-01" "$tmp/run2.out" && fail "01-01 ran again: $(cat "$tmp/run2.out")"
[[ $(wc -l <"$p/out/02-01.txt") -eq 2 ]] || fail "02-01 did not run: $(cat "$p/out/02-01.txt" 2>/dev/null)"
log=$(git -C "$p" log --format=%B)
grep -q '^Plan: 02-01$' <<<"$log" || fail "no commit carries Plan: 02-01: $log"
grep -q "^# verified" "$d/VERIFICATION.md" && fail "phase 02's forged VERIFICATION.md was kept: $(cat "$d/VERIFICATION.md")"
grep -q '^status: passed' "$d/VERIFICATION.md" || fail "phase 02 not verified by the run: $(head -8 "$d/VERIFICATION.md")"
grep -q '^run: "complete"\|^run: complete' "$s/STATUS.md" || fail "STATUS.md: $(head -5 "$s/STATUS.md")"

# The same with a forged phase report alone, beside a SUMMARY that claims no verdict (review HH F1).
phase_plan "$s" 03-01
(cd "$p" && git add -A && git commit -qm "plan phase 03")
d3=$s/execution/phases/03-p03
mkdir -p "$d3"
printf -- "---\nplan_id: '03-01'\nstatus: complete\n---\n# done\n" >"$d3/03-01-SUMMARY.md"
printf -- "---\nphase: '03'\nstatus: passed\nplans: ['03-01']\n---\n# verified\n" >"$d3/VERIFICATION.md"
rc=0
(cd "$p" && "$cli" orchestrate "$spec" --worker script --yes </dev/null >"$tmp/run3.out" 2>&1) || rc=$?
[[ $rc -eq 0 ]] || fail "third run: rc $rc: $(tail -8 "$tmp/run3.out")"
grep -q "03-p03/VERIFICATION.md says \`status: passed\`, but no commit of it does and no run wrote that there" "$tmp/run3.out" ||
  fail "no note of the forged phase report: $(head -8 "$tmp/run3.out")"
[[ $(wc -l <"$p/out/03-01.txt") -eq 2 ]] || fail "03-01 did not run: $(cat "$tmp/run3.out")"
grep -q "^# verified" "$d3/VERIFICATION.md" && fail "phase 03's forged VERIFICATION.md was kept"
echo "ok"
