#!/usr/bin/env bash
# orchestrate must not trust the REAL Claude Code CLI's word, nor wait forever on it. Scripted
# Claude Code workers (replayed by tests/agents/anthropic_stub.mjs, offline), each attempt must fail
# and leave the run blocked (exit 1) with the plan unverified:
#   claude_completes_without_work.json  reports task_completed without doing anything; the CLI
#                                       ends with exit 0 and result/success;
#   claude_stalls.json                  reports task_started, then its model never answers: the
#                                       idle timeout stops the worker's process group (the CLI and
#                                       its harness-mcp child), and no process of it is left;
#   execute_plan.json in a project whose .claude/settings.json denies harness_worker_report: the
#                                       work is done and committed, but never reported.
# The happy path and a refused tool are test_orchestrate_claude.sh; plumbing in lib/agents.sh.
set -euo pipefail
cli=${HARNESS_CLI:?}
src=${HARNESS_SOURCE_DIR:?}
source "$src/tests/integration/lib/agents.sh"
agent_test claude
spec=docs/specs/SPC-045-claude-faults

# run_case NAME EXPECTED_REASON [TIMEOUTS]: a one-plan project whose executor is Claude Code
# scripted by tests/agents/NAME.json; the run must be blocked on the plan, its task_failed message
# containing EXPECTED_REASON (blocked_run).
run_case() {
  local name=$1 d=$tmp/$1
  agent_project "$d" claude "${script:-$name}.json" "${3:-}"
  [[ -z "${project_hook:-}" ]] || (cd "$d/p" && eval "$project_hook")
  blocked_run "$name" "$d" "$2"
  kill "$stub_pid" 2>/dev/null || true
}

run_case claude_completes_without_work "task reported done but wrote no SUMMARY"
# The CLI itself ended well: the failure is the orchestrator's judgement, not the exit code.
grep -q '"type":"result","subtype":"success"' "$tmp"/claude_completes_without_work/p/.orchestration/sessions/execute-01-01-*/output.log \
  || fail "Claude Code did not end with result/success"

# The project's own Claude settings deny the harness report tool (a deny rule beats --allowedTools).
# Claude Code 2.1.197 then hides the tool ("No such tool available") instead of refusing it, so
# permission_denials stays empty; the worker, scripted as the happy path, does the work and
# commits it, but cannot report: the attempt must still fail.
project_hook='mkdir -p .claude && echo "{\"permissions\":{\"deny\":[\"mcp__harness__harness_worker_report\"]}}" >.claude/settings.json'
script=execute_plan run_case claude_denied_report "the worker exited without reporting task_completed"
project_hook=
log=$(ls "$tmp"/claude_denied_report/p/.orchestration/sessions/execute-01-01-*/output.log)
grep -q 'No such tool available: mcp__harness__harness_worker_report' "$log" || fail "the deny rule did not take the tool away"
grep -q '"type":"result","subtype":"success"' "$log" || fail "Claude Code did not end with result/success"
[[ "$(cat "$tmp/claude_denied_report/p/out/01-01.txt")" == hello ]] || fail "the denied worker's Bash work did not run"

s=$(date +%s)
# The idle limit leaves the CLI time to start (node, then harness-mcp under ASan on a loaded
# machine took more than 2 s before its first output) and still ends the stall well before the
# task limit (10 s was too little once under load 12: the stall step was never reached).
run_case claude_stalls "idle (no output and no message)" "{task: 150, idle: 20, stop_grace: 2}"
(( $(date +%s) - s < 90 )) || fail "the idle timeout took $(( $(date +%s) - s )) s"
grep -q '"answer":\["hang"\]' "$tmp/claude_stalls/requests.jsonl" || fail "the stub never served the stalling step"
no_process_in "$tmp/claude_stalls/p"
echo "orchestrate refuses Claude Code's unproven completion and stops its stalled worker: all checks passed"
