#!/usr/bin/env bash
# orchestrate with the REAL Claude Code CLI (npm, pinned in tests/node) as the execute worker.
# No model runs here: tests/agents/anthropic_stub.mjs answers the CLI's Messages API calls from a
# script (tests/agents/execute_plan.json), so the CLI really starts harness-mcp as its MCP
# server, really calls harness_worker_report and its own Bash tool, and the orchestrator must hear
# every report, read the stream-json events (turns, cost, permission denials), check the SUMMARY
# and the trailer commits, verify and finish. Everything runs in a network namespace of its own
# (`unshare -n`) when the machine allows it, so nothing can leave the machine.
set -euo pipefail
cli=${HARNESS_CLI:?}
src=${HARNESS_SOURCE_DIR:?}
source "$src/tests/integration/lib/agents.sh"
agent_test claude
spec=docs/specs/SPC-042-claude

agent_stub claude execute_plan.json "$tmp"

new_project() { # dir [extra config lines]
  local p=$1
  one_plan_project "$p" "$spec"
  # Claude Code runs the plans; the mechanical tasks (research, phase checks) stay with `script`.
  agent_config "$p" executor claude
  [[ -z "${2:-}" ]] || printf '%s\n' "$2" >>"$p/.orchestration/config.yaml"
}

# 1. The plan done by Claude Code, every report heard.
p=$tmp/ok
new_project "$p"
completed_run "$p" 'done (7 turns, $0.0'  # from the stream-json result
cd "$p"
log=$(ls .orchestration/sessions/execute-01-01-*/output.log)
grep -q '"type":"system","subtype":"init"' "$log" || fail "no stream-json init event in the worker log"
grep -q '"name":"harness","status":"connected"' "$log" || fail "harness-mcp did not connect to Claude Code"
grep -q '"type":"result","subtype":"success"' "$log" || fail "no result event"
[[ $(grep -c '"stream":true' "$tmp/requests.jsonl") -ge 7 ]] || fail "the CLI did not stream its turns from the stub"
cd - >/dev/null

# 2. A refused tool: Bash is not allowed, so the plan's work cannot be done; the CLI still exits 0
#    with result/success, and only permission_denials tells. The attempt must fail.
p=$tmp/refused
new_project "$p" ""
sed -i "s|  claude: {binary: $claude}|  claude: {binary: $claude, allowed_tools: [Read]}|" "$p/.orchestration/config.yaml"
set +e
(cd "$p" && "$cli" orchestrate "$spec" --yes --json >"$tmp/refused.jsonl" 2>"$tmp/refused.err")
rc=$?
set -e
[[ $rc -eq 1 ]] || { cat "$tmp/refused.err"; fail "a run whose worker was refused its tools should be blocked (exit 1), got $rc"; }
python3 - "$tmp/refused.jsonl" <<'PY'
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
f = [e for e in ev if e["event"] == "task_failed" and e.get("task") == "execute:01-01"]
assert len(f) == 1, f
assert "wrote no SUMMARY" in f[0]["message"] and "the agent was refused Bash (2x)" in f[0]["message"], f
PY
grep -q '"permission_denials":\[{"tool_name":"Bash"' "$p"/.orchestration/sessions/execute-01-01-*/output.log \
  || fail "the refusal is not in the CLI's result event"
[[ ! -e "$p/out/01-01.txt" ]] || fail "a refused Bash call wrote the file"

# 3. --max-cost: the cost Claude Code reports for the execute reaches the cap, so no worker starts
#    after it (01-02 does not run), only the engine's verification of the plan paid for, and the
#    run ends with the cost limit (exit 1).
p=$tmp/cost
new_project "$p" "max_cost_usd: 0.000001"
sed -e "s/01-01/01-02/g" -e "s/depends_on: \\[\\]/depends_on: ['01-01']/" "$p/$spec/planning/plans/01-core/01-01-PLAN.md" \
  >"$p/$spec/planning/plans/01-core/01-02-PLAN.md"
(cd "$p" && git add -A && git commit -qm "a second plan")
set +e
(cd "$p" && "$cli" orchestrate "$spec" --yes --json >"$tmp/cost.jsonl" 2>"$tmp/cost.err")
rc=$?
set -e
[[ $rc -eq 1 ]] || { cat "$tmp/cost.err"; tail -5 "$tmp/cost.jsonl"; fail "a run over its cost cap exited $rc, expected 1"; }
python3 - "$tmp/cost.jsonl" <<'PY'
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
assert ev[-1]["event"] == "run_finished" and ev[-1]["message"].startswith("cost_limit"), ev[-1]
assert any(e["event"] == "note" and "reached --max-cost" in e.get("message", "") for e in ev)
started = [e["task"] for e in ev if e["event"] == "task_started"]
i = started.index("execute:01-01")
assert started[i + 1:] == ["verify-plan:01-01"], f"started after the cap was reached: {started[i + 1:]}"
PY
grep -q '^verification: passed' "$p/$spec/execution/phases/01-core/01-01-SUMMARY.md" || fail "the plan paid for is not verified"
grep -q '^run: "cost_limit"' "$p/$spec/STATUS.md" || fail "STATUS.md does not record the cost limit"
echo "orchestrate with the real Claude Code CLI: all checks passed"
