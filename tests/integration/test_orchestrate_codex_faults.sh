#!/usr/bin/env bash
# orchestrate must not trust the REAL Codex CLI's word. Three scripted Codex workers (replayed by
# tests/agents/responses_stub.mjs, offline) each exit 0 after a clean turn, and each attempt must
# still fail, leaving the run blocked (exit 1) and the plan unverified:
#   codex_completes_without_work.json    reports task_completed without doing anything;
#   codex_commits_without_trailers.json  does the work and writes the SUMMARY, but its commits
#                                        carry no Plan:/Spec: trailers;
#   codex_never_completes.json           reports task_started, then ends its turn in silence;
#   codex_stalls.json                    reports task_started, then its model never answers: the
#                                        idle timeout stops it, and no process of it is left.
# The happy path is test_orchestrate_codex.sh; this one reuses its plumbing (lib/agents.sh).
set -euo pipefail
cli=${HARNESS_CLI:?}
src=${HARNESS_SOURCE_DIR:?}
source "$src/tests/integration/lib/agents.sh"
agent_test codex
spec=docs/specs/SPC-044-codex-faults

# run_case NAME EXPECTED_REASON [TIMEOUTS]: a one-plan project whose executor is Codex scripted by
# tests/agents/NAME.json; the run must be blocked on the plan, its task_failed message containing
# EXPECTED_REASON (blocked_run).
run_case() {
  local name=$1 d=$tmp/$1
  agent_project "$d" codex "$name.json" "${3:-}"
  blocked_run "$name" "$d" "$2"
  # Codex itself ended well: the failure is the orchestrator's judgement, not the CLI's exit code.
  local log
  log=$(ls "$d"/p/.orchestration/sessions/execute-01-01-*/output.log)
  if [[ $name != codex_stalls ]]; then
    grep -q '"type":"turn.completed"' "$log" || fail "$name: Codex did not finish its turn"
  fi
  kill "$stub_pid" 2>/dev/null || true
}

run_case codex_completes_without_work "task reported done but wrote no SUMMARY"
run_case codex_commits_without_trailers "task reported done but no commit carries 'Plan: 01-01'"
[[ "$(cat "$tmp/codex_commits_without_trailers/p/out/01-01.txt")" == hello ]] \
  || fail "the untrailered worker's exec_command did not run (the case would prove nothing)"
run_case codex_never_completes "the worker exited without reporting task_completed"

# A stalled model: Codex waits on an open request and prints nothing; the idle timeout stops the
# worker's process group. Afterwards no process may still run in that project. The limit (10 s)
# leaves the CLI time to start and reach the stub on a loaded machine (2 s was not always enough).
s=$(date +%s)
run_case codex_stalls "idle (no output and no message)" "{task: 120, idle: 10, stop_grace: 2}"
(( $(date +%s) - s < 60 )) || fail "the idle timeout took $(( $(date +%s) - s )) s"
grep -q '"hang"' "$tmp/codex_stalls/requests.jsonl" || fail "the stub never served the stalling step"
no_process_in "$tmp/codex_stalls/p"
echo "orchestrate refuses four Codex workers' unproven or stalled work: all checks passed"
