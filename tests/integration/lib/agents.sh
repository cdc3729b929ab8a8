# Shared by the tests that drive a real agent CLI against a scripted API stub (sourced, not run).
# Needs: $src (HARNESS_SOURCE_DIR), and `fail` defined by the test.

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
