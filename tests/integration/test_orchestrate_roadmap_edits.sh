#!/usr/bin/env bash
# A person's uncommitted edits to ROADMAP.md stay theirs to commit (script worker, real git):
# harness updates the progress in the file (frontmatter, checkboxes) but does not sweep the edit
# into its own docs commit, and says so: edits there when the run starts, or made while it runs.
# Without such edits it commits its progress as before. A spec that was never committed is named
# as such when the run starts: its PLAN files, SPEC.md and ROADMAP.md, not "edits".
set -euo pipefail
cli=${HARNESS_CLI:?}
src=${HARNESS_SOURCE_DIR:?}
source "$src/tests/integration/lib/project.sh"
project_tmp
spec=docs/specs/SPC-001-roadmap
p=$tmp/p
s=$p/$spec
mkdir -p "$s"
printf '# Roadmap edits\n' >"$s/SPEC.md"
cat >"$s/ROADMAP.md" <<'ROADMAP'
---
current_phase: 1
status: planning
total_phases: 1
completed_phases: 0
total_plans: 2
completed_plans: 0
velocity:
  total_plans_completed: 0
  total_execution_minutes: 0
  average_minutes_per_plan: 0
---
# Roadmap

## Phase 1: Core
**Goal**: two files.

Plans:
- [ ] 01-01: first
- [ ] 01-02: second
ROADMAP
phase_plan "$s" 01-01
phase_plan "$s" 01-02
(cd "$p" && git init -q && git add -A && git commit -qm init)

run() { # log -> output in $out, exit code in $rc
  rc=0
  (cd "$p" && timeout 120 "$cli" orchestrate "$spec" --worker script --yes >"$tmp/$1.out" 2>&1 </dev/null) || rc=$?
  out=$(cat "$tmp/$1.out")
}

# 1. An edit of the user's, not committed, when the run starts.
printf '\nA note of mine about the roadmap.\n' >>"$s/ROADMAP.md"
run edited
[[ $rc -eq 0 && $out == *"run_finished       : complete"* ]] || fail "the run: rc $rc: $out"
[[ $out == *"ROADMAP.md has uncommitted edits harness did not make: it keeps updating its progress there but does not commit the file"* ]] \
  || fail "the run does not say it leaves ROADMAP.md alone: $out"
grep -q '^completed_plans: 2' "$s/ROADMAP.md" || fail "progress not written: $(head -8 "$s/ROADMAP.md")"
grep -q 'A note of mine' "$s/ROADMAP.md" || fail "the user's note is gone"
if (cd "$p" && git log -p --format= -- "$spec/ROADMAP.md" | grep -q 'A note of mine'); then fail "harness committed the user's note"; fi
[[ $(cd "$p" && git status --porcelain) == " M $spec/ROADMAP.md" ]] || fail "status after the run: $(cd "$p" && git status --porcelain)"

# 2. The user commits; a plan is added; nothing uncommitted: harness commits its progress again.
(cd "$p" && git commit -qam "my roadmap note")
phase_plan "$s" 01-03
(cd "$p" && git add -A && git commit -qm "01-03")
run clean
[[ $rc -eq 0 && $out != *"uncommitted edits harness did not make"* ]] || fail "the clean run: rc $rc: $out"
grep -q '^completed_plans: 3' "$s/ROADMAP.md" || fail "progress not written: $(head -8 "$s/ROADMAP.md")"
[[ -z $(cd "$p" && git status --porcelain) ]] || fail "left uncommitted: $(cd "$p" && git status --porcelain)"

# 3. Someone edits ROADMAP.md while the run goes on (here: 01-04's block, after 01-03's progress
#    was written): noticed at the next progress write, and left uncommitted from then on.
cat >"$s/planning/plans/01-p01/01-04-PLAN.md" <<PLAN
---
plan_id: '01-04'
depends_on: ['01-03']
files_modified: ['out/01-04.txt']
---
# 01-04

### Task 1: write, and edit the roadmap as a person would

\`\`\`bash
mkdir -p out && echo 01-04 > out/01-04.txt && printf '\nEdited during the run.\n' >> $spec/ROADMAP.md
\`\`\`
PLAN
(cd "$p" && git add -A && git commit -qm "01-04")
run during
[[ $rc -eq 0 && $out == *"ROADMAP.md has uncommitted edits harness did not make"* ]] || fail "the run with an edit meanwhile: rc $rc: $out"
grep -q '^completed_plans: 4' "$s/ROADMAP.md" || fail "progress not written: $(head -8 "$s/ROADMAP.md")"
if (cd "$p" && git log -p --format= -- "$spec/ROADMAP.md" | grep -q 'Edited during the run'); then fail "harness committed the edit"; fi
[[ $(cd "$p" && git status --porcelain) == " M $spec/ROADMAP.md" ]] || fail "status after the run: $(cd "$p" && git status --porcelain)"

# 4. A plan whose files_modified covers the spec directory (`docs/**`, and specs live in
#    docs/specs/): its worker commits the plan's file, never the person's uncommitted SPEC.md edit
#    or harness's documents, and its retry (the first attempt fails) does not reset that edit away.
(cd "$p" && git commit -qam "the roadmap, edited")
printf '
A requirement I am still writing.
' >>"$s/SPEC.md"
cat >"$s/planning/plans/01-p01/01-05-PLAN.md" <<PLAN
---
plan_id: '01-05'
depends_on: ['01-04']
files_modified: ['docs/**']
---
# 01-05

### Task 1: the guide

\`\`\`bash
mkdir -p docs && echo guide > docs/guide.md
if [ ! -e $tmp/failed-once ]; then touch $tmp/failed-once; exit 1; fi
\`\`\`
PLAN
(cd "$p" && git add "$spec/planning" && git commit -qm "01-05")
run docs
[[ $rc -eq 0 && $out == *"run_finished       : complete"* && -e $tmp/failed-once ]] || fail "the docs run: rc $rc: $out"
grep -q 'A requirement I am still writing' "$s/SPEC.md" || fail "the retry reset the person's SPEC.md edit"
if (cd "$p" && git log -p --format= -- "$spec/SPEC.md" | grep -q 'still writing'); then fail "the plan committed the SPEC.md edit"; fi
[[ $(cd "$p" && git log --format= --name-only --fixed-strings --grep "Plan: 01-05, Task: 1/1" | sort -u | tr '\n' ' ') == "docs/guide.md " ]] \
  || fail "01-05's commit: $(cd "$p" && git log --format= --name-only --fixed-strings --grep "Plan: 01-05, Task: 1/1")"
[[ $(cd "$p" && git status --porcelain) == " M $spec/SPEC.md" ]] || fail "status after the docs run: $(cd "$p" && git status --porcelain)"
# 5. The spec written (init, the plans) but never committed: the run says so before any worker
#    runs, and ROADMAP.md "is not committed" rather than edited.
q=$tmp/q
mkdir -p "$q/docs/specs"
cp -r "$s" "$q/docs/specs/"
rm -rf "$q/$spec/execution" "$q/$spec/STATUS.md" "$q/$spec/planning/plans/01-p01/01-0"[345]-PLAN.md
(cd "$q" && git init -q && echo x >README.md && git add README.md && git commit -qm init)
rc=0
out=$(cd "$q" && timeout 120 "$cli" orchestrate "$spec" --worker script --yes 2>&1 </dev/null) || rc=$?
[[ $rc -eq 0 ]] || fail "the run of an uncommitted spec: rc $rc: $out"
first=$(grep -m1 ' note ' <<<"$out")
[[ $first == *"note               : the spec's own files are not committed: SPEC.md, ROADMAP.md and 2 of its 2 PLAN files; a run executes them but commits only its own outputs"*"(git add $spec && git commit)" ]] \
  || fail "no start note about the uncommitted spec: $out"
[[ $out == *"ROADMAP.md is not committed: it keeps updating its progress there but does not commit the file"* && $out != *"uncommitted edits"* ]] \
  || fail "the ROADMAP.md note: $out"
echo PASS
