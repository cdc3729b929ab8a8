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
fail() { echo "FAIL: $*" >&2; exit 1; }
source "$src/tests/integration/lib/agents.sh"
codex=$(agent_cli codex)
offline "$0"

tmp=$(mktemp -d)
stubs=()
trap 'for p in "${stubs[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$tmp"' EXIT
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com
export STUB_KEY=stub-key
spec=docs/specs/SPC-044-codex-faults

# run_case NAME EXPECTED_REASON [TIMEOUTS]: a one-plan project whose executor is Codex scripted by
# tests/agents/NAME.json; the run must exit 1 with one task_failed for the plan, whose message
# contains EXPECTED_REASON.
run_case() {
  local name=$1 reason=$2 timeouts=${3:-"{task: 120, idle: 60}"} d=$tmp/$1
  mkdir -p "$d"
  start_stub responses_stub.mjs "$name.json" "$d"
  stubs+=("$stub_pid")
  one_plan_project "$d/p" "$spec"
  printf 'adapters: {default: script, executor: codex}\nworkers:\n  codex: {binary: %s, base_url: "%s", env_key: STUB_KEY, model: gpt-stub}\nmax_attempts: 1\ntimeouts: %s\n' \
    "$codex" "http://127.0.0.1:$stub_port/v1" "$timeouts" >"$d/p/.orchestration/config.yaml"
  local rc=0
  (cd "$d/p" && "$cli" orchestrate "$spec" --yes --json >"$d/events.jsonl" 2>"$d/stderr.log") || rc=$?
  [[ $rc -eq 1 ]] || { cat "$d/stderr.log"; tail -5 "$d/events.jsonl"; fail "$name: the run should be blocked (exit 1), got $rc"; }
  python3 - "$d/events.jsonl" "$reason" <<'PY' || fail "$name: events"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
failed = [e for e in ev if e["event"] == "task_failed" and e.get("task") == "execute:01-01"]
assert len(failed) == 1 and sys.argv[2] in failed[0]["message"], failed
assert not [e for e in ev if e["event"] == "task_succeeded" and e.get("task") == "execute:01-01"]
assert not ev[-1]["message"].startswith("complete"), ev[-1]
PY
  # Codex itself ended well: the failure is the orchestrator's judgement, not the CLI's exit code.
  local log
  log=$(ls "$d"/p/.orchestration/sessions/execute-01-01-*/output.log)
  if [[ $name != codex_stalls ]]; then
    grep -q '"type":"turn.completed"' "$log" || fail "$name: Codex did not finish its turn"
  fi
  [[ ! -e "$d/p/$spec/execution/FINAL-VERIFICATION.md" ]] || fail "$name: a final verification was written"
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
for d in /proc/[0-9]*; do
  [[ "$(readlink "$d/cwd" 2>/dev/null)" != "$tmp/codex_stalls/p"* ]] \
    || fail "a worker process outlived the run: $(tr '\0' ' ' <"$d/cmdline")"
done
echo "orchestrate refuses four Codex workers' unproven or stalled work: all checks passed"
