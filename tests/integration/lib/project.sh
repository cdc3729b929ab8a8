# Shared by the integration tests that run harness-cli on throwaway git projects (sourced, not run).
# Needs: $src (HARNESS_SOURCE_DIR).

# fail MESSAGE: ends the test, with MESSAGE on stderr.
fail() { echo "FAIL: $*" >&2; exit 1; }

# project_tmp: sets tmp to a new directory for the test's projects, whose commits get a fixed
# author. At exit every process still running from it (workers, servers a plan started, API stubs)
# is killed, then it is removed; KEEP=1 keeps it for a look.
project_tmp() {
  tmp=$(mktemp -d)
  # $orch: a run a test started in the background, stopped first (it would start workers again).
  # Every step may fail (the run ended long ago) without failing the test: errexit holds in traps.
  trap '[[ -z "${orch:-}" ]] || kill -KILL "$orch" 2>/dev/null || true; pkill -KILL -f "$tmp" 2>/dev/null || true; [[ -n "${KEEP:-}" ]] || rm -rf "$tmp"' EXIT
  export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com
}

# example_project DIR: a git project with the example spec SPC-001-task-tracker committed.
example_project() {
  mkdir -p "$1/docs/specs"
  cp -r "$src/examples/specs/SPC-001-task-tracker" "$1/docs/specs/"
  (cd "$1" && git init -q && git add -A && git commit -qm init)
}

# core_plan SPEC_DIR ID [DEPS] [FILES] [ESTIMATE] [BEFORE]: writes plan ID of phase 01
# (planning/plans/01-core/) through a rename, as editors do, so that a run watching the directory
# never reads half a file: depends_on DEPS ([]), files_modified FILES (['out/ID.txt']), estimate
# ESTIMATE minutes (none), and one bash task that runs the line BEFORE (when given), then writes
# out/ID.txt; must_pass checks that it exists.
core_plan() {
  local s=$1 id=$2 deps=${3:-[]} files=${4:-} est=${5:-} before=${6:-}
  local d=$s/planning/plans/01-core
  mkdir -p "$d"
  cat >"$d/.$id.tmp" <<PLAN
---
plan_id: '$id'
depends_on: $deps
files_modified: ${files:-['out/$id.txt']}
${est:+estimate: $est
}must_pass:
  - id: written
    type: file_exists
    path: out/$id.txt
---
# $id

### Task 1: write

\`\`\`bash
${before:+$before
}mkdir -p out && echo $id > out/$id.txt
\`\`\`
PLAN
  mv "$d/.$id.tmp" "$d/$id-PLAN.md"
}

# file_plans_project DIR SPEC TITLE ID...: a git project whose spec (SPEC, a path under DIR) has
# one phase of independent plans ID..., each writing out/ID.txt with one bash task and checking
# that it exists (core_plan); an empty .orchestration/ waits for the test's config.yaml.
file_plans_project() {
  local p=$1 spec=$2 title=$3 id
  shift 3
  local s=$p/$spec
  mkdir -p "$s/planning/plans/01-core" "$p/.orchestration"
  printf '# %s\n\n%s independent plans, each writing one file.\n' "$title" "$#" >"$s/SPEC.md"
  for id in "$@"; do core_plan "$s" "$id"; done
  (cd "$p" && git init -q && git add -A && git commit -qm init)
}

# plan_runs SPEC_DIR ID LINE: file_plans_project's plan ID runs LINE (bash, written as is: no sed
# quoting) in place of its task line; fails when the plan has no such line.
plan_runs() {
  python3 - "$1/planning/plans/01-core/$2-PLAN.md" "$2" "$3" <<'PY'
import sys
path, pid, line = sys.argv[1:]
old = f"mkdir -p out && echo {pid} > out/{pid}.txt\n"
text = open(path).read()
if old not in text:
    sys.exit(f"plan_runs: {path} has no line {old!r}")
open(path, "w").write(text.replace(old, line + "\n"))
PY
}

# alpha_spec SPEC_DIR: SPEC.md and plan 01-01, whose two bash tasks write out/a.txt and out/b.txt
# with the time they ran (a task run twice shows); the spec-rename and phase-rename tests add plans.
alpha_spec() {
  local s=$1
  mkdir -p "$s/planning/plans/01-p01"
  printf '# Alpha\n' >"$s/SPEC.md"
  cat >"$s/planning/plans/01-p01/01-01-PLAN.md" <<'PLAN'
---
plan_id: '01-01'
depends_on: []
files_modified: ['out/a.txt', 'out/b.txt']
---
# 01-01

### Task 1: a

```bash
mkdir -p out && date +%s%N > out/a.txt
```

### Task 2: b

```bash
date +%s%N > out/b.txt
```
PLAN
}

# phase_plan SPEC_DIR ID [DEPS] [EXTRA_MUST_PASS]: writes plan ID (phase from its first two digits,
# in planning/plans/NN-pNN/) with two bash tasks appending to out/ID.txt and a check of its line
# count; EXTRA_MUST_PASS is one more must_pass item, indented as a list item.
phase_plan() {
  local s=$1 id=$2 deps=${3:-[]} extra=${4:-}
  local dir=$s/planning/plans/${id%%-*}-p${id%%-*}
  mkdir -p "$dir"
  cat >"$dir/$id-PLAN.md" <<PLAN
---
plan_id: '$id'
depends_on: $deps
files_modified: ['out/$id.txt']
must_pass:
  - id: lines
    type: command_output
    shell: true
    command: "test \$(wc -l < out/$id.txt) -eq 2"
    expects: {exit_code: 0}
$extra
---
# $id

### Task 1: first line

\`\`\`bash
mkdir -p out && echo "$id first" >> out/$id.txt
\`\`\`

### Task 2: second line

\`\`\`bash
echo "$id second" >> out/$id.txt
\`\`\`
PLAN
}

# mcp_call PROJECT TOOL JSON-ARGS: one tools/call through a real harness-mcp (HARNESS_MCP) on
# PROJECT, after the MCP handshake; prints the response line.
mcp_call() {
  python3 - "${HARNESS_MCP:?}" "$1" "$2" "$3" <<'PY'
import json, subprocess, sys
mcp, project, tool, args = sys.argv[1:5]
p = subprocess.Popen([mcp, "--project", project], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
send = lambda m: (p.stdin.write(json.dumps(m) + "\n"), p.stdin.flush())
send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
      "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}})
p.stdout.readline()
send({"jsonrpc": "2.0", "method": "notifications/initialized"})
send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": tool, "arguments": json.loads(args)}})
for line in p.stdout:
    if json.loads(line).get("id") == 2:
        print(line.strip())
        break
p.stdin.close()
p.wait(timeout=10)
PY
}

# checkpoint_of DIR TASK PID [AFTER_FILE AFTER_TEXT]: prints the id `respond --list` shows for
# TASK's open checkpoint in project DIR, waiting up to 30 s (and, when given, until AFTER_FILE
# holds AFTER_TEXT) while the orchestrate PID runs; prints nothing when none came.
checkpoint_of() {
  local dir=$1 task=$2 pid=$3 after_file=${4:-} after_text=${5:-} id=
  for _ in $(seq 1 300); do
    if [[ -z $after_file ]] || grep -q "$after_text" "$after_file" 2>/dev/null; then
      id=$(cd "$dir" && "$cli" respond --list 2>/dev/null | awk -v t="$task" '$3 == t {print $1; exit}')
      [[ -n $id ]] && break
    fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  echo "$id"
}

# hold_run_lock PROJECT: a process (pid in $holder) takes PROJECT's orchestrator.lock, as a
# running orchestrate holds it, without writing orchestrator.json; returns once it holds it.
hold_run_lock() {
  mkdir -p "$1/.orchestration"
  rm -f "$tmp/locked"
  python3 -c '
import fcntl, sys, time
f = open(sys.argv[1], "a")
fcntl.flock(f, fcntl.LOCK_EX)
open(sys.argv[2], "w").close()
time.sleep(120)' "$1/.orchestration/orchestrator.lock" "$tmp/locked" &
  holder=$!
  for _ in $(seq 100); do [[ -f $tmp/locked ]] && break; sleep 0.1; done
  [[ -f $tmp/locked ]] || fail "the lock holder never took the lock"
}
