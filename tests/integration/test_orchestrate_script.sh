#!/usr/bin/env bash
# harness-cli orchestrate end to end with the script worker: real processes, real git commits in a
# temporary repository, the real verification engine (including HTTP checks against a server the
# plan starts), write-back into the spec directory, and a checkpoint answered with `respond`.
# Killing and resuming is test_orchestrate_crash.sh.
set -euo pipefail
cli=${HARNESS_CLI:?}
src=${HARNESS_SOURCE_DIR:?}
source "$src/tests/integration/lib/project.sh"
project_tmp
spec=docs/specs/SPC-001-task-tracker
umask 022 # the common one, which leaves what harness does not make private readable to everyone

# 1. A whole run: complete, every document written back, one commit per task.
p=$tmp/run
example_project "$p"
(cd "$p" && "$cli" orchestrate "$spec" --worker script --yes --json >"$tmp/events.jsonl") || fail "orchestrate exited $?"
python3 - "$tmp/events.jsonl" <<'PY'
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
kinds = [e["event"] for e in ev]
assert kinds[-1] == "run_finished" and ev[-1]["message"].startswith("complete"), ev[-1]
running, peak = set(), 0
for e in ev:
    if e["event"] == "task_started": running.add(e["task"])
    if e["event"] in ("task_succeeded", "task_failed"): running.discard(e["task"])
    peak = max(peak, len(running))
assert peak >= 2, "no two tasks ever ran together"
assert any(e["event"] == "checkpoint_answered" and e.get("task") == "verify-plan:02-03" for e in ev)
starts = [e["task"] for e in ev if e["event"] == "task_started" and e.get("task", "").startswith("execute:")]
assert len(starts) == 12 and len(set(starts)) == 12, starts
# the held conflict: 02-01 and 02-02 write the same file and never overlap
spans = {}
for e in ev:
    if e.get("task") in ("execute:02-01", "execute:02-02"):
        spans.setdefault(e["task"], []).append((e["event"], e["elapsed"]))
a = dict(spans["execute:02-01"]); b = dict(spans["execute:02-02"])
assert a["task_succeeded"] <= b["task_started"] or b["task_succeeded"] <= a["task_started"], spans
# Each task's events name its session, the id end-session and harness_get_output take: the same
# from task_started to its end; run-level events name none.
session_of = {}
for e in ev:
    if e["event"] == "task_started": session_of[e["task"]] = e["session_id"]
    if e["event"] in ("task_progress", "task_succeeded", "task_failed"):
        assert e.get("session_id") == session_of.get(e["task"]), e
assert len(set(session_of.values())) == len(session_of), session_of
assert all(e.get("session_id") is None for e in ev if e["event"] in ("run_started", "run_finished")), ev
workers = [sid for task, sid in session_of.items() if task.startswith("execute:")] # verifications run in harness
open(sys.argv[1] + ".sessions", "w").write("\n".join(workers) + "\n")
PY
while read -r sid; do # ...a worker's is one of the session directories the run made
  [[ -d "$p/.orchestration/sessions/$sid" ]] || fail "no session directory for $sid named in the events"
done <"$tmp/events.jsonl.sessions"
cd "$p"
[[ $(git log --oneline --grep '^feat(' | wc -l) -eq 14 ]] || fail "expected 14 task commits, got $(git log --oneline --grep '^feat(' | wc -l)"
grep -q "^Plan: 02-01, Task: 1/1$" <<<"$(git log --format=%B)" || fail "trailers missing"
[[ -z $(git status --porcelain) ]] || fail "work tree not clean: $(git status --porcelain)"
# The run's state (every report, each worker's log, prompt and token) is the user's alone.
for d in .orchestration .orchestration/sessions .orchestration/sessions/*/; do
  [[ $(stat -c %a "$d") == 700 ]] || fail "$d has mode $(stat -c %a "$d"), expected 700"
done
grep -q "^status: passed" "$spec/execution/FINAL-VERIFICATION.md" || fail "final verification"
grep -q "^status: passed" "$spec/execution/phases/03-http-api/VERIFICATION.md" || fail "phase 3 verification"
grep -q "^completed_plans: 12" "$spec/ROADMAP.md" || fail "roadmap progress: $(head -12 "$spec/ROADMAP.md")"
# The body people read is ticked too: every plan and phase line, and nothing else changed there.
[[ $(grep -c '^- \[x\] ' "$spec/ROADMAP.md") -eq 16 ]] || fail "roadmap ticks: $(grep -e '- \[' "$spec/ROADMAP.md")"
! grep -q '^- \[ \] ' "$spec/ROADMAP.md" || fail "roadmap lines left unticked: $(grep -e '- \[ \]' "$spec/ROADMAP.md")"
grep -q "12/12 plans verified" "$spec/STATUS.md" || fail "STATUS.md"
# REQUIREMENTS.md's status column (harness's layout, review OO F7): met once its plans are verified.
[[ $(grep -c '| Complete |$' "$spec/planning/REQUIREMENTS.md") -eq 5 ]] || fail "requirements: $(grep '^| R' "$spec/planning/REQUIREMENTS.md")"
[[ $(wc -l <"$spec/execution/commits.log") -ge 14 ]] || fail "commits.log"
"$cli" status "$spec" --json | python3 -c 'import json,sys; j=json.load(sys.stdin); assert j["complete"], j'
# Numbers as jq and people read them: `"elapsed":0.205`, not Boost's `2.04731535E-1`.
"$cli" status "$spec" --json >"$tmp/status.json"
"$cli" simulate "$spec" --json >"$tmp/simulate.json"
for f in events.jsonl status.json simulate.json; do
  ! grep -Eq '[:,[]-?[0-9.]+[eE][-+]?[0-9]+[],}]' "$tmp/$f" || fail "$f has a number in exponent form: $(grep -Eo '"[a-z_]+":-?[0-9.]+[eE][-+]?[0-9]+' "$tmp/$f" | head -3)"
done
grep -Eq '"elapsed":[0-9]+\.[0-9]+[,}]' "$tmp/events.jsonl" || fail "no plain elapsed in the events: $(head -c 300 "$tmp/events.jsonl")"
cd - >/dev/null

# 2. Without --yes and without a terminal the checkpoint waits for `harness-cli respond`, answered
# here while other plans still run (a run with nothing else left stops with exit 3:
# test_orchestrate_checkpoints.sh). The worker kind and one slot come from .orchestration/config.yaml,
# not from flags.
p=$tmp/respond
example_project "$p"
mkdir -p "$p/.orchestration"
printf 'slots: 1\nadapters:\n  default: cluade\n' >"$p/.orchestration/config.yaml"
set +e
err=$(cd "$p" && "$cli" orchestrate "$spec" 2>&1 >/dev/null); rc=$?
set -e
[[ $rc -eq 2 ]] || fail "a malformed config.yaml should exit 2, got $rc"
[[ "$err" == *"config.yaml:3:12: error[H202]: \`adapters.default\` must be one of"* ]] || fail "config diagnostic: $err"
# A key written twice is refused too, rather than the last one silently winning.
printf 'slots: 4\nslots: 1\n' >"$p/.orchestration/config.yaml"
set +e
err=$(cd "$p" && "$cli" orchestrate "$spec" --worker script 2>&1 >/dev/null); rc=$?
set -e
[[ $rc -eq 2 ]] || fail "a config.yaml with a duplicate key should exit 2, got $rc"
[[ "$err" == *"config.yaml:2:1: error[H204]: duplicate key \`slots\` (first on line 1)"* ]] || fail "duplicate key diagnostic: $err"
printf 'slots: 1\nadapters:\n  default: script\n' >"$p/.orchestration/config.yaml"
# Flags out of range are invalid input too, refused before anything runs.
for bad in "--lookahead 2x" "--lookahead -1" "--lookahead 17" "--timeout 0" "--idle-timeout 0" "--slots 0"; do
  set +e
  err=$(cd "$p" && "$cli" orchestrate "$spec" --worker script $bad 2>&1 >/dev/null); rc=$?
  set -e
  [[ $rc -eq 2 ]] || fail "orchestrate $bad exited $rc, expected 2: $err"
done
# Said in words, not as a range up to the largest double.
err=$(cd "$p" && "$cli" orchestrate "$spec" --worker script --max-cost -5 2>&1 >/dev/null) && fail "--max-cost -5 ran"
[[ $err == *"--max-cost: -5 is not a number above 0"* && ${#err} -lt 200 ]] || fail "--max-cost -5: $err"
[[ ! -e "$p/.orchestration/harness.db" ]] || fail "a refused flag started a run"
(cd "$p" && "$cli" orchestrate "$spec" --json >"$tmp/respond.jsonl" 2>&1) &
orch=$!
for _ in $(seq 1 300); do
  ids=$(cd "$p" && "$cli" respond --list | awk '{print $1}')
  [[ -n "$ids" ]] && break
  sleep 0.1
done
[[ -n "$ids" ]] || fail "no checkpoint appeared"
out=$(cd "$p" && "$cli" respond "$ids" approve --note "looks right") || fail "respond exited $?"
grep -q "answered" <<<"$out" || fail "respond: $out"
wait $orch || fail "orchestrate after respond exited $?"
# A .orchestration/ the user made keeps its mode; the session directories harness makes in it
# (the workers' and the checkpoint's) are private all the same.
[[ $(stat -c %a "$p/.orchestration") == 755 ]] || fail ".orchestration's mode changed: $(stat -c %a "$p/.orchestration")"
for d in "$p"/.orchestration/sessions/*/; do
  [[ $(stat -c %a "$d") == 700 ]] || fail "$d has mode $(stat -c %a "$d"), expected 700"
done
grep -q '"checkpoint_answered".*looks right' "$tmp/respond.jsonl" || fail "answer not seen"
python3 - "$tmp/respond.jsonl" <<'PY' || fail "config.yaml slots: 1 not applied"
import json, sys
running, peak = set(), 0
for line in open(sys.argv[1]):
    if not line.startswith("{"): continue
    e = json.loads(line)
    if e["event"] == "task_started": running.add(e["task"])
    if e["event"] in ("task_succeeded", "task_failed", "checkpoint_opened"): running.discard(e["task"])
    peak = max(peak, len(running))
assert peak == 1, peak
PY
set +e
(cd "$p" && "$cli" respond nope approve 2>/dev/null); [[ $? -eq 2 ]] || fail "unknown checkpoint should exit 2"
set -e

echo "orchestrate: all checks passed"
