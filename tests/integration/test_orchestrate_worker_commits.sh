#!/usr/bin/env bash
# Agent workers in parallel slots commit through harness_worker_commit (review F2): 12 plans of
# two tasks in three phases (phases are not gated: a phase's verification and its write-back
# commit run while the other phases' plans do), 4 `--worker command` agents at a time, each
# committing every task and its SUMMARY through the tool while harness writes STATUS.md,
# VERIFICATION.md and commits.log back and commits them; each agent also leaves a scratch file
# staged in the shared index, as a careless worker would. Every plan's commits hold exactly its files, no plan ends blocked, no harness
# document is in a worker's commit and nothing staged is swept into anyone's commit.
# ROUNDS=n runs it n times (it is about races).
set -euo pipefail
cli=${HARNESS_CLI:?}
mcp=${HARNESS_MCP:?}
src=${HARNESS_SOURCE_DIR:?}
source "$src/tests/integration/lib/project.sh"
project_tmp

cat >"$tmp/agent.py" <<'PY'
import json, os, re, subprocess, sys, time
sys.path.insert(0, os.environ["HARNESS_TEST_LIB"])
from mcp_worker import McpWorker, task_input
task = task_input(sys.argv[2])
root = os.environ["HARNESS_PROJECT"]
w = McpWorker(sys.argv[1])
def commit(args):
    r = w.request("tools/call", {"name": "harness_worker_commit", "arguments": args})
    if r.get("isError"):
        w.tool("harness_worker_report", {"type": "task_failed", "payload": {"error": r["content"][0]["text"]}})
        sys.exit(1)
    return r["structuredContent"]
w.tool("harness_worker_report", {"type": "session_ready", "payload": {"adapter": "command"}})
w.tool("harness_worker_report", {"type": "task_started", "payload": {"task_id": task["task"], "attempt": task["attempt"]}})
pid = task["subject"]
text = open(task["plan_file"]).read()
blocks = re.findall(r"```bash\n(.*?)```", text, re.S)
# A careless worker's `git add` of a file of its own; its git may meet another's index.lock.
os.makedirs(f"{root}/scratch", exist_ok=True)
open(f"{root}/scratch/{pid}.tmp", "w").write("staged, never committed\n")
for _ in range(100):
    if subprocess.run(["git", "add", f"scratch/{pid}.tmp"], cwd=root, capture_output=True).returncode == 0:
        break
    time.sleep(0.05)
commits = []
for i, b in enumerate(blocks, 1):
    time.sleep(0.1 * int(pid[:2]))  # later phases work longer: earlier phases verify meanwhile
    subprocess.run(["bash", "-c", b], cwd=root, check=True)
    subprocess.run(["git", "status", "--short"], cwd=root, capture_output=True)  # as agents do
    made = commit({"message": f"feat({pid}): task {i}", "files": [f"out/{pid}.txt"], "task": i})
    commits.append(made["commit"])
    w.tool("harness_worker_report", {"type": "progress_update", "payload": {"message": f"task {i}", "current_task": i, "total_tasks": len(blocks)}})
sf = task["summary_file"]
os.makedirs(os.path.dirname(sf), exist_ok=True)
open(sf, "w").write(f"---\nplan_id: '{pid}'\nstatus: complete\ncommits: {json.dumps(commits)}\n"
                    f"files_touched: [out/{pid}.txt]\ndeviations: []\n---\n# {pid}\n\n## Deviations\nNone.\n")
commit({"message": f"docs({pid}): summary", "files": [sf]})
w.tool("harness_worker_report", {"type": "task_completed", "payload": {"summary_path": sf, "commits": commits, "files_touched": [f"out/{pid}.txt"]}})
w.close()
PY

cat >"$tmp/check.py" <<'PY'
"""Every commit of the run: a plan's carry exactly its files, harness's carry only its documents."""
import re, subprocess, sys
spec, plans = sys.argv[1], sys.argv[2:]
log = subprocess.run(["git", "log", "-z", "--no-renames", "--name-only", "--format=%x1e%H%x1f%B%x1f"],
                     capture_output=True, text=True, check=True).stdout
problems, seen = [], {p: [] for p in plans}
for rec in log.split("\x1e")[1:]:
    h, body, names = rec.split("\x1f")
    files = sorted(n.strip("\n") for n in names.split("\0") if n.strip("\n"))
    m = re.search(r"^Plan: (\S+?)(?:, Task: (\d+)/(\d+))?$", body, re.M)
    subject = body.splitlines()[0]
    if m:
        pid, t = m.group(1), m.group(2)
        seen.setdefault(pid, []).append(t or "summary")
        summary = f"{spec}/execution/phases/{pid[:2]}-p{pid[:2]}/{pid}-SUMMARY.md"
        want = [f"out/{pid}.txt"] if t else [summary]
        if files != want:
            problems.append(f"{h[:10]} '{subject}' holds {files}, expected {want}")
        if f"Spec: {spec.split('/')[-1]}" not in body:
            problems.append(f"{h[:10]} '{subject}' has no Spec trailer")
    elif subject != "init":
        stray = [f for f in files if not f.startswith(spec + "/")]
        if stray:
            problems.append(f"{h[:10]} '{subject}' (harness's) holds {stray}")
for pid in plans:
    if sorted(seen.get(pid, [])) != ["1", "2", "summary"]:
        problems.append(f"plan {pid}: commits {seen.get(pid)}, expected task 1, task 2 and summary")
print("\n".join(problems))
sys.exit(1 if problems else 0)
PY

plans=$(for ph in 01 02 03; do seq -f "$ph-%02g" 1 4; done)
for round in $(seq 1 "${ROUNDS:-1}"); do
  p=$tmp/project-$round
  spec=docs/specs/SPC-021-commits
  mkdir -p "$p/$spec" "$p/.orchestration"
  printf '# SPC-021: commits\n\nTwelve plans committed by parallel agents.\n' >"$p/$spec/SPEC.md"
  for id in $plans; do phase_plan "$p/$spec" "$id"; done
  (cd "$p" && git init -q && git add -A && git commit -qm init)
  rc=0
  (cd "$p" && HARNESS_TEST_LIB=$src/tests/integration/lib "$cli" orchestrate "$spec" --slots 4 --worker command \
     --command "python3 $tmp/agent.py $mcp {prompt_file}" --json >"$tmp/events-$round.jsonl" 2>"$tmp/stderr-$round.log" </dev/null) || rc=$?
  events=$(cat "$tmp/events-$round.jsonl")
  [[ $rc -eq 0 ]] || { tail -40 "$tmp/stderr-$round.log" >&2; grep -E 'failed|blocked|note' <<<"$events" | cut -c1-400 >&2; fail "round $round: orchestrate exited $rc"; }
  ! grep -q '"event":"task_failed"\|"event":"task_blocked"' <<<"$events" \
    || fail "round $round: an attempt failed: $(grep -E 'task_failed|task_blocked' <<<"$events" | cut -c1-400)"
  ! grep -q 'could not commit' <<<"$events" || fail "round $round: $(grep 'could not commit' <<<"$events" | cut -c1-400)"
  [[ $(grep -c '"event":"task_succeeded",.*"task":"execute:' <<<"$events") -eq 12 ]] || fail "round $round: not every plan succeeded"
  # shellcheck disable=SC2086
  (cd "$p" && python3 "$tmp/check.py" "$spec" $plans) || fail "round $round: commits mixed up (above)"
  # The scratch files stay staged, in nobody's commit; nothing else is left over.
  left=$(cd "$p" && git status --porcelain | grep -v '^A  scratch/' || true)
  [[ -z $left ]] || fail "round $round: left uncommitted: $left"
  [[ $(cd "$p" && git status --porcelain | grep -c '^A  scratch/') -eq 12 ]] || fail "round $round: a staged scratch file was committed"
done
echo "orchestrate worker commits: all checks passed (${ROUNDS:-1} round(s))"
