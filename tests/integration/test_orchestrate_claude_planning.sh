#!/usr/bin/env bash
# orchestrate plans a phase with the REAL Claude Code CLI (npm, pinned in tests/node): the spec has
# a roadmap and no plans; the planner role is Claude Code, scripted by tests/agents/plan_phase.json
# through the offline API stub (no model runs here). The CLI reads its task input in the prompt
# (the plans directory comes from there), writes the PLAN file with its Bash tool and reports
# over MCP; harness checks the plan on disk, adds it to the live graph, and the script worker
# executes it. Everything runs in a network namespace of its own when the machine allows it.
set -euo pipefail
cli=${HARNESS_CLI:?}
src=${HARNESS_SOURCE_DIR:?}
source "$src/tests/integration/lib/agents.sh"
agent_test claude
spec=docs/specs/SPC-046-claude-plans

agent_stub claude plan_phase.json "$tmp"

p=$tmp/project
mkdir -p "$p/$spec/planning/research" "$p/.orchestration"
printf '# SPC-046: claude plans\n\n## Requirements\n- R1. out/planned.txt exists.\n' >"$p/$spec/SPEC.md"
printf '# Roadmap\n\n## Phase 1: Core\n**Goal**: write out/planned.txt\n**Depends on**: nothing\n' >"$p/$spec/ROADMAP.md"
printf '# Phase 01 research\n\nNothing to research.\n' >"$p/$spec/planning/research/phase-01-research.md"
agent_config "$p" planner claude
(cd "$p" && git init -q && git add -A && git commit -qm init)

rc=0
(cd "$p" && "$cli" orchestrate "$spec" --yes --json >"$tmp/events.jsonl" 2>"$tmp/stderr.log") || rc=$?
[[ $rc -eq 0 ]] || { tail -8 "$tmp/events.jsonl"; cat "$tmp/stderr.log"; tail -20 "$p"/.orchestration/sessions/plan-*/output.log; fail "orchestrate exited $rc"; }
python3 - "$tmp/events.jsonl" <<'PY'
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
assert ev[-1]["event"] == "run_finished" and ev[-1]["message"].startswith("complete"), ev[-1]
done = {e["task"]: e["message"] for e in ev if e["event"] == "task_succeeded"}
assert done.get("plan:01", "").startswith("1 plan in the graph"), done
assert "execute:01-01" in done and "verify-plan:01-01" in done and "final" in done, done
assert any(e["event"] == "task_progress" and e.get("task") == "plan:01" and "wrote 01-01-PLAN.md" in e.get("message", "") for e in ev)
PY
cd "$p"
[[ "$(cat out/planned.txt)" == "planned by claude" ]] || fail "the plan Claude Code wrote did not run"
git log --format=%s | grep -x "docs(SPC-046-claude-plans): plan phase 01" >/dev/null || fail "the plan is not committed; history: $(git log --format=%s | head -20)"
python3 - "$tmp/requests.jsonl" <<'PY' || fail "the task input did not reach the model's prompt"
import json, re, sys
prompts = [json.loads(l).get("prompt", "") for l in open(sys.argv[1])]
assert any(re.search(r'"plans_dir":"[^"]*/planning/plans/01-core"', p) for p in prompts)
PY
echo "orchestrate plans with the real Claude Code CLI: all checks passed"
