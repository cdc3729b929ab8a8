#!/usr/bin/env bash
# A person's answer to a phase or final verification that needs one is written down, without a
# terminal, across runs (script worker, real git): plan 02-02 carries a visual_quality check, so
# phase 02 and the final verification end `human_needed`.
#   1. The documented loop (exit 3, answer, run again) ends: the question is asked once (the run
#      after the answer takes it over; the final verification counts the phase's approval instead
#      of asking again), the approval lands in VERIFICATION.md (who, when, note) and is committed;
#      the run ends complete and status, STATUS.md and ROADMAP.md say so; `verify --phase` keeps
#      the approval; the next run asks nothing. Once the phase's files change by hand, `verify
#      --phase` drops the approval and the next run asks again.
#   2. A refusal is recorded too (with its note, shown by status) and blocks; the next run asks
#      again.
set -euo pipefail
cli=${HARNESS_CLI:?}
src=${HARNESS_SOURCE_DIR:?}
source "$src/tests/integration/lib/project.sh"
project_tmp
spec=docs/specs/SPC-001-looks

new_project() { # dir
  local s=$1/$spec
  mkdir -p "$s"
  printf '# Looks\n\nTwo phases; 02-02 needs a person to look at it.\n' >"$s/SPEC.md"
  printf -- '---\nversion: 1\nstatus: planning\n---\n# Roadmap\n\n## Phase 1: One\n**Goal**: a.\n\n## Phase 2: Two\n**Goal**: b.\n' >"$s/ROADMAP.md"
  phase_plan "$s" 01-01
  phase_plan "$s" 02-01 "['01-01']"
  phase_plan "$s" 02-02 "['01-01']" "  - {id: looks, type: visual_quality, description: 'out/02-02.txt reads well'}"
  (cd "$1" && git init -q && git add -A && git commit -qm init)
}
run() { # dir log -> output in $out, exit code in $rc
  rc=0
  (cd "$1" && timeout 120 "$cli" orchestrate "$spec" --worker script --yes >"$tmp/$2.out" 2>&1 </dev/null) || rc=$?
  out=$(cat "$tmp/$2.out")
}
only_id() { # dir -> the one checkpoint waiting for an answer
  local list
  list=$(cd "$1" && "$cli" respond --list)
  [[ $(wc -l <<<"$list") -eq 1 && -n $list ]] || fail "expected one waiting checkpoint: $list"
  awk '{print $1}' <<<"$list"
}
mcp_respond() { # project id verdict feedback: harness_respond over MCP
  local out
  out=$(mcp_call "$1" harness_respond "{\"message_id\":\"$2\",\"response\":{\"verdict\":\"$3\",\"feedback\":\"$4\"}}")
  [[ $out == *'"responded":true'* ]] || fail "harness_respond $2: $out"
}

# 1. Approve, one answer per run, no terminal.
p=$tmp/approve
s=$p/$spec
new_project "$p"
run "$p" run1
[[ $rc -eq 3 ]] || fail "run 1 exited $rc, expected 3: $out"
[[ $(grep -c checkpoint_opened <<<"$out") -eq 1 && $out == *"checkpoint_opened   verify-phase:02: phase 02 verification: human_needed"* ]] || fail "run 1: $out"
phase_id=$(only_id "$p")
mcp_respond "$p" "$phase_id" approved "reads well"
run "$p" run2
# The final verification does not ask again what the phase's approval covers.
[[ $rc -eq 0 && $out == *"run_finished       : complete"* ]] || fail "run 2 exited $rc, expected 0: $out"
[[ $out == *"checkpoint_answered verify-phase:02: approved: reads well"* ]] || fail "run 2 did not take the phase's answer: $out"
[[ $(grep -c checkpoint_opened <<<"$out") -eq 1 && $out != *"checkpoint_opened   final"* ]] || fail "run 2's questions: $out"
v=$s/execution/phases/02-p02/VERIFICATION.md
grep -q '^status: passed$' "$v" && grep -q '^checks_status: human_needed$' "$v" && grep -q '^approval_note: "reads well"$' "$v" \
  && grep -q '^approved_by: ".* (harness_respond over MCP)"$' "$v" && grep -q '^approved_at: "20' "$v" || fail "the approval is not in $v: $(cat "$v")"
f=$s/execution/FINAL-VERIFICATION.md
grep -q '^status: passed$' "$f" && grep -q "approved by .* (harness_respond over MCP) at 20.* in phase 02's verification" "$f" \
  || fail "the final does not count the phase's approval: $(cat "$f")"
[[ -z $(cd "$p" && git status --porcelain) ]] || fail "left uncommitted: $(cd "$p" && git status --porcelain)"
st=$(cd "$p" && "$cli" status "$spec")
[[ $st == "SPC-001-looks: 3/3 plans verified (100%), 3 executed, complete"* && $st == *"Blockers: none"* ]] || fail "status: $st"
grep -q '^run: "complete"' "$s/STATUS.md" || fail "STATUS.md: $(head -5 "$s/STATUS.md")"
grep -q '^status: complete$' "$s/ROADMAP.md" || fail "ROADMAP.md: $(head -12 "$s/ROADMAP.md")"
# Looking again by hand keeps the answer: the checks find the same.
vout=$(cd "$p" && "$cli" verify "$spec" --phase 02) || fail "verify --phase 02 after the approval: $vout"
[[ $vout == *"kept the approval by "*"(harness_respond over MCP)"* ]] && grep -q '^approval_note: "reads well"$' "$v" \
  || fail "verify --phase dropped the approval: $vout: $(cat "$v")"
(cd "$p" && git commit -q --allow-empty -am "verified by hand") # unchanged when within the same second
run "$p" run3
[[ $rc -eq 0 && $out == *"run_finished       : complete after"*", 0 attempts"* && $out != *checkpoint* ]] || fail "run 3 was not a no-op: $out"
# The approved work changed by hand since (a commit to 02-02's file, its checks finding the same):
# `verify --phase` no longer keeps the approval, and the next run asks again.
cp "$v" "$tmp/approved-VERIFICATION.md"
(cd "$p" && printf '02-02 first\n02-02 second, reworded by hand\n' >out/02-02.txt && git commit -qam "reworded by hand")
vrc=0
vout=$(cd "$p" && "$cli" verify "$spec" --phase 02) || vrc=$?
[[ $vrc -eq 3 && $vout == *"the approval by "*"(harness_respond over MCP) at 20"*" no longer holds: the plans' files changed since it was given"* ]] \
  || fail "verify --phase kept the approval of other work (rc $vrc): $vout"
grep -q '^status: human_needed$' "$v" && ! grep -q '^approved_by' "$v" || fail "the dropped approval is still in $v: $(cat "$v")"
# `--json` says so too (the file as approved put back): who, why, the work approved and the work now.
cp "$tmp/approved-VERIFICATION.md" "$v"
vrc=0
vout=$(cd "$p" && "$cli" verify "$spec" --phase 02 --json) || vrc=$?
python3 - "$vout" <<'PY' && [[ $vrc -eq 3 ]] || fail "verify --phase --json (rc $vrc) does not say the approval was dropped: $vout"
import json, sys
r = json.loads(sys.argv[1])
d = r["dropped_approval"]
assert "kept_approval" not in r and r["status"] == "human_needed", r
assert "(harness_respond over MCP)" in d["by"] and d["at"].startswith("20") and d["note"] == "reads well", d
assert d["reason"] == "the plans' files changed since it was given", d
assert len(d["approved_work_hash"]) == 32 and len(d["work_hash"]) == 32 and d["approved_work_hash"] != d["work_hash"], d
PY
(cd "$p" && git commit -qam "verified by hand again")
run "$p" run4
[[ $rc -eq 3 && $out == *"checkpoint_opened   verify-phase:02"* ]] || fail "run 4 did not ask about the changed work: rc $rc: $out"

# 2. Refused: recorded, shown, blocking; the next run asks again.
p=$tmp/refuse
s=$p/$spec
new_project "$p"
run "$p" refuse1
[[ $rc -eq 3 ]] || fail "refuse run 1 exited $rc: $out"
(cd "$p" && "$cli" respond "$(only_id "$p")" refuse --note "too dark" >/dev/null)
run "$p" refuse2
[[ $rc -eq 1 && $out == *"task_blocked        verify-phase:02: refused by a human: too dark"* ]] || fail "refuse run 2 exited $rc: $out"
v=$s/execution/phases/02-p02/VERIFICATION.md
grep -q '^status: human_needed$' "$v" && grep -q '^refusal_note: "too dark"$' "$v" && grep -q '^refused_by: ' "$v" || fail "the refusal is not in $v: $(cat "$v")"
[[ -z $(cd "$p" && git status --porcelain) ]] || fail "the refusal was not committed: $(cd "$p" && git status --porcelain)"
st=$(cd "$p" && "$cli" status "$spec")
[[ $st == *"  - phase 02 verification: human_needed; refused by "*"(harness-cli respond) at 20"*": too dark"* ]] || fail "status after a refusal: $st"
run "$p" refuse3
[[ $rc -eq 3 && $out == *"checkpoint_opened   verify-phase:02"* ]] || fail "the run after a refusal does not ask again: rc $rc: $out"
echo "orchestrate approval: all checks passed"
