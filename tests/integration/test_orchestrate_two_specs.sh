#!/usr/bin/env bash
# Two specs in one project, both numbering their plans from 01-01, both asking for a verification
# checkpoint on 01-01; runs without a terminal, the script worker, the real harness-cli.
#   1. Alpha stops at its checkpoint (exit 3); respond --list and the id name the spec.
#   2. Alpha's checkpoint is approved; beta's run neither takes that answer (beta asks its own) nor
#      expires alpha's; status names each spec's own checkpoint.
#   3. Beta's first attempt at its 01-01 is a first attempt although alpha's 01-01 ran: the user's
#      uncommitted edit of its file is kept and committed, not reset.
#   4. Beta's checkpoint is refused: alpha's next run takes its own approval and completes, and
#      leaves beta's refusal to beta, whose next run is blocked by it.
set -euo pipefail
cli=${HARNESS_CLI:?}
src=${HARNESS_SOURCE_DIR:?}
source "$src/tests/integration/lib/project.sh"
project_tmp
alpha=docs/specs/SPC-001-alpha
beta=docs/specs/SPC-002-beta
p=$tmp/two

add_spec() { # spec-dir name: plans 01-01 (checkpoint, appends to src/NAME/a.txt) and 01-02
  local s=$p/$1 name=$2
  mkdir -p "$s/planning/plans/01-core"
  printf '# %s\n\nTwo plans; 01-01 wants a person to look at it.\n' "$name" >"$s/SPEC.md"
  plan() { # id checkpoints file
    cat >"$s/planning/plans/01-core/$1-PLAN.md" <<PLAN
---
plan_id: '$1'
depends_on: []
files_modified: ['$3']
checkpoints: [$2]
must_pass:
  - id: written
    type: file_contains
    path: $3
    pattern: 'line of $1'
---
# $1

### Task 1: write

\`\`\`bash
mkdir -p \$(dirname $3) && echo "line of $1" >> $3
\`\`\`
PLAN
  }
  plan 01-01 "'verification'" "src/$name/a.txt"
  plan 01-02 "" "src/$name/b.txt"
}

mkdir -p "$p"
add_spec "$alpha" alpha
add_spec "$beta" beta
(cd "$p" && git init -q && git add -A && git commit -qm init)

orchestrate() { # spec name -> exit code in $rc, output in $tmp/name.out
  rc=0
  (cd "$p" && timeout 120 "$cli" orchestrate "$1" --worker script >"$tmp/$2.out" 2>&1 </dev/null) || rc=$?
  out=$(cat "$tmp/$2.out")
}
opened_id() { # the checkpoint id the run's checkpoint_opened line asks to answer
  sed -n 's/.*checkpoint_opened.*harness-cli respond \(cp-[^ ]*\) approve|refuse.*/\1/p' <<<"$out"
}

# 1. Alpha stops at its checkpoint; the id and the list name the spec.
orchestrate "$alpha" alpha1
[[ $rc -eq 3 ]] || fail "alpha's first run exited $rc, expected 3: $out"
a_id=$(opened_id)
[[ $a_id == cp-SPC-001-alpha-verify-plan-01-01-* ]] || fail "alpha's checkpoint id does not name the spec: '$a_id' in $out"
list=$(cd "$p" && "$cli" respond --list)
[[ $list == "$a_id  SPC-001-alpha  verify-plan:01-01  verification of 01-01"*"(no orchestrate runs; the next one of SPC-001-alpha takes the answer when it reaches verify-plan:01-01 with commit "*" in its history)" ]] \
  || fail "respond --list does not name the spec: $list"
json=$(cd "$p" && "$cli" respond --list --json)
[[ $json == *'"spec":"SPC-001-alpha"'* ]] || fail "respond --list --json: $json"
(cd "$p" && "$cli" respond "$a_id" approve --note "alpha looks right" >/dev/null) || fail "respond exited $?"

# 2 + 3. The user drafts in beta's file, then runs beta.
mkdir -p "$p/src/beta" && echo "my precious draft" >"$p/src/beta/a.txt"
orchestrate "$beta" beta1
[[ $rc -eq 3 ]] || fail "beta's run exited $rc, expected 3 (its own checkpoint waits): $out"
b_id=$(opened_id)
[[ $b_id == cp-SPC-002-beta-verify-plan-01-01-* ]] || fail "beta's checkpoint: '$b_id' in $out"
[[ $out != *"$a_id"* ]] || fail "beta's run touched alpha's checkpoint: $out"
[[ $out != *"answered since"* && $out != *"checkpoint_answered"* ]] || fail "beta took an answer nobody gave it: $out"
[[ -f $p/.orchestration/sessions/$a_id/checkpoint.json && -f $p/.orchestration/sessions/$a_id/checkpoint_response.json ]] \
  || fail "alpha's answered checkpoint did not survive beta's run: $(ls "$p/.orchestration/sessions/$a_id")"
status=$(cd "$p" && "$cli" status "$beta")
[[ $status == *$'Waiting for your answer:\n  - verify-plan:01-01 of SPC-002-beta: verification of 01-01'*"harness-cli respond $b_id approve|refuse"* ]] \
  || fail "status of beta: $status"
status=$(cd "$p" && "$cli" status "$alpha")
[[ $status != *"Waiting for your answer"* ]] || fail "status of alpha lists a checkpoint (its own is answered): $status"
committed=$(cd "$p" && git show HEAD:src/beta/a.txt)
[[ $committed == $'my precious draft\nline of 01-01' ]] || fail "beta's first attempt did not keep the user's draft: '$committed'"
[[ ! -e $p/.orchestration/discarded ]] || fail "beta's first attempt reset files: $(find "$p/.orchestration/discarded" -type f)"
log=$(cat "$p"/.orchestration/sessions/execute-01-01-*/output.log)
[[ $log != *"reset 1 declared file"* ]] || fail "a worker took alpha's 01-01 for an earlier attempt of beta's: $log"

# 4. A refusal for beta neither blocks alpha nor is lost to it.
(cd "$p" && "$cli" respond "$b_id" refuse --note "beta output is wrong" >/dev/null) || fail "respond refuse exited $?"
orchestrate "$alpha" alpha2
[[ $rc -eq 0 ]] || fail "alpha's second run exited $rc, expected 0: $out"
[[ $out == *"($a_id: asked by an earlier run, answered since: taking that answer)"* && $out != *"respond $a_id approve|refuse"* ]] \
  || fail "alpha did not take its own answer: $out"
[[ $out == *"checkpoint_answered verify-plan:01-01: approved: alpha looks right"* ]] || fail "alpha's answer: $out"
[[ $out != *"$b_id"* && $out != *"beta output is wrong"* ]] || fail "alpha's run touched beta's checkpoint: $out"
[[ -f $p/.orchestration/sessions/$b_id/checkpoint.json ]] || fail "beta's checkpoint did not survive alpha's run"
orchestrate "$beta" beta2
[[ $rc -eq 1 ]] || fail "beta's refused run exited $rc, expected 1: $out"
[[ $out == *"task_blocked        verify-plan:01-01: refused by a human: beta output is wrong"* ]] || fail "beta's refusal: $out"

echo "orchestrate two specs: all checks passed"
