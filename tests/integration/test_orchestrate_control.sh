#!/usr/bin/env bash
# harness_start_session and harness_end_session against a running `harness-cli orchestrate`
# (script worker, one slot), through real harness-mcp processes and `harness-cli start-session` /
# `end-session`:
#   - with no orchestrator they say so; `status` shows the running one; a second orchestrate in
#     the same project exits 1;
#   - start_session of a plan that cannot start yet answers "queued" and puts it first;
#   - end_session stops a hanging worker (its process group is gone) and blocks its task as
#     refused by a human, and the store lists its session as ended with that reason (not failed);
#     status from its answer on shows the plan running, then blocked, never ready;
#     start_session of that blocked plan runs it again and the spec completes;
#   - inside a worker of the run (its HARNESS_SESSION_ID and HARNESS_STATE_DIR) start-session,
#     end-session and the two tools are refused: the worker 01-02 tries them itself, and a
#     harness-mcp with a worker's variables; with another project's variables they work.
set -euo pipefail
cli=${HARNESS_CLI:?}
mcp=${HARNESS_MCP:?}
tmp=$(mktemp -d)
export HANG=$((800000 + RANDOM)) # a unique sleep argument to find the hanging worker's child by
orch=""
cleanup() {
  [[ -n $orch ]] && kill -KILL "$orch" 2>/dev/null || true
  pkill -KILL -f "$HANG" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; [[ -f $tmp/events.jsonl ]] && tail -20 "$tmp/events.jsonl" >&2; exit 1; }
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com
p=$tmp/project
spec=docs/specs/SPC-008-control
s=$p/$spec
mkdir -p "$s/planning/plans/01-core"
printf '# Control\n\nFive plans; two wait for a go file.\n' >"$s/SPEC.md"
plan() { # id script
  cat >"$s/planning/plans/01-core/$1-PLAN.md" <<PLAN
---
plan_id: '$1'
depends_on: []
files_modified: ['out/$1.txt']
must_pass:
  - id: written
    type: file_exists
    path: out/$1.txt
---
# $1

### Task 1: write

\`\`\`bash
$2
mkdir -p out && echo $1 > out/$1.txt
\`\`\`
PLAN
}
plan 01-01 "while [ ! -f go1 ]; do sleep $HANG & wait \$!; done"
# A worker that tries to steer its own run: refused, and it goes on (end-session --list reads only).
plan 01-02 "out=$tmp/inside.out
rc=0; harness-cli end-session --list >>\$out 2>&1 || rc=\$?; echo \"list rc \$rc\" >>\$out
rc=0; harness-cli end-session \"\$HARNESS_SESSION_ID\" --reason mine >>\$out 2>&1 || rc=\$?; echo \"end rc \$rc\" >>\$out
rc=0; harness-cli start-session 01-03 >>\$out 2>&1 || rc=\$?; echo \"start rc \$rc\" >>\$out"
plan 01-03 ""
plan 01-04 ""
plan 01-05 ": $HANG; while [ ! -f go5 ]; do sleep 0.1; done"
printf 'go1\ngo5\n' >"$p/.gitignore"
(cd "$p" && git init -q && git add -A && git commit -qm init)

call() { # tool json-args -> the tools/call response line
  # stdin stays open until the answer arrives: harness-mcp drops calls still running at EOF.
  (cd "$p" && python3 - "$mcp" "$1" "$2" <<'PY'
import json, subprocess, sys
mcp, tool, args = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
proc = subprocess.Popen([mcp], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
def send(m): proc.stdin.write(json.dumps(m) + "\n"); proc.stdin.flush()
send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25",
      "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}})
send({"jsonrpc": "2.0", "method": "notifications/initialized"})
send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": tool, "arguments": args}})
for line in proc.stdout:
    if json.loads(line).get("id") == 2:
        print(line.strip(), flush=True)
        break
proc.stdin.close()
proc.wait(timeout=10)
PY
  )
}
wait_for() { # python-condition-on-events description
  for _ in $(seq 300); do
    if python3 - "$tmp/events.jsonl" "$1" <<'PY'
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
sys.exit(0 if eval(sys.argv[2]) else 1)
PY
    then return 0; fi
    sleep 0.1
  done
  fail "timed out waiting for: $1"
}
started() { echo "any(e['event'] == 'task_started' and e.get('task') == '$1' for e in ev)"; }

# 1. No orchestrator yet.
out=$(call harness_start_session '{"plan_id":"01-02"}')
[[ $out == *'"isError":true'* && $out == *'orchestrator not running'* ]] || fail "without an orchestrator: $out"
rc=0; (cd "$p" && "$cli" start-session 01-02) >"$tmp/cli.out" 2>&1 || rc=$?
[[ $rc -eq 1 ]] && grep -q "orchestrator not running" "$tmp/cli.out" || fail "CLI without an orchestrator: rc $rc, $(cat "$tmp/cli.out")"

# 2. The run: one slot, 01-01 first (lowest id) and it hangs.
(cd "$p" && exec "$cli" orchestrate "$spec" --worker script --slots 1 --yes --json >"$tmp/events.jsonl" 2>"$tmp/stderr.log") &
orch=$!
touch "$tmp/events.jsonl"
wait_for "$(started execute:01-01)"

out=$(cd "$p" && "$cli" status "$spec")
[[ $out == *"orchestrate running: pid $orch, $spec"* ]] || fail "status does not show the running orchestrate: $out"
# The plan a worker is on is running, not "ready now" (its session is in the store).
[[ $out == *"01-01 "*"(running)"* && $out != *"Ready now: 01-01"* ]] || fail "status does not show 01-01 running: $out"
rc=0
(cd "$p" && "$cli" orchestrate "$spec" --worker script >"$tmp/second.out" 2>&1) || rc=$?
[[ $rc -eq 1 ]] || fail "a second orchestrate in the same project exited $rc: $(cat "$tmp/second.out")"
grep -q "another harness-cli orchestrate is running" "$tmp/second.out" || fail "second run: $(cat "$tmp/second.out")"

# 3. 01-04 cannot start (the slot is taken): queued, and first in line. Asked from a worker of
# another project (a test run inside a worker's task): that is not this run's worker.
mkdir -p "$tmp/other/.orchestration"
out=$(HARNESS_SESSION_ID=execute-01-01-a1-other HARNESS_STATE_DIR=$tmp/other/.orchestration \
  call harness_start_session '{"plan_id":"01-04"}')
[[ $out == *'"status":"queued"'* && $out == *'"waiting_for":"ready'* ]] || fail "start 01-04: $out"
out=$(call harness_start_session '{"plan_id":"09-09"}')
[[ $out == *'"isError":true'* && $out == *'no plan 09-09'* ]] || fail "unknown plan: $out"
rc=0; (cd "$p" && "$cli" start-session 09-09) >"$tmp/cli.out" 2>&1 || rc=$?
[[ $rc -eq 1 ]] && grep -q "no plan 09-09" "$tmp/cli.out" || fail "CLI, unknown plan: rc $rc, $(cat "$tmp/cli.out")"

# 4. The hanging 01-01 is running; end its session.
out=$(call harness_start_session '{"plan_id":"01-01"}')
[[ $out == *'"status":"running"'* ]] || fail "start of a running plan: $out"
sid=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["result"]["structuredContent"]["session_id"])' "$out")
pgrep -f "sleep $HANG" >/dev/null || fail "the hanging worker is not running"
# The script worker's progress (its status.json) shows while it runs, not only when it ends.
wait_for "any(e['event'] == 'task_progress' and e.get('task') == 'execute:01-01' and 'Task 1/1' in e.get('message', '') for e in ev)"
# A harness-mcp a worker of this run starts (it inherits the worker's variables) steers nothing.
for req in "harness_end_session {\"session_id\":\"$sid\"}" 'harness_start_session {"plan_id":"01-03"}'; do
  out=$(HARNESS_SESSION_ID=execute-01-05-a1-mine HARNESS_STATE_DIR=$p/./.orchestration call ${req%% *} "${req#* }")
  [[ $out == *'"isError":true'* && $out == *'this runs inside worker session execute-01-05-a1-mine of this project (HARNESS_SESSION_ID): starting and ending'* ]] \
    || fail "${req%% *} from inside a worker: $out"
done
out=$(call harness_end_session "{\"session_id\":\"$sid\",\"reason\":\"testing\"}")
[[ $out == *'"ended":true'* ]] || fail "end_session: $out"
# From the answer on, status shows the plan running (its worker stopping) and then blocked by the
# run, never ready (STATUS.md names the refusal before the store says the session ended).
for _ in $(seq 40); do
  out=$(cd "$p" && "$cli" status "$spec")
  ! grep -q '^  01-01 .*(ready)' <<<"$out" || fail "status after end_session shows 01-01 ready: $out"
  [[ $out == *"execute:01-01 blocked by the last run: refused by a human: ended by harness_end_session: testing"* ]] && break
done
[[ $out == *"execute:01-01 blocked by the last run: refused by a human"* ]] || fail "status after end_session: $out"
wait_for "any(e['event'] == 'task_blocked' and e.get('task') == 'execute:01-01' for e in ev)"
# The run's log says who asked what, and what became of it.
grep -q "\"start of plan 01-04 asked (harness_start_session): queued (ready" "$tmp/events.jsonl" ||
  fail "no note of the start request: $(grep start_session "$tmp/events.jsonl" | head -3)"
grep -q "\"end of session $sid asked (harness_end_session): ended\"" "$tmp/events.jsonl" ||
  fail "no note of the end request: $(grep -i 'end of session\|end_session' "$tmp/events.jsonl" | head -3)"
for _ in $(seq 50); do pgrep -f "sleep $HANG" >/dev/null || break; sleep 0.1; done
if pgrep -f "sleep $HANG" >/dev/null; then fail "the ended worker's process group survived"; fi
# The store says the session ended, and why: it did not fail.
out=$(call harness_list_sessions '{}')
python3 - "$out" "$sid" <<'PY' || fail "the ended session as harness_list_sessions lists it: $out"
import json, sys
rows = json.loads(sys.argv[1])["result"]["structuredContent"]["sessions"]
row = next(r for r in rows if r["session_id"] == sys.argv[2])
assert row["status"] == "ended" and row["end_reason"] == "ended by harness_end_session: testing", row
PY
out=$(call harness_end_session "{\"session_id\":\"$sid\"}")
[[ $out == *'"isError":true'* && $out == *'not running'* ]] || fail "ending a finished session: $out"

# 5. The requested 01-04 went before 01-02 and 01-03; 01-05 now waits for go5.
wait_for "$(started execute:01-05)"
python3 - "$tmp/events.jsonl" <<'PY'
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
order = [e["task"] for e in ev if e["event"] == "task_started" and e["task"].startswith("execute:")]
assert order.index("execute:01-04") < order.index("execute:01-02") < order.index("execute:01-03"), order
b = [e for e in ev if e["event"] == "task_blocked" and e["task"] == "execute:01-01"]
assert "refused by a human: ended by harness_end_session: testing" in b[0]["message"], b
PY
# 01-02's own end-session and start-session were refused (exit 2); its --list was answered.
grep -q '^list rc 0$' "$tmp/inside.out" && grep -q "execute:01-02" "$tmp/inside.out" || fail "end-session --list in a worker: $(cat "$tmp/inside.out")"
grep -q '^end rc 2$' "$tmp/inside.out" && grep -q '^start rc 2$' "$tmp/inside.out" || fail "steering from a worker: $(cat "$tmp/inside.out")"
grep -q "harness-cli: error: this runs inside worker session execute-01-02-a1-.* of this project (HARNESS_SESSION_ID): starting and ending the run's sessions is a person's to do" "$tmp/inside.out" \
  || fail "the refusal: $(cat "$tmp/inside.out")"

# 6. Ask again for the blocked plan (it will now find go1), then let 01-05 finish: complete.
touch "$p/go1"
out=$(cd "$p" && "$cli" start-session 01-01) || fail "CLI restart of the blocked plan failed: $out"
[[ $out == "01-01: queued; "* ]] || fail "CLI restart of the blocked plan: $out"
touch "$p/go5"
rc=0
wait "$orch" || rc=$?
orch=""
[[ $rc -eq 0 ]] || fail "the run should complete after the blocked plan was restarted, exit $rc: $(cat "$tmp/stderr.log")"
[[ -f $p/out/01-01.txt ]] || fail "01-01 never ran again"
grep -q "status: complete" "$s"/execution/phases/01-core/01-01-SUMMARY.md || fail "no SUMMARY for 01-01"
# Restarted and done, it is no blocker any more: not in STATUS.md, not in the run's closing lines.
grep -q '^blocked: \[\]$' "$s/STATUS.md" || fail "STATUS.md still lists a blocker: $(head -8 "$s/STATUS.md")"
! grep -q 'blocked: execute:01-01' "$tmp/stderr.log" || fail "the summary lists the restarted plan as blocked: $(cat "$tmp/stderr.log")"
grep -q '"start of plan 01-01 asked (harness-cli start-session): queued' "$tmp/events.jsonl" \
  || fail "the note does not say the CLI asked: $(grep 'start of plan 01-01' "$tmp/events.jsonl")"

# 7. The orchestrator is gone again.
out=$(call harness_end_session '{"session_id":"x"}')
[[ $out == *'orchestrator not running'* ]] || fail "after the run: $out"
out=$(cd "$p" && "$cli" status "$spec")
[[ $out != *"orchestrate running"* ]] || fail "status still shows a run: $out"
rc=0; (cd "$p" && "$cli" end-session x) >"$tmp/cli.out" 2>&1 || rc=$?
[[ $rc -eq 1 ]] && grep -q "orchestrator not running" "$tmp/cli.out" || fail "CLI after the run: rc $rc, $(cat "$tmp/cli.out")"
# Asking in a directory where nothing ever ran leaves nothing behind.
mkdir "$tmp/elsewhere"
rc=0; "$cli" start-session 01-01 --project "$tmp/elsewhere" >"$tmp/cli.out" 2>&1 || rc=$? # no project at all
[[ $rc -eq 2 && ! -e "$tmp/elsewhere/.orchestration" ]] || fail "start-session in no project: rc $rc, $(cat "$tmp/cli.out")"
git -C "$tmp/elsewhere" init -q
rc=0; "$cli" start-session 01-01 --project "$tmp/elsewhere" >"$tmp/cli.out" 2>&1 || rc=$?
[[ $rc -eq 1 && ! -e "$tmp/elsewhere/.orchestration" ]] || fail "start-session elsewhere: rc $rc, $(ls -a "$tmp/elsewhere")"
echo "ok"
