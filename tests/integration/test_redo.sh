#!/usr/bin/env bash
# `harness-cli redo` (script worker, real git): a plan whose second task had a wrong shell block
# fails its verification (the block message says that executing again ran nothing and points at
# redo); the user fixes the PLAN, asks for task 2 again, and the next
# orchestrate runs task 2 only (task 1's commit still stands), then verifies the plan, the phase
# and the final again. Bad targets exit 2 and change nothing. A worker a killed run left working
# on the plan is stopped by redo.
set -euo pipefail
cli=${HARNESS_CLI:?}
src=${HARNESS_SOURCE_DIR:?}
source "$src/tests/integration/lib/project.sh"
project_tmp
spec=docs/specs/SPC-001-redo
p=$tmp/p
s=$p/$spec
plan=$s/planning/plans/01-core/01-01-PLAN.md
mkdir -p "$(dirname "$plan")"
printf '# Redo\n\nOne plan of two tasks.\n' >"$s/SPEC.md"
cat >"$s/ROADMAP.md" <<'ROADMAP'
---
status: planning
total_plans: 1
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
- [ ] 01-01: core
ROADMAP
cat >"$plan" <<'PLAN'
---
plan_id: '01-01'
depends_on: []
files_modified: ['out/**']
must_pass:
  - id: greeting
    type: command_output
    shell: true
    command: "grep -qx hello out/b.txt"
    expects: {exit_code: 0}
---
# 01-01

### Task 1: first file

```bash
mkdir -p out && date +%s%N > out/a.txt
```

### Task 2: greeting

```bash
echo helo > out/b.txt
```
PLAN
(cd "$p" && git init -q && git add -A && git commit -qm init)

run() { # log name [orchestrate args, default: --worker script] -> output in $out, exit code in $rc
  rc=0
  local name=$1
  shift
  [[ $# -gt 0 ]] || set -- --worker script
  (cd "$p" && timeout 120 "$cli" orchestrate "$spec" --yes "$@" >"$tmp/$name.out" 2>&1 </dev/null) || rc=$?
  out=$(cat "$tmp/$name.out")
}
redo() { # args -> output in $out (stdout and stderr), exit code in $rc
  rc=0
  out=$(cd "$p" && "$cli" redo "$spec" "$@" 2>&1) || rc=$?
}
commits_of() { (cd "$p" && git log --format=%H --fixed-strings --grep "Plan: 01-01, Task: $1/" | wc -l); }

run first
[[ $rc -eq 1 && $out == *blocked* ]] || fail "the first run should block on the failed check: rc $rc: $out"
# The retry executed the plan again but ran nothing (both tasks committed): the block says what helps.
hint="executing 01-01 again ran none of its tasks (2 committed, and a committed task does not run again): if its PLAN was wrong, fix it, then harness-cli redo $spec 01-01[:TASK]"
[[ $out == *"task_blocked"*"$hint"* ]] || fail "the block does not point at redo: $out"
st=$(cd "$p" && "$cli" status "$spec")
[[ $st == *"$hint"* ]] || fail "status does not point at redo: $st"
first_a=$(cat "$p/out/a.txt")

# The user fixes the block (and commits it only after redo has said so).
sed -i 's/echo helo/echo hello/' "$plan"
head_before=$(cd "$p" && git rev-parse HEAD)

# Bad targets: exit 2, nothing written.
redo 01-09
[[ $rc -eq 2 && $out == *"no plan 01-09 in SPC-001-redo (its plans: 01-01)"* ]] || fail "unknown plan: rc $rc: $out"
redo 01-01:3
[[ $rc -eq 2 && $out == *"plan 01-01 has 2 tasks: there is no task 3"* ]] || fail "unknown task: rc $rc: $out"
redo 01-01:two
[[ $rc -eq 2 && $out == *"'two' is not a task number"* ]] || fail "bad task: rc $rc: $out"
[[ $(cd "$p" && git rev-parse HEAD) == "$head_before" ]] || fail "a refused redo committed something"

redo 01-01:2 --note "task 2 wrote helo"
[[ $rc -eq 0 && $out == *"01-01: task 2 runs again at the next orchestrate"* && $out == *"next: harness-cli orchestrate $spec"* ]] \
  || fail "redo: rc $rc: $out"
msg=$(cd "$p" && git log -1 --format=%B)
[[ $msg == *"Redo: 01-01, Task: 2"* && $msg == *"Spec: SPC-001-redo"* && $msg == *"task 2 wrote helo"* ]] || fail "marker commit: $msg"
[[ ! -e $s/execution/phases/01-core/01-01-SUMMARY.md ]] || fail "the SUMMARY is still there"
# The fixed PLAN no commit holds yet is named, with the command that commits it (review PP F5).
[[ $out == *"01-01: its PLAN file has changes no commit holds ($spec/planning/plans/01-core/01-01-PLAN.md): the next run executes it as it is now"* ]] \
  || fail "redo does not name the uncommitted PLAN: $out"
[[ $(cd "$p" && git status --porcelain) == " M $spec/planning/plans/01-core/01-01-PLAN.md" ]] || fail "redo committed the PLAN edit or left other changes"
(cd "$p" && git commit -qam "fix 01-01's greeting")
[[ -z $(cd "$p" && git status --porcelain) ]] || fail "redo left changes: $(cd "$p" && git status --porcelain)"
st=$(cd "$p" && "$cli" status "$spec")
[[ $st == *"0 executed"* ]] || fail "status after redo: $st"
# Asked twice: nothing more to do, nothing committed; --json says so.
json=$(cd "$p" && "$cli" redo "$spec" 01-01:2 --json)
python3 -c 'import json,sys; d=json.loads(sys.argv[1]); assert d["commit"] is None and d["plans"][0]["nothing_to_do"], d' "$json" \
  || fail "second redo: $json"

# The worker is the script worker behind a command that keeps its prompt: the redo's note reaches
# the plan's next worker (person_notes), as an agent's input.
run second --worker command --command "bash -c \"cp {prompt_file} $tmp/prompt-{session_id}.md; exec {harness_cli} script-worker\""
[[ $rc -eq 0 && $out == *"run_finished       : complete"* ]] || fail "the run after redo: rc $rc: $out"
grep -q '"person_notes":\["asked to run again (harness-cli redo, commit [0-9a-f]*): task 2 wrote helo"\]' "$tmp"/prompt-execute-01-01-*.md \
  || fail "the redo's note is not in the worker's input: $(grep -o '"person_notes[^]]*]' "$tmp"/prompt-execute-01-01-*.md)"
[[ $(cat "$p/out/b.txt") == hello ]] || fail "task 2 did not run again: $(cat "$p/out/b.txt")"
[[ $(cat "$p/out/a.txt") == "$first_a" ]] || fail "task 1 ran again"
[[ $(commits_of 1) -eq 1 && $(commits_of 2) -eq 2 ]] || fail "task commits: task 1 $(commits_of 1), task 2 $(commits_of 2)"
[[ -f $s/execution/phases/01-core/01-01-SUMMARY.md ]] || fail "no SUMMARY after the run"
[[ $(grep -c '01-01' "$s/execution/FINAL-VERIFICATION.md") -ge 1 ]] || fail "no final verification"
(cd "$p" && "$cli" verify "$spec" 01-01 >"$tmp/verify.out" 2>&1) || fail "verify 01-01 after the redo: $(cat "$tmp/verify.out")"
[[ -z $(cd "$p" && git status --porcelain) ]] || fail "left uncommitted: $(cd "$p" && git status --porcelain)"

# The whole plan: both tasks run again. STATUS.md and ROADMAP.md no longer say it is done, in the
# same commit.
grep -q '^- \[x\] 01-01' "$s/ROADMAP.md" || fail "the complete run did not tick 01-01: $(cat "$s/ROADMAP.md")"
redo 01-01
[[ $rc -eq 0 && $out == *"01-01: every task runs again"* ]] || fail "redo of the plan: rc $rc: $out"
[[ $out == *"updated $spec/STATUS.md and $spec/ROADMAP.md to match"* ]] || fail "redo did not update the documents: $out"
grep -q '^- \[ \] 01-01' "$s/ROADMAP.md" || fail "ROADMAP.md still ticks 01-01: $(cat "$s/ROADMAP.md")"
grep -q '^completed_plans: 0$' "$s/ROADMAP.md" || fail "ROADMAP.md's progress: $(cat "$s/ROADMAP.md")"
grep -q '^run: "redo"$' "$s/STATUS.md" && grep -q '0/1 plans verified' "$s/STATUS.md" || fail "STATUS.md: $(cat "$s/STATUS.md")"
[[ $(cd "$p" && git show --name-only --format= HEAD | sort | tr '\n' ' ') == \
   "$spec/ROADMAP.md $spec/STATUS.md $spec/execution/phases/01-core/01-01-SUMMARY.md " ]] \
  || fail "the marker commit: $(cd "$p" && git show --name-only --format= HEAD)"
[[ -z $(cd "$p" && git status --porcelain) ]] || fail "redo left changes: $(cd "$p" && git status --porcelain)"
run third
[[ $rc -eq 0 && $out == *"run_finished       : complete"* ]] || fail "the run after redo of the plan: rc $rc: $out"
[[ $(cat "$p/out/a.txt") != "$first_a" ]] || fail "task 1 did not run again"
[[ $(commits_of 1) -eq 2 ]] || fail "task 1 commits: $(commits_of 1)"

# A run killed while 01-01's task 2 still works (a sleep, the first time only): redo stops that
# worker before it can commit the old block's output after the marker.
sleeper=$((800000 + RANDOM))
sed -i "s|^echo hello > out/b.txt\$|if [ ! -e $tmp/slept ]; then touch $tmp/slept; sleep $sleeper; fi; echo hello > out/b.txt|" "$plan"
(cd "$p" && git commit -qam "task 2 sleeps once")
(cd "$p" && "$cli" redo "$spec" 01-01:2 >/dev/null)
(cd "$p" && exec "$cli" orchestrate "$spec" --worker script --yes >"$tmp/killed.out" 2>&1) &
orch=$!
for _ in $(seq 1 100); do pgrep -f "sleep $sleeper" >/dev/null && break; sleep 0.1; done
pgrep -f "sleep $sleeper" >/dev/null || fail "task 2 never started: $(cat "$tmp/killed.out")"
kill -KILL $orch; wait $orch 2>/dev/null || true
# Another spec's killed run left a worker on its own 01-01: not this redo's to stop.
other_sleeper=$((900000 + RANDOM))
setsid sleep $other_sleeper &
other=$!
mkdir -p "$p/.orchestration/sessions/execute-01-01-other"
printf '{"pid":%d,"start_ticks":%s,"task":"execute:01-01","session":"execute-01-01-other","spec":"SPC-002-other"}\n' \
  $other "$(sed 's/.*) //' /proc/$other/stat | cut -d' ' -f20)" >"$p/.orchestration/sessions/execute-01-01-other/worker.json"
# A worker record harness did not write (its pid a string) names no worker: redo and the next
# run go on, the run says so and sets it aside.
mkdir -p "$p/.orchestration/sessions/execute-01-01-foreign"
echo '{"pid": "4242", "task": "execute:01-01"}' >"$p/.orchestration/sessions/execute-01-01-foreign/worker.json"
# Each in the index of worker records, as harness writes a record (a record nothing indexes is not
# looked at: a run's start reads these, not every session directory there ever was).
touch "$p/.orchestration/index/worker_records/execute-01-01-other" "$p/.orchestration/index/worker_records/execute-01-01-foreign"
redo 01-01:2
[[ $rc -eq 0 && $out == *"stopped execute:01-01 (pid "*"): a worker an earlier run left running"* ]] || fail "redo after kill -9: rc $rc: $out"
if pgrep -f "sleep $sleeper" >/dev/null; then fail "the old worker still runs"; fi
[[ $out != *"pid $other"* ]] && kill -0 $other || fail "redo stopped another spec's worker: $out"
kill $other; wait $other 2>/dev/null || true
run fourth
[[ $rc -eq 0 && $out == *"run_finished       : complete"* && $(cat "$p/out/b.txt") == hello ]] || fail "the run after redo after kill -9: rc $rc: $out"
[[ $out == *"execute-01-01-foreign/worker.json: pid and start_ticks are not both positive numbers; set aside as worker.ended.json"* &&
   -e $p/.orchestration/sessions/execute-01-01-foreign/worker.ended.json ]] || fail "the foreign worker record: $out"
# A ROADMAP.md with an edit of the user's: its progress is updated in place, the edit kept, and the
# file left out of the marker commit for its author to commit.
echo "- a note of mine" >>"$s/ROADMAP.md"
redo 01-01
[[ $rc -eq 0 && $out == *"updated $spec/ROADMAP.md to match but did not commit it"* ]] || fail "redo with an edited roadmap: rc $rc: $out"
grep -q '^- a note of mine$' "$s/ROADMAP.md" && grep -q '^- \[ \] 01-01' "$s/ROADMAP.md" || fail "ROADMAP.md: $(cat "$s/ROADMAP.md")"
[[ $(cd "$p" && git status --porcelain) == " M $spec/ROADMAP.md" ]] || fail "after redo: $(cd "$p" && git status --porcelain)"
[[ $(cd "$p" && git show --name-only --format= HEAD | tr '\n' ' ') == *"$spec/STATUS.md"* ]] || fail "STATUS.md not committed"
echo "PASS"
