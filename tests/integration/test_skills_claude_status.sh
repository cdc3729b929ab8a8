#!/usr/bin/env bash
# /harness:status inside the REAL Claude Code CLI: skills installed with `harness-cli
# install-skills`, the CLI run as `claude -p "/harness:status <spec>"`, and the model replaced by
# the scripted stub tests/agents/anthropic_stub.mjs (script: tests/agents/status_command.json).
# The run must show that Claude Code loaded our command file (its text reaches the model, with the
# spec directory in place of $ARGUMENTS) and that the tool call the command allows succeeded
# (harness-cli status ran and its output came back; nothing was refused). Offline (unshare -n).
set -euo pipefail
cli=${HARNESS_CLI:?}
src=${HARNESS_SOURCE_DIR:?}
source "$src/tests/integration/lib/agents.sh"
agent_test claude

p=$tmp/project
mkdir -p "$p/docs/specs"
cp -r "$src/examples/specs/SPC-001-task-tracker" "$p/docs/specs/"
"$cli" install-skills --project "$p" >/dev/null
agent_stub claude status_command.json "$tmp"

export CLAUDE_CONFIG_DIR=$tmp/claude-config CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_TELEMETRY=1 DISABLE_AUTOUPDATER=1
export PATH=$(dirname "$cli"):$PATH
(cd "$p" && "$claude" -p "/harness:status docs/specs/SPC-001-task-tracker" --output-format stream-json --verbose \
   >"$tmp/events.jsonl" 2>"$tmp/stderr.log") || { cat "$tmp/stderr.log"; fail "claude exited $?"; }
python3 - "$tmp/requests.jsonl" "$tmp/events.jsonl" <<'PY'
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1]) if json.loads(l)["step"] >= 0]
assert reqs, "the CLI never asked the model"
prompt = reqs[0]["prompt"]
# Our command file reached the model, with $ARGUMENTS filled in.
assert "Do not compute progress yourself" in prompt, prompt[:500]
assert "progress of the spec in `docs/specs/SPC-001-task-tracker`" in prompt, prompt[:500]
# The Bash call the command's allowed-tools permit ran harness-cli status for real.
later = [r for r in reqs if r["step"] == 1]
assert later and "0/12 plans verified" in later[0]["tool_results"], later
events = [json.loads(l) for l in open(sys.argv[2])]
result = [e for e in events if e.get("type") == "result"][-1]
assert result["subtype"] == "success" and not result["is_error"], result
assert result["permission_denials"] == [], result["permission_denials"]
PY
echo "/harness:status in Claude Code: all checks passed"
