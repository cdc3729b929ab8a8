#!/usr/bin/env bash
# Rate limits under `harness-cli orchestrate`, with the backoff shortened in config.yaml
# (rate_limit: backoff_ms, max_backoff_ms) so that the whole path runs in seconds instead of an
# hour. The claude adapter runs a stand-in CLI (faults/rate_limited_claude.sh) that prints Claude
# Code's stream-json error result for a 429:
#   01-01 is rate-limited forever: 8 waits (20, 40, 80, 80, ... ms) without spending an attempt,
#         the 9th rate limit in a row fails attempt 1 as crashed, attempt 2 continues the row and
#         fails at once, and the task ends blocked; `harness-cli status` says why.
#   01-02 is rate-limited twice, then its limit lifts: it succeeds on its first attempt.
set -euo pipefail
cli=${HARNESS_CLI:?}
src=${HARNESS_SOURCE_DIR:?}
source "$src/tests/integration/lib/project.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com
export FAULT_DIR=$tmp/starts RL_HARNESS_CLI=$cli
mkdir -p "$FAULT_DIR"
spec=docs/specs/SPC-008-limits
p=$tmp/p
s=$p/$spec
file_plans_project "$p" "$spec" "Rate limits" 01-01 01-02
cat >"$p/.orchestration/config.yaml" <<YAML
max_attempts: 2
rate_limit: {backoff_ms: 20, max_backoff_ms: 80}   # retries: the default 8
timeouts: {idle: 30, stop_grace: 1}
workers:
  claude: {binary: $src/tests/integration/faults/rate_limited_claude.sh}
YAML

# With the built-in 30 s doubling to 10 minutes this run would take about 50 minutes: the
# timeout is what makes a backoff that ignores config.yaml fail here.
set +e
(cd "$p" && timeout -k 10 120 "$cli" orchestrate "$spec" --worker claude --yes --json >"$tmp/events.jsonl" 2>"$tmp/stderr.log")
rc=$?
set -e
[[ $rc -ne 124 ]] || fail "orchestrate was still backing off after 120 s: config.yaml's rate_limit was not applied"
[[ $rc -eq 1 ]] || { cat "$tmp/stderr.log"; tail -5 "$tmp/events.jsonl"; fail "a run with a task blocked should exit 1, got $rc"; }
python3 - "$tmp/events.jsonl" <<'PY'
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
def of(kind, task): return [e for e in ev if e["event"] == kind and e.get("task") == task]
def waits(task): return [e["message"] for e in of("note", task) if "retrying in" in e["message"]]
def limited(task): return [e for e in of("task_failed", task) if e["message"].startswith("rate-limited: ")]
assert ev[-1]["event"] == "run_finished" and ev[-1]["message"].startswith("blocked"), ev[-1]

# 01-01: nine starts of attempt 1 (eight waits, doubling to the cap), then attempt 2.
t = "execute:01-01"
assert [e.get("attempt") for e in of("task_started", t)] == [1] * 9 + [2], of("task_started", t)
assert waits(t) == ["rate-limited; retrying in %s s (costs no attempt)" % w for w in ["0.02", "0.04"] + ["0.08"] * 6], waits(t)
# One task_failed per rate limit, carrying the API's message; the retry plan is a note.
assert len(limited(t)) == 8 and all("rate_limit_error" in e["message"] for e in limited(t)), limited(t)
crashed = [e for e in of("task_failed", t) if "times in a row" in e["message"]]
assert [(e["attempt"], e["message"].split(":")[0]) for e in crashed] == \
    [(1, "rate-limited 9 times in a row"), (2, "rate-limited 10 times in a row")], crashed
assert all("rate_limit_error" in e["message"] for e in crashed), crashed
blocked = of("task_blocked", t)
assert len(blocked) == 1 and blocked[0]["message"].startswith("crashed: rate-limited 10 times in a row"), blocked
assert not of("task_succeeded", t)

# 01-02: two waits, then its first attempt succeeds.
t = "execute:01-02"
assert [e.get("attempt") for e in of("task_started", t)] == [1, 1, 1], of("task_started", t)
assert waits(t) == ["rate-limited; retrying in 0.02 s (costs no attempt)", "rate-limited; retrying in 0.04 s (costs no attempt)"], waits(t)
assert len(limited(t)) == 2, limited(t)
assert len(of("task_succeeded", t)) == 1 and not of("task_blocked", t)
PY
[[ $(cat "$FAULT_DIR/01-01") -eq 10 ]] || fail "01-01's CLI should have started 10 times, not $(cat "$FAULT_DIR/01-01")"
[[ $(cat "$FAULT_DIR/01-02") -eq 3 ]] || fail "01-02's CLI should have started 3 times, not $(cat "$FAULT_DIR/01-02")"
[[ $(sort -u "$FAULT_DIR/01-01.sessions" | wc -l) -eq 10 ]] || fail "each start of 01-01 should have a session of its own"
[[ $(cd "$p" && git log --oneline --grep "Plan: 01-02, Task: 1/1" | wc -l) -eq 1 ]] || fail "01-02's task should be committed once"
[[ ! -e "$p/out/01-01.txt" ]] || fail "01-01 was never run, yet its file exists"

grep -q 'task: "execute:01-01"' "$s/STATUS.md" || fail "STATUS.md does not list the blocked task: $(head -8 "$s/STATUS.md")"
out=$(cd "$p" && "$cli" status "$spec")
[[ "$out" == *"execute:01-01 blocked by the last run: crashed: rate-limited 10 times in a row"* ]] \
  || fail "status does not say why 01-01 is blocked: $out"
echo "orchestrate backs off rate limits as configured: all checks passed"
