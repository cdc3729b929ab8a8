#!/usr/bin/env bash
# orchestrate with the REAL Codex CLI (npm @openai/codex, pinned in tests/node) as the execute
# worker. No model runs here: tests/agents/responses_stub.mjs answers the CLI's Responses API calls
# from a script (tests/agents/execute_plan_codex.json), so Codex really starts harness-mcp from the
# CODEX_HOME the adapter writes, really calls harness_worker_report (as namespace mcp__harness) and
# its own exec_command inside its workspace-write sandbox (with .git writable, so it can commit),
# and the orchestrator must hear every report, read the JSON events, check the SUMMARY and the
# trailer commits, verify and finish. In a network namespace of its own when the machine allows.
set -euo pipefail
cli=${HARNESS_CLI:?}
src=${HARNESS_SOURCE_DIR:?}
source "$src/tests/integration/lib/agents.sh"
agent_test codex
spec=docs/specs/SPC-043-codex

agent_stub codex execute_plan_codex.json "$tmp"

new_project() { # dir
  one_plan_project "$1" "$spec"
  # Codex runs the plans; the mechanical tasks (research, phase checks) stay with `script`.
  agent_config "$1" executor codex
}

# The plan done by Codex, every report heard. Codex reports no cost: it is shown as unknown, not
# as $0.0000, and a cost limit says at the start that it cannot see these workers.
p=$tmp/ok
new_project "$p"
echo 'max_cost_usd: 5' >>"$p/.orchestration/config.yaml"
completed_run "$p" 'done (1 turn, cost unknown)'
grep -q '"event":"note".*--max-cost \$5.00 counts only the cost Claude Code workers report: the codex worker reports no cost' \
  "$tmp/events.jsonl" || fail "no note that --max-cost cannot see the codex worker"
cd "$p"
log=$(ls .orchestration/sessions/execute-01-01-*/output.log)
grep -q '"type":"thread.started"' "$log" || fail "no thread.started event in the worker log"
[[ $(grep -c '"type":"mcp_tool_call","server":"harness","tool":"harness_worker_report".*"status":"completed"' "$log") -eq 4 ]] \
  || fail "Codex did not complete its four harness_worker_report calls"
grep -q '"type":"turn.completed"' "$log" || fail "no turn.completed event"
[[ $(grep -c '"namespace":"mcp__harness"' "$tmp/requests.jsonl") -eq 4 ]] || fail "the stub did not serve the MCP calls"
echo "orchestrate with the real Codex CLI: all checks passed"

