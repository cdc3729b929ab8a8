#!/usr/bin/env bash
# A GSD v1 project (`.planning/`) whose first phase GSD itself executed: its commits name the
# plans in their subjects (`feat(01-01): ...`) and carry no trailers, its SUMMARYs are GSD's, and
# there is no 01-VERIFICATION.md. `orchestrate .` (script worker, real git) must verify phase 1
# from those commits without executing it again or touching GSD's SUMMARYs and STATE.md, run
# phase 2, and make commits that a clone under another directory name still counts.
set -euo pipefail
cli=${HARNESS_CLI:?}
src=${HARNESS_SOURCE_DIR:?}
source "$src/tests/integration/lib/project.sh"
project_tmp
p=$tmp/notes
g=$p/.planning
mkdir -p "$g/phases/01-core" "$g/phases/02-tags" "$p/src"
printf '# Notes\n\nA note-taking CLI.\n' >"$g/PROJECT.md"
cat >"$g/ROADMAP.md" <<'EOF'
# Roadmap: Notes

## Phases

- [ ] **Phase 1: Core** - store notes
- [ ] **Phase 2: Tags** - tag notes

### Phase 1: Core
**Depends on**: Nothing (first phase)
Plans:
- [ ] 01-01: storage
- [ ] 01-02: listing

### Phase 2: Tags
**Depends on**: Phase 1
Plans:
- [ ] 02-01: tags
- [ ] 02-02: tags checked

## Progress

| Phase | Plans Complete | Status | Completed |
|-------|----------------|--------|-----------|
| 1. Core | 2/2 | Complete | 2025-11-18 |
| 2. Tags | 0/2 | Not started | - |
EOF
cat >"$g/REQUIREMENTS.md" <<'EOF'
# Requirements: Notes

- [x] **CORE-01**: notes are stored
- [ ] **TAG-01**: notes have tags
- [ ] **TAG-02**: tags are checked by a person

## Traceability

| Requirement | Phase | Status |
|-------------|-------|--------|
| CORE-01 | Phase 1 | Complete |
| TAG-01 | Phase 2 | Pending |
| TAG-02 | Phase 2 | Pending |
EOF
state='# Project State

## Current Position

Phase: 2 of 2 (Tags)
Plan: 0 of 1

## Decisions

- Notes are plain files.
'
printf '%s' "$state" >"$g/STATE.md"
gsd_plan() { # ID FILE: a GSD plan of phase 1 whose one task writes FILE
  cat >"$g/phases/01-core/$1-PLAN.md" <<EOF
---
phase: 01-core
plan: ${1#01-}
type: execute
depends_on: []
files_modified: [$2]
autonomous: true
---
<objective>
Write $2.
</objective>
<tasks>
<task type="auto">
  <name>Task 1: write $2</name>
  <files>$2</files>
  <action>Write it.</action>
  <verify>test -f $2</verify>
  <done>It exists.</done>
</task>
</tasks>
EOF
}
gsd_plan 01-01 src/store.txt
gsd_plan 01-02 src/list.txt
cat >"$g/phases/02-tags/02-01-PLAN.md" <<'EOF'
---
phase: 02-tags
plan: 01
depends_on: ["01-01"]
requirements: [TAG-01]
files_modified: [src/tags.txt]
must_pass:
  - {id: tags, type: file_exists, path: src/tags.txt}
---
# 02-01: tags

### Task 1: write the tags

```bash
echo tags > src/tags.txt
```
EOF
cat >"$g/phases/02-tags/02-02-PLAN.md" <<'EOF'
---
phase: 02-tags
plan: 02
depends_on: ["01"]
requirements: [TAG-02]
files_modified: [src/checked.txt]
autonomous: false
---
```bash
echo checked > src/checked.txt
setsid sleep 1001 >/dev/null 2>&1 </dev/null &
```

<tasks>
<task type="checkpoint:human-verify" gate="blocking">
  <what-built>Tags on the list page</what-built>
  <how-to-verify>
    1. Run: notes list
    2. See the tags column
  </how-to-verify>
  <resume-signal>Type "approved"</resume-signal>
</task>
</tasks>
EOF
(cd "$p" && git init -q && git add .planning && git commit -qm 'docs: plan phases 1 and 2')
# GSD's executor: a commit per task, then the SUMMARY, then its own docs commit.
for id in 01-01 01-02; do
  f=$(sed -n 's/^files_modified: \[\(.*\)\]$/\1/p' "$g/phases/01-core/$id-PLAN.md")
  echo "$id" >"$p/$f"
  (cd "$p" && git add "$f" && git commit -qm "feat($id): write $f")
  printf -- '---\nphase: 01-core\nplan: %s\nsubsystem: core\nrequirements-completed: [CORE-0%s]\n---\n# %s summary\n\nWrote %s.\n' \
    "${id#01-}" "${id#01-0}" "$id" "$f" >"$g/phases/01-core/$id-SUMMARY.md"
  (cd "$p" && git add .planning && git commit -qm "docs($id): complete ${f#src/} plan")
done
(cd "$p" && git commit -q --allow-empty -m 'docs(phase-01): phase complete')
cp "$g/phases/01-core/01-01-SUMMARY.md" "$tmp/summary.before"

st=$(cd "$p" && "$cli" status .)
[[ $st == *"plan 01-01: executed, its checks not run"* ]] || fail "status before the run: $st"

rc=0
(cd "$p" && timeout 120 "$cli" orchestrate . --worker script --yes >"$tmp/run.out" 2>&1 </dev/null) || rc=$?
out=$(cat "$tmp/run.out")
[[ $rc -eq 0 && $out == *"run_finished       : complete"* ]] || fail "the run (exit $rc): $out"
started=$(grep -o 'task_started  *[^ ]*' <<<"$out" | awk '{print $2}' | sort | tr '\n' ' ')
[[ $started == "execute:02-01 execute:02-02 final verify-phase:01 verify-phase:02 verify-plan:01-01 verify-plan:01-02 verify-plan:02-01 verify-plan:02-02 verify-plan:02-02 " ]] ||
  fail "tasks run (phase 1 must be verified, not executed again): $started"
# The person asked to approve 02-02 is told what GSD's checkpoint task says to look at (--yes answers;
# the approved checkpoint comes back as a second verify-plan:02-02).
# What its worker left running (a server the steps point at) is gone by then: the question says so.
[[ $out == *"verification of 02-02: automated checks passed ("*"); built: Tags on the list page; to check: 1. Run: notes list 2. See the tags column; what the plan's worker left running (\`sleep 1001\`) was stopped when it ended: start it again to check"* ]] ||
  fail "02-02's checkpoint question: $(grep 02-02 <<<"$out")"
grep -q '^approved_by: "orchestrate --yes (its checks passed)"$' "$g/phases/02-tags/02-02-SUMMARY.md" ||
  fail "02-02's SUMMARY does not say who approved it: $(cat "$g/phases/02-tags/02-02-SUMMARY.md")"
# What GSD wrote stays; harness adds its verification's outcome to the frontmatter.
[[ $(grep -v '^verification: passed$' "$g/phases/01-core/01-01-SUMMARY.md") == "$(cat "$tmp/summary.before")" ]] ||
  fail "GSD's SUMMARY was rewritten: $(cat "$g/phases/01-core/01-01-SUMMARY.md")"
[[ $(cat "$g/STATE.md") == "$(printf '%s' "$state")" ]] || fail "GSD's STATE.md changed: $(cat "$g/STATE.md")"
grep -q "^status: passed" "$g/phases/01-core/01-VERIFICATION.md" || fail "phase 1's report: $(cat "$g/phases/01-core/01-VERIFICATION.md")"
grep -q "2 commits GSD made ('feat(01-01): write src/store.txt'), without trailers" "$g/phases/01-core/01-VERIFICATION.md" ||
  fail "phase 1's report does not say whose commits count: $(cat "$g/phases/01-core/01-VERIFICATION.md")"
log=$(cd "$p" && git log --format=%B --grep 'Plan: 02-01')
[[ $log == *"Spec: .planning"* && $log != *"Spec: notes"* ]] || fail "02-01's commits' spec trailer: $log"
[[ -z $(cd "$p" && git status --porcelain) ]] || fail "left uncommitted: $(cd "$p" && git status --porcelain)"

# GSD's ROADMAP: the checkboxes ticked and the Progress table's rows as GSD keeps them.
grep -q '^- \[x\] 02-02: tags checked$' "$g/ROADMAP.md" || fail "ROADMAP checkboxes: $(cat "$g/ROADMAP.md")"
grep -q '^| 1. Core | 2/2 | Complete | 2025-11-18 |$' "$g/ROADMAP.md" || fail "ROADMAP phase 1 row: $(cat "$g/ROADMAP.md")"
grep -Eq '^\| 2\. Tags \| 2/2 \| Complete \| 20[0-9]{2}-[0-9]{2}-[0-9]{2} \|$' "$g/ROADMAP.md" || fail "ROADMAP phase 2 row: $(cat "$g/ROADMAP.md")"

# GSD's REQUIREMENTS: the requirements phase 2's plans meet ticked, as GSD marks them.
grep -q '^- \[x\] \*\*TAG-01\*\*: notes have tags$' "$g/REQUIREMENTS.md" || fail "REQUIREMENTS checklist: $(cat "$g/REQUIREMENTS.md")"
grep -q '^| TAG-02 | Phase 2 | Complete |$' "$g/REQUIREMENTS.md" || fail "REQUIREMENTS traceability: $(cat "$g/REQUIREMENTS.md")"

# A teammate's clone under another name: the same plans, the same commits, all verified.
git clone -q "$p" "$tmp/elsewhere"
rc=0
(cd "$tmp/elsewhere" && "$cli" verify . --final >"$tmp/final.out" 2>&1) || rc=$?
[[ $rc -eq 0 ]] || fail "verify --final in a clone under another name (exit $rc): $(cat "$tmp/final.out")"
st=$(cd "$tmp/elsewhere" && "$cli" status .)
[[ $st == "elsewhere: 4/4 plans verified (100%), 4 executed, complete"* ]] || fail "status in the clone: $st"
echo "ok"
