#!/usr/bin/env bash
# What a plan's `checkpoints:` and `autonomous:` make a run do, with the real harness-cli and the
# script worker (which cannot ask anything itself):
#   1. validate warns (H033) on a value harness does not know, and only on it.
#   2. No terminal, no --yes: `autonomous: false`, GSD's `human-verify` and a declared decision its
#      executor never asked each open a verification checkpoint once the plan's checks pass; the
#      unknown value and a plan without checkpoints ask nobody. The run ends waiting (exit 3).
#   3. An executor that asked its declared decision (answered with `respond`) put it to a person
#      already: its plan is verified without a second question, and the run completes.
#   4. The same when the run is killed (-9) after the answer, before the plan is verified: the next
#      run verifies it without asking for an approval. After `redo` of the plan, the executor's
#      question was about the earlier work: the plan, executed again by the script worker (which
#      asks nothing), needs an approval again.
set -euo pipefail
cli=${HARNESS_CLI:?}
src=${HARNESS_SOURCE_DIR:?}
source "$src/tests/integration/lib/project.sh"
project_tmp
spec=docs/specs/SPC-010-asks

# frontmatter ID LINE: adds LINE to plan ID's frontmatter (after depends_on).
frontmatter() { sed -i "/^depends_on:/a $2" "$p/$spec/planning/plans/01-core/$1-PLAN.md"; }

# 1, 2.
p=$tmp/declared
file_plans_project "$p" "$spec" "Asks" 01-01 01-02 01-03 01-04 01-05
frontmatter 01-01 "autonomous: false"
frontmatter 01-02 "checkpoints: ['human-verify']"
frontmatter 01-03 "checkpoints: ['checkpoint:decision']"
frontmatter 01-04 "checkpoints: ['review']"
(cd "$p" && git commit -qam "checkpoints")
rc=0; out=$(cd "$p" && "$cli" validate "$spec" 2>&1) || rc=$?
[[ $rc -eq 0 ]] || fail "validate exited $rc: $out"
[[ $(grep -c 'warning\[H033\]' <<<"$out") -eq 1 ]] || fail "validate should warn once (H033): $out"
grep -q "01-04-PLAN.md:4:15: warning\[H033\]: checkpoints value 'review' is not one harness knows" <<<"$out" \
  || fail "the H033 warning: $out"
rc=0
(cd "$p" && "$cli" orchestrate "$spec" --worker script --json >"$tmp/declared.jsonl" 2>"$tmp/declared.err" </dev/null) || rc=$?
[[ $rc -eq 3 ]] || { tail -20 "$tmp/declared.jsonl" >&2; cat "$tmp/declared.err" >&2; fail "the run exited $rc, expected 3 (waiting)"; }
python3 - "$tmp/declared.jsonl" <<'PY' || fail "events"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
opened = sorted(e["task"] for e in ev if e["event"] == "checkpoint_opened")
assert opened == ["verify-plan:01-01", "verify-plan:01-02", "verify-plan:01-03"], opened
verified = sorted(e["task"] for e in ev if e["event"] == "task_succeeded" and e["task"].startswith("verify-plan:")
                  and not e["message"].startswith("checks passed; checkpoint opened"))
assert verified == ["verify-plan:01-04", "verify-plan:01-05"], verified
PY
[[ $(cd "$p" && "$cli" respond --list | wc -l) -eq 3 ]] || fail "respond --list: $(cd "$p" && "$cli" respond --list)"

# 3. The executor of 01-03 asks its decision over MCP; nobody has to approve the plan afterwards.
cat >"$tmp/asker.py" <<'PY'
import os, subprocess, sys
sys.path.insert(0, os.environ["HARNESS_TEST_LIB"])
from mcp_worker import McpWorker
mcp, cli = sys.argv[1:3]
if os.environ.get("HARNESS_TASK_ID") == "execute:01-03":
    w = McpWorker(mcp)
    asked = w.tool("harness_worker_report", {"type": "decision_needed",
                                             "payload": {"question": "Which greeting?", "options": ["hello", "hi"]}})
    w.tool("harness_worker_await", {"message_id": asked["message_id"], "timeout_seconds": 120})
    w.close()
sys.exit(subprocess.run([cli, "script-worker"]).returncode)
PY
p=$tmp/asked
file_plans_project "$p" "$spec" "Asks" 01-03 01-05
frontmatter 01-03 "checkpoints: ['decision']"
(cd "$p" && git commit -qam "checkpoints")
(cd "$p" && HARNESS_TEST_LIB=$src/tests/integration/lib exec "$cli" orchestrate "$spec" --worker command --command "python3 $tmp/asker.py {harness_mcp} {harness_cli}" \
   --json >"$tmp/asked.jsonl" 2>"$tmp/asked.err" </dev/null) &
orch=$!
id=
for _ in $(seq 1 300); do
  id=$(cd "$p" && "$cli" respond --list 2>/dev/null | awk '$3 == "execute:01-03" {print $1; exit}')
  [[ -n $id ]] && break
  kill -0 $orch 2>/dev/null || break
  sleep 0.1
done
[[ -n $id ]] || { cat "$tmp/asked.err" "$tmp/asked.jsonl" >&2; fail "the executor's decision never became a checkpoint"; }
(cd "$p" && "$cli" respond "$id" hello >/dev/null) || fail "respond exited $?"
rc=0; wait $orch || rc=$?
[[ $rc -eq 0 ]] || { tail -20 "$tmp/asked.jsonl" >&2; cat "$tmp/asked.err" >&2; fail "the run exited $rc, expected 0"; }
python3 - "$tmp/asked.jsonl" <<'PY' || fail "events"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
opened = [e["task"] for e in ev if e["event"] == "checkpoint_opened"]
assert opened == ["execute:01-03"], opened
assert ev[-1]["event"] == "run_finished" and ev[-1]["message"].startswith("complete"), ev[-1]
PY

# 4. The executor's answered question outlives a kill -9 of its run; not a redo.
p=$tmp/killed
file_plans_project "$p" "$spec" "Asks" 01-03
frontmatter 01-03 "checkpoints: ['decision']"
# A check that takes a while, so that the run is killed while it verifies the plan.
sed -i "/^must_pass:/a \\  - id: slow\\n    type: command_output\\n    command: ['sleep', '4']" "$p/$spec/planning/plans/01-core/01-03-PLAN.md"
(cd "$p" && git commit -qam "checkpoints")
asker="python3 $tmp/asker.py {harness_mcp} {harness_cli}"
(cd "$p" && HARNESS_TEST_LIB=$src/tests/integration/lib exec "$cli" orchestrate "$spec" --worker command --command "$asker" \
   --json >"$tmp/killed.jsonl" 2>"$tmp/killed.err" </dev/null) &
orch=$!
id=$(checkpoint_of "$p" execute:01-03 $orch)
[[ -n $id ]] || { cat "$tmp/killed.err" "$tmp/killed.jsonl" >&2; fail "killed: the executor's decision never became a checkpoint"; }
(cd "$p" && "$cli" respond "$id" hello >/dev/null) || fail "killed: respond exited $?"
for _ in $(seq 1 300); do
  grep -q '"task_started".*"task":"verify-plan:01-03"' "$tmp/killed.jsonl" && break
  kill -0 $orch 2>/dev/null || break
  sleep 0.1
done
grep -q '"task_started".*"task":"verify-plan:01-03"' "$tmp/killed.jsonl" || { cat "$tmp/killed.jsonl" >&2; fail "killed: 01-03 was never verified"; }
kill -KILL $orch; wait $orch 2>/dev/null || true
! grep -q '"task_succeeded".*"task":"verify-plan:01-03"' "$tmp/killed.jsonl" || fail "killed: the run was killed too late"
rc=0
(cd "$p" && HARNESS_TEST_LIB=$src/tests/integration/lib "$cli" orchestrate "$spec" --worker command --command "$asker" \
   --json >"$tmp/resumed.jsonl" 2>"$tmp/resumed.err" </dev/null) || rc=$?
[[ $rc -eq 0 ]] || { cat "$tmp/resumed.jsonl" "$tmp/resumed.err" >&2; fail "resumed: the run exited $rc, expected 0 (no second question)"; }
! grep -q '"checkpoint_opened"' "$tmp/resumed.jsonl" || fail "resumed: asked again: $(grep checkpoint_opened "$tmp/resumed.jsonl")"
(cd "$p" && "$cli" redo "$spec" 01-03 >/dev/null) || fail "redo exited $?"
rc=0
(cd "$p" && "$cli" orchestrate "$spec" --worker script --json >"$tmp/redone.jsonl" 2>"$tmp/redone.err" </dev/null) || rc=$?
[[ $rc -eq 3 ]] || { cat "$tmp/redone.jsonl" "$tmp/redone.err" >&2; fail "redone: the run exited $rc, expected 3 (waiting)"; }
grep -q '"checkpoint_opened".*"task":"verify-plan:01-03"' "$tmp/redone.jsonl" || fail "redone: no approval asked: $(cat "$tmp/redone.jsonl")"
echo "orchestrate plan checkpoints: all checks passed"
