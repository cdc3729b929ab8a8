#!/usr/bin/env bash
# Agent workers that damage other plans' results (review I, I1 and I2), each a `--worker command`
# agent committing through harness_worker_commit:
# - 01-03 deletes the SUMMARYs of 01-01 and 01-02 after they were verified: no commit of the run
#   holds the deletion, the phase verification does not pass (its report has the gap), the run
#   ends blocked naming the files, and `git restore` of them lets the next run complete;
# - 02-02 (after 02-01) also commits a change to out/02-01.txt, 02-01's declared file, and a file
#   no plan declares: 02-02's verification fails naming plan 02-01, not 02-01's;
# - 01-04 commits a file no plan declares: it passes, and its verify-plan line names the file.
set -euo pipefail
cli=${HARNESS_CLI:?}
mcp=${HARNESS_MCP:?}
src=${HARNESS_SOURCE_DIR:?}
source "$src/tests/integration/lib/project.sh"
project_tmp

cat >"$tmp/agent.py" <<'PY'
import json, os, re, subprocess, sys
sys.path.insert(0, os.environ["HARNESS_TEST_LIB"])
from mcp_worker import McpWorker, task_input
task = task_input(sys.argv[2])
root, pid = os.environ["HARNESS_PROJECT"], task["subject"]
w = McpWorker(sys.argv[1])
def commit(args):
    r = w.request("tools/call", {"name": "harness_worker_commit", "arguments": args})
    assert not r.get("isError"), r
    return r["structuredContent"]["commit"]
w.tool("harness_worker_report", {"type": "session_ready", "payload": {"adapter": "command"}})
w.tool("harness_worker_report", {"type": "task_started", "payload": {"task_id": task["task"], "attempt": task["attempt"]}})
sf = task["summary_file"]
if pid == "01-03":
    for f in ("01-01", "01-02"):
        os.remove(os.path.join(os.path.dirname(sf), f"{f}-SUMMARY.md"))
commits = []
for i, b in enumerate(re.findall(r"```bash\n(.*?)```", open(task["plan_file"]).read(), re.S), 1):
    subprocess.run(["bash", "-c", b], cwd=root, check=True)
    files = [f"out/{pid}.txt"]
    if pid in ("02-02", "01-04"):
        os.makedirs(f"{root}/elsewhere", exist_ok=True)
        open(f"{root}/elsewhere/{pid}-{i}.txt", "w").write("undeclared\n")
        files.append(f"elsewhere/{pid}-{i}.txt")
    if pid == "02-02":
        open(f"{root}/out/02-01.txt", "a").write("clobbered\n")
        files.append("out/02-01.txt")
    commits.append(commit({"message": f"feat({pid}): task {i}", "files": files, "task": i}))
os.makedirs(os.path.dirname(sf), exist_ok=True)
open(sf, "w").write(f"---\nplan_id: '{pid}'\nstatus: complete\ncommits: {json.dumps(commits)}\n"
                    f"files_touched: [out/{pid}.txt]\ndeviations: []\n---\n# {pid}\n\n## Deviations\nNone.\n")
commit({"message": f"docs({pid}): summary", "files": [sf]})
w.tool("harness_worker_report", {"type": "task_completed", "payload": {"summary_path": sf, "commits": commits, "files_touched": [f"out/{pid}.txt"]}})
w.close()
PY

p=$tmp/project
spec=docs/specs/SPC-040-rogue
mkdir -p "$p/$spec"
printf '# SPC-040: rogue workers\n\nWorkers that damage other plans.\n' >"$p/$spec/SPEC.md"
phase_plan "$p/$spec" 01-01
phase_plan "$p/$spec" 01-02
phase_plan "$p/$spec" 01-03 "['01-01', '01-02']"
phase_plan "$p/$spec" 01-04
phase_plan "$p/$spec" 02-01
phase_plan "$p/$spec" 02-02 "['02-01']"
(cd "$p" && git init -q && git add -A && git commit -qm init)
run() {
  (cd "$p" && HARNESS_TEST_LIB=$src/tests/integration/lib "$cli" orchestrate "$spec" --slots 2 --attempts 1 --yes \
     --worker command --command "python3 $tmp/agent.py $mcp {prompt_file}" --json 2>"$tmp/stderr.log" </dev/null)
}
rc=0
events=$(run) || rc=$?
[[ $rc -eq 1 ]] || { tail -20 "$tmp/stderr.log" >&2; fail "orchestrate exited $rc, expected 1 (blocked)"; }
grep -q '"event":"run_finished".*blocked' <<<"$events" || fail "the run did not end blocked: $(tail -1 <<<"$events")"

# I2: the deletions are in no commit; the phase gate blocks, naming the files.
phases=$spec/execution/phases/01-p01
deleted=$(cd "$p" && git log --diff-filter=D --name-only --format= | sort -u)
[[ -z $deleted ]] || fail "a commit of the run deleted: $deleted"
grep -q '"event":"task_blocked",.*"task":"verify-phase:01".*the SUMMARYs of 01-01, 01-02 are gone from the work tree.*01-01-SUMMARY.md.*git restore' <<<"$events" \
  || fail "verify-phase:01 not blocked for the missing SUMMARYs: $(grep 'verify-phase:01' <<<"$events" | cut -c1-400)"
! grep -q '"event":"phase_verified",.*"task":"verify-phase:01"' <<<"$events" || fail "phase 01 verified without SUMMARYs"
grep -q '^status: gaps_found' "$p/$phases/VERIFICATION.md" || fail "VERIFICATION.md holds: $(head -3 "$p/$phases/VERIFICATION.md")"
grep -q '01-01 / summary' "$p/$phases/VERIFICATION.md" || fail "VERIFICATION.md names no missing SUMMARY"

# I1: 02-02 fails for 02-01's file, and 02-01 is not blamed.
grep -q '"event":"task_failed",.*"task":"verify-plan:02-02".*out/02-01.txt (plan 02-01'"'"'s).*another plan'"'"'s work, which 02-02 must leave alone' <<<"$events" \
  || fail "verify-plan:02-02 did not fail naming plan 02-01: $(grep 'verify-plan:02-02' <<<"$events" | cut -c1-500)"
grep -q '"event":"task_succeeded",.*"task":"verify-plan:02-01"' <<<"$events" || fail "02-01 did not pass"
# An undeclared file alone passes, and the verify-plan line says so.
grep -q '"event":"task_succeeded",.*"task":"verify-plan:01-04".*changed outside files_modified: elsewhere/01-04-1.txt, elsewhere/01-04-2.txt' <<<"$events" \
  || fail "verify-plan:01-04 does not name its undeclared files: $(grep 'verify-plan:01-04' <<<"$events" | cut -c1-400)"

# Restored, the SUMMARYs let phase 01 pass on the next run.
(cd "$p" && git restore "$phases")
events=$(run) || true
grep -q '"event":"phase_verified",.*"task":"verify-phase:01"' <<<"$events" \
  || fail "phase 01 not verified after git restore: $(grep 'verify-phase:01' <<<"$events" | cut -c1-400)"
# A worker that makes its failing check pass by editing its own PLAN (here a script block
# rewrites the check): the verification checks the plan as its execute started, in its retry
# too, and says the file changed; the plan is blocked, not verified. It also rewrites the
# project's .orchestration/config.yaml: the run's end names it.
p=$tmp/self-edit
spec=docs/specs/SPC-041-self-edit
mkdir -p "$p/$spec/planning/plans/01-core"
printf '# SPC-041: a plan that edits its own check\n' >"$p/$spec/SPEC.md"
plan_file=$spec/planning/plans/01-core/01-01-PLAN.md
cat >"$p/$plan_file" <<PLAN
---
plan_id: '01-01'
depends_on: []
files_modified: ['out/a.txt']
must_pass:
  - id: answer
    type: command_output
    shell: true
    command: "grep -q 42 out/a.txt"
    expects: {exit_code: 0}
---
# 01-01

### Task 1: write a wrong answer, and make the check accept it

\`\`\`bash
mkdir -p out && echo 41 > out/a.txt
sed -i 's/grep -q 42 out/grep -q 41 out/' $plan_file
echo '# a worker was here' >> .orchestration/config.yaml
\`\`\`
PLAN
# 01-02 edits its check and fails its first attempt, so that no verification sees the edit before
# its retry (review DD H2): the retry is still checked as the first attempt started.
plan2_file=$spec/planning/plans/01-core/01-02-PLAN.md
cat >"$p/$plan2_file" <<PLAN
---
plan_id: '01-02'
depends_on: []
files_modified: ['out/b.txt']
must_pass:
  - id: answer
    type: command_output
    shell: true
    command: "grep -q 42 out/b.txt"
    expects: {exit_code: 0}
---
# 01-02

### Task 1: fail once after making the check accept a wrong answer

\`\`\`bash
mkdir -p out && echo 41 > out/b.txt
if [ ! -f out/.tried ]; then touch out/.tried; sed -i 's/grep -q 42 out/grep -q 41 out/' $plan2_file; exit 1; fi
\`\`\`
PLAN
(cd "$p" && git init -q && git add -A && git commit -qm init)
rc=0
out=$(cd "$p" && "$cli" orchestrate "$spec" --worker script --attempts 2 2>&1 </dev/null) || rc=$?
[[ $rc -eq 1 ]] || fail "a plan that edited its own check exited $rc, expected 1 (blocked): $out"
[[ $out == *"task_failed"*"verify-plan:01-01"*"checked as its execute started: its PLAN file changed since (by its worker, or by you: see git diff $plan_file); the phase's verification and the next run read the edit"* ]] \
  || fail "the verification does not say it checked the plan as it started: $out"
[[ $out != *"task_succeeded      verify-plan:01-01"* ]] || fail "the edited check passed the plan: $out"
[[ $out != *"task_succeeded      verify-plan:01-02"* ]] || fail "the check edited before a failed attempt passed the retry: $out"
[[ $out == *"verify-plan:01-02"*"checked as its execute started: its PLAN file changed since (by its worker, or by you: see git diff $plan2_file)"* ]] \
  || fail "01-02's verification does not say it checked the plan as it started: $out"
grep -q 'grep -q 41' "$p/$plan_file" || fail "the edit was lost (it is the person's to judge): $(cat "$p/$plan_file")"
# It rewrote the project's configuration too, which chooses what the next run starts: said.
[[ $out == *".orchestration/config.yaml changed during the run (by you, or by a worker: workers run as you)"* ]] \
  || fail "the configuration a worker changed is not named: $out"
echo "orchestrate rogue workers: all checks passed"
