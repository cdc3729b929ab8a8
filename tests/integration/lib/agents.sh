# Shared by the tests that drive a real agent CLI against a scripted API stub (sourced, not run).
# Needs: $src (HARNESS_SOURCE_DIR); the project and run helpers also $cli (HARNESS_CLI) and $spec.
source "$src/tests/integration/lib/project.sh"

# agent_test NAME: how each of these tests starts: sets $NAME to the pinned CLI (installing it
# while the network is still there), re-runs the test offline, then makes its $tmp (project_tmp).
agent_test() {
  local bin
  bin=$(agent_cli "$1")
  printf -v "$1" '%s' "$bin"
  offline "$0"
  project_tmp
  # A HOME of its own: the agent's Bash tool runs login shells, which read the tester's
  # ~/.profile and ~/.bashrc. There, `pyenv init` starts a `pyenv rehash` that the test's end
  # (stopping the workers) killed half-way, leaving pyenv's lock: every later python on the
  # machine then waited 60 s for it. The agents' own config directories are set apart already.
  export HOME=$tmp/home
  mkdir -p "$HOME"
}

# agent_cli NAME: path of the pinned CLI in tests/node (installing the npm packages if needed).
agent_cli() {
  local bin=$src/tests/node/node_modules/.bin/$1
  [[ -x "$bin" ]] || bash "$src/tests/setup.sh" >&2
  [[ -x "$bin" ]] || { echo "FAIL: tests/setup.sh did not install the $1 CLI" >&2; exit 1; }
  echo "$bin"
}

# offline SCRIPT ARGS...: re-runs the test inside a network namespace of its own (root can) so
# nothing can leave the machine; elsewhere it runs as it is.
offline() {
  if [[ -z "${HARNESS_IN_NETNS:-}" ]] && unshare -n true 2>/dev/null; then
    export HARNESS_IN_NETNS=1
    exec unshare -n bash -c 'ip link set lo up 2>/dev/null || true; exec bash "$0" "$@"' "$@"
  fi
}

# start_stub STUB.mjs SCRIPT.json DIR: starts tests/agents/STUB with SCRIPT, logging requests to
# DIR/requests.jsonl; sets stub_pid and stub_port.
start_stub() {
  node "$src/tests/agents/$1" "$src/tests/agents/$2" "$3/port" "$3/requests.jsonl" &
  stub_pid=$!
  for _ in $(seq 1 100); do [[ -s "$3/port" ]] && break; sleep 0.05; done
  [[ -s "$3/port" ]] || fail "the API stub $1 did not start"
  stub_port=$(cat "$3/port")
}

# agent_stub NAME SCRIPT.json DIR: start_stub for the API the agent NAME (claude or codex) talks
# to, and the environment its CLI finds the stub's key (and for claude, its address) in.
agent_stub() {
  if [[ $1 == claude ]]; then
    start_stub anthropic_stub.mjs "$2" "$3"
    export ANTHROPIC_BASE_URL=http://127.0.0.1:$stub_port ANTHROPIC_API_KEY=stub-key
  else
    start_stub responses_stub.mjs "$2" "$3"
    export STUB_KEY=stub-key
  fi
}

# agent_config DIR ROLE NAME [TIMEOUTS]: DIR/.orchestration/config.yaml giving ROLE to the agent
# NAME (its CLI from agent_test; codex is sent to the last stub started) and every other task to
# the script worker, with one attempt and TIMEOUTS (default {task: 120, idle: 60}).
agent_config() {
  local worker="{binary: ${!3}}" timeouts=${4:-"{task: 120, idle: 60}"}
  [[ $3 != codex ]] \
    || worker="{binary: ${!3}, base_url: \"http://127.0.0.1:$stub_port/v1\", env_key: STUB_KEY, model: gpt-stub}"
  printf 'adapters: {default: script, %s: %s}\nworkers:\n  %s: %s\nmax_attempts: 1\ntimeouts: %s\n' \
    "$2" "$3" "$3" "$worker" "$timeouts" >"$1/.orchestration/config.yaml"
}

# blocked_run NAME DIR REASON: orchestrates the project DIR/p, which must end blocked (exit 1) with
# one task_failed for plan 01-01 whose message holds REASON, no success for it, and no final
# verification. Events go to DIR/events.jsonl, stderr to DIR/stderr.log.
blocked_run() {
  local name=$1 d=$2 reason=$3 rc=0
  (cd "$d/p" && "$cli" orchestrate "$spec" --yes --json >"$d/events.jsonl" 2>"$d/stderr.log") || rc=$?
  [[ $rc -eq 1 ]] || { cat "$d/stderr.log"; tail -5 "$d/events.jsonl"; fail "$name: the run should be blocked (exit 1), got $rc"; }
  python3 - "$d/events.jsonl" "$reason" <<'PY' || fail "$name: events"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
failed = [e for e in ev if e["event"] == "task_failed" and e.get("task") == "execute:01-01"]
assert len(failed) == 1 and sys.argv[2] in failed[0]["message"], failed
assert not [e for e in ev if e["event"] == "task_succeeded" and e.get("task") == "execute:01-01"]
assert not ev[-1]["message"].startswith("complete"), ev[-1]
PY
  [[ ! -e "$d/p/$spec/execution/FINAL-VERIFICATION.md" ]] || fail "$name: a final verification was written"
}

# no_process_in DIR: fails when a process still runs with its working directory in DIR.
no_process_in() {
  local d
  for d in /proc/[0-9]*; do
    [[ "$(readlink "$d/cwd" 2>/dev/null)" != "$1"* ]] \
      || fail "a worker process outlived the run: $(tr '\0' ' ' <"$d/cmdline")"
  done
}

# one_plan_project DIR SPEC: a git project whose spec has one plan (01-01) asking for
# out/01-01.txt containing "hello", for an agent to execute.
one_plan_project() {
  local p=$1 spec=$2
  mkdir -p "$p/$spec/planning/plans/01-core" "$p/.orchestration"
  printf '# Agent\n\nOne plan, executed by an agent CLI.\n' >"$p/$spec/SPEC.md"
  cat >"$p/$spec/planning/plans/01-core/01-01-PLAN.md" <<'PLAN'
---
plan_id: '01-01'
depends_on: []
files_modified: ['out/01-01.txt']
must_pass:
  - id: written
    type: file_contains
    path: out/01-01.txt
    pattern: '^hello$'
---
# 01-01: write a file

### Task 1: write

Write `out/01-01.txt` containing `hello`.
PLAN
  (cd "$p" && git init -q && git add -A && git commit -qm init)
}

# agent_project DIR NAME SCRIPT.json [TIMEOUTS]: the one-plan project DIR/p (spec $spec) whose
# executor is the agent NAME, scripted by tests/agents/SCRIPT.json through a stub of its own whose
# files go to DIR (agent_stub, agent_config).
agent_project() {
  mkdir -p "$1"
  agent_stub "$2" "$3" "$1"
  one_plan_project "$1/p" "$spec"
  agent_config "$1/p" executor "$2" "${4:-}"
}

# completed_run P DONE: orchestrates the one-plan project P, which must complete: the agent's
# progress on 01-01 heard, its task_succeeded message starting with DONE, out/01-01.txt written
# and committed with trailers (each trailer commit in commits.log), the final verification passed,
# and the store holding its four reports in order. Events go to $tmp/events.jsonl, stderr to $tmp/stderr.log.
completed_run() {
  local p=$1 rc=0 types
  (cd "$p" && "$cli" orchestrate "$spec" --yes --json >"$tmp/events.jsonl" 2>"$tmp/stderr.log") || rc=$?
  [[ $rc -eq 0 ]] \
    || { tail -5 "$tmp/events.jsonl"; cat "$tmp/stderr.log"; cat "$p"/.orchestration/sessions/execute-*/output.log | tail -20; fail "orchestrate exited $rc"; }
  python3 - "$tmp/events.jsonl" "$2" <<'PY' || fail "the run's events"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
assert ev[-1]["event"] == "run_finished" and ev[-1]["message"].startswith("complete"), ev[-1]
progress = [e.get("message", "") for e in ev if e["event"] == "task_progress" and e.get("task") == "execute:01-01"]
assert any("wrote out/01-01.txt" in m for m in progress), progress
done = [e for e in ev if e["event"] == "task_succeeded" and e.get("task") == "execute:01-01"]
assert len(done) == 1 and done[0]["message"].startswith(sys.argv[2]), done
PY
  [[ "$(cat "$p/out/01-01.txt")" == hello ]] || fail "the file the agent wrote"
  [[ $'\n'"$(git -C "$p" log --format=%B)"$'\n' == *$'\nPlan: 01-01, Task: 1/1\n'* ]] || fail "trailer commit"
  # Every trailer commit (task and SUMMARY) in commits.log, logged by this run when the task ended:
  # from git, not from what the agent listed, and not left for the next run to "recover".
  [[ "$(cut -d' ' -f1 "$p/$spec/execution/commits.log" 2>/dev/null | sort)" == "$(git -C "$p" log --format=%H --grep '^Plan: ' | sort)" ]] \
    || fail "commits.log: $(cat "$p/$spec/execution/commits.log" 2>&1)"
  ! grep -q ' recovered$' "$p/$spec/execution/commits.log" || fail "commits.log lines marked recovered"
  grep -q "^status: passed" "$p/$spec/execution/FINAL-VERIFICATION.md" || fail "final verification"
  types=$(sqlite3 "$p/.orchestration/harness.db" "select group_concat(message_type) from (select message_type from worker_messages where session_id like 'execute-01-01%' order by seq)")
  [[ "$types" == "session_ready,task_started,progress_update,task_completed" ]] || fail "messages in the store: $types"
}
