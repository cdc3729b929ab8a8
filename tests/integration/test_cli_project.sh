#!/usr/bin/env bash
# harness-cli's project commands run as processes, the way a new user meets them:
#   - script-worker: invalid input is exit 2, every error prefixed `harness-cli: script-worker:`;
#   - init / install-skills run in a subdirectory work on the project root (as git finds it);
#     init refuses a name an existing spec has (exit 2, naming it) unless --allow-same-name;
#   - the run lock names its holder: the running orchestrate's pid and spec, or the pid of a
#     process that holds the lock without a record (never an earlier run's stale orchestrator.json);
#   - end-session --list shows the SESSION_IDs of the running workers; start-session and
#     end-session, run from a subdirectory, reach the orchestrate; with --json every answer,
#     errors included, is one JSON object on stdout, with the exit code unchanged.
set -euo pipefail
cli=${HARNESS_CLI:?}
src=${HARNESS_SOURCE_DIR:?}
source "$src/tests/integration/lib/project.sh" # hold_run_lock (this test keeps its own tmp and cleanup)
tmp=$(mktemp -d)
orch=""
holder=""
cleanup() {
  [[ -n $orch ]] && kill -KILL "$orch" 2>/dev/null || true
  [[ -n $holder ]] && kill -KILL "$holder" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com
unset HARNESS_SPEC_DIR HARNESS_TASK_ID HARNESS_PLAN_FILE HARNESS_STATE_DIR HARNESS_SESSION_ID

# A project with one spec whose only plan waits for a `go` file, and a subdirectory to work from.
p=$tmp/project
spec=docs/specs/SPC-001-demo
mkdir -p "$p/$spec/planning/plans/01-core" "$p/src/deep"
printf '# Demo\n' >"$p/$spec/SPEC.md"
cat >"$p/$spec/planning/plans/01-core/01-01-PLAN.md" <<'PLAN'
---
plan_id: '01-01'
depends_on: []
files_modified: ['out/01-01.txt']
---
# 01-01

### Task 1: write

```bash
while [ ! -f go ]; do sleep 0.1; done
mkdir -p out && echo done > out/01-01.txt
```
PLAN
printf 'go\n' >"$p/.gitignore"
touch "$p/src/deep/.keep"
(cd "$p" && git init -q && git add -A && git commit -qm init)

# 1. script-worker: what the user got wrong is exit 2, with the command's own prefix.
sw() { # expected-rc args...
  local want=$1 rc=0
  shift
  (cd "$p" && "$cli" script-worker "$@") >"$tmp/sw.out" 2>"$tmp/sw.err" || rc=$?
  [[ $rc -eq $want ]] || fail "script-worker $*: exit $rc, expected $want: $(cat "$tmp/sw.err")"
  [[ $want -eq 0 ]] || grep -q "^harness-cli: script-worker: error: " "$tmp/sw.err" || fail "script-worker $*: prefix: $(cat "$tmp/sw.err")"
}
sw 2
sw 2 --spec "$tmp/no-such-spec" --plan 01-01
sw 2 --spec "$spec" --plan 09-09
rc=0; (cd "$p" && HARNESS_SPEC_DIR=$spec HARNESS_TASK_ID=execute:09-09 "$cli" script-worker) 2>"$tmp/sw.err" || rc=$?
[[ $rc -eq 2 ]] || fail "script-worker from a bad environment exited $rc: $(cat "$tmp/sw.err")"
# Its plan lock cannot be taken where .orchestration is a file: it runs nothing and says why
# (it ran the plan and committed without any lock, review KK F6).
[[ ! -e $p/.orchestration ]] || fail "the project has state before the first run"
printf 'not a directory\n' >"$p/.orchestration"
before=$(git -C "$p" rev-list --count HEAD)
rc=0; (cd "$p" && touch go && timeout 60 "$cli" script-worker --spec "$spec" --plan 01-01) >"$tmp/sw.out" 2>"$tmp/sw.err" || rc=$?
rm -f "$p/go" "$p/.orchestration"
[[ $rc -eq 1 ]] || fail "script-worker with .orchestration a file exited $rc: $(cat "$tmp/sw.err")"
grep -q "cannot take the plan's lock, so nothing was run: .*/.orchestration is not a directory" "$tmp/sw.err" ||
  fail "the refusal does not name .orchestration: $(cat "$tmp/sw.err")"
[[ $(git -C "$p" rev-list --count HEAD) == "$before" && ! -e $p/out/01-01.txt ]] || fail "script-worker ran the plan without its lock"

# 2. init and install-skills from a subdirectory of another project write at its root.
q=$tmp/other
mkdir -p "$q/app/src"
(cd "$q" && git init -q)
out=$(cd "$q/app/src" && "$cli" init --spec notifications) || fail "init from a subdirectory exited $?"
[[ -f $q/docs/specs/SPC-001-notifications/SPEC.md ]] || fail "init did not write at the project root: $out"
[[ ! -e $q/app/src/docs ]] || fail "init wrote into the subdirectory"
[[ $out == *"created ../../docs/specs/SPC-001-notifications/SPEC.md"* ]] || fail "init output: $out"
[[ $out == *"/harness:plan-spec docs/specs/SPC-001-notifications "* ]] || fail "init's next step: $out"
rc=0; (cd "$q/app" && "$cli" init --spec Notifications) >"$tmp/init.out" 2>"$tmp/init.err" || rc=$?
[[ $rc -eq 2 ]] || fail "a second spec named notifications: exit $rc"
grep -q "docs/specs/SPC-001-notifications" "$tmp/init.err" || fail "the refusal does not name the existing spec: $(cat "$tmp/init.err")"
[[ ! -e $q/docs/specs/SPC-002-notifications ]] || fail "a refused init created a directory"
(cd "$q/app" && "$cli" init --spec notifications --allow-same-name) >/dev/null || fail "--allow-same-name exited $?"
[[ -f $q/docs/specs/SPC-002-notifications/SPEC.md ]] || fail "--allow-same-name did not number a second spec"
# A name too long for a directory is bad input (exit 2), not a failed write.
rc=0; (cd "$q" && "$cli" init --spec "$(printf 'x%.0s' $(seq 300))") >/dev/null 2>"$tmp/init.err" || rc=$?
[[ $rc -eq 2 && $(cat "$tmp/init.err") == *"the spec's name is too long: its directory name would have 300 characters"* ]] \
  || fail "init with a 300-character name: rc $rc, $(cat "$tmp/init.err")"
# A project that ignores *.log (commits.log too) hears it from init, not first from orchestrate.
printf '*.log\n' >"$q/.gitignore"
err=$(cd "$q" && "$cli" init --spec logs 2>&1 >/dev/null) || fail "init in a project ignoring *.log exited $?"
[[ $err == "note: git ignores docs/specs/SPC-003-logs/execution/commits.log, which harness commits; orchestrate will not start until"* ]] \
  || fail "init does not mention the ignored commits.log: $err"
rm "$q/.gitignore"
(cd "$q/app/src" && "$cli" install-skills) >/dev/null || fail "install-skills from a subdirectory exited $?"
[[ -f $q/.mcp.json && -d $q/.claude/commands/harness ]] || fail "install-skills did not write at the project root"
[[ ! -e $q/app/src/.claude && ! -e $q/app/src/.mcp.json ]] || fail "install-skills wrote into the subdirectory"

# 3. No orchestrate yet: start-session --json is a JSON error; end-session --list is empty.
rc=0; (cd "$p/src/deep" && "$cli" start-session 01-01 --json) >"$tmp/out.json" 2>/dev/null || rc=$?
[[ $rc -eq 1 ]] || fail "start-session without an orchestrator exited $rc"
python3 - "$tmp/out.json" <<'PY' || fail "start-session --json error: $(cat "$tmp/out.json")"
import json, sys
j = json.load(open(sys.argv[1]))
assert "orchestrator not running" in j["error"], j
PY
out=$(cd "$p/src/deep" && "$cli" end-session --list) || fail "end-session --list without an orchestrator exited $?"
[[ -z $out ]] || fail "end-session --list without an orchestrator: $out"
[[ ! -e $p/src/deep/.orchestration ]] || fail "asking created .orchestration/ in the subdirectory"

# 4. A lock held by a process that wrote no record, beside an earlier run's stale record: the
#    holder's pid is named, the stale spec is not.
mkdir -p "$p/.orchestration"
printf '{"pid":999999999,"spec":"docs/specs/SPC-009-old","started_at":"x"}\n' >"$p/.orchestration/orchestrator.json"
hold_run_lock "$p"
rc=0; (cd "$p" && "$cli" orchestrate "$spec" --worker script) >/dev/null 2>"$tmp/lock.err" || rc=$?
[[ $rc -eq 1 ]] || fail "orchestrate beside a held lock exited $rc"
grep -q "another harness-cli orchestrate is running in this project (pid $holder, which has not recorded its spec yet)" "$tmp/lock.err" ||
  fail "the lock holder is not named: $(cat "$tmp/lock.err")"
grep -q "SPC-009-old\|pid 0" "$tmp/lock.err" && fail "the stale record was believed: $(cat "$tmp/lock.err")"
kill "$holder"
wait "$holder" 2>/dev/null || true
holder=""

# 5. The run: 01-01 waits for `go`. A second orchestrate names it; the worker's SESSION_ID is listed.
(cd "$p" && exec "$cli" orchestrate "$spec" --worker script --slots 1 --json >"$tmp/events.jsonl" 2>"$tmp/orch.err") &
orch=$!
sid=""
for _ in $(seq 300); do
  sid=$(cd "$p/src/deep" && "$cli" end-session --list 2>/dev/null | awk '{print $1}') || sid=""
  [[ -n $sid ]] && break
  sleep 0.1
done
[[ -n $sid ]] || fail "end-session --list never showed the running worker: $(cat "$tmp/orch.err")"
[[ $sid == execute-01-01-* ]] || fail "unexpected session id: $sid"
out=$(cd "$p/src/deep" && "$cli" end-session --list)
[[ $out == "$sid  execute:01-01  slot 1, attempt 1, script" ]] || fail "end-session --list: $out"
(cd "$p/src/deep" && "$cli" end-session --list --json) | python3 -c '
import json, sys
j = json.load(sys.stdin)
assert [s["session_id"] for s in j["sessions"]] == [sys.argv[1]] and j["sessions"][0]["task_id"] == "execute:01-01", j' "$sid" ||
  fail "end-session --list --json"

rc=0; (cd "$p" && "$cli" orchestrate "$spec" --worker script) >/dev/null 2>"$tmp/second.err" || rc=$?
[[ $rc -eq 1 ]] || fail "a second orchestrate exited $rc"
grep -q "another harness-cli orchestrate is running in this project (pid $orch, $spec, since " "$tmp/second.err" ||
  fail "the second orchestrate does not name the first: $(cat "$tmp/second.err")"

# start-session of the running plan answers with its session; an unknown plan is a JSON error.
out=$(cd "$p/src/deep" && "$cli" start-session 01-01) || fail "start-session 01-01 exited $?"
[[ $out == "01-01: running (session $sid)" ]] || fail "start-session 01-01: $out"
rc=0; (cd "$p/src/deep" && "$cli" start-session 09-09 --json) >"$tmp/out.json" 2>/dev/null || rc=$?
[[ $rc -eq 1 ]] || fail "start-session 09-09 --json exited $rc"
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert "no plan 09-09" in j["error"], j' "$tmp/out.json" ||
  fail "start-session 09-09 --json: $(cat "$tmp/out.json")"
rc=0; (cd "$p/src/deep" && "$cli" end-session --json) >"$tmp/out.json" 2>/dev/null || rc=$?
[[ $rc -eq 2 ]] || fail "end-session without SESSION_ID exited $rc"
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert "--list" in j["error"], j' "$tmp/out.json" ||
  fail "end-session --json without SESSION_ID: $(cat "$tmp/out.json")"

# end-session from the subdirectory stops the worker; the run ends blocked.
out=$(cd "$p/src/deep" && "$cli" end-session "$sid" --reason "test" --json) || fail "end-session exited $?"
python3 -c 'import json,sys; j=json.loads(sys.argv[1]); assert j == {"session_id": sys.argv[2], "ended": True}, j' "$out" "$sid" ||
  fail "end-session --json: $out"
rc=0; wait "$orch" || rc=$?
orch=""
[[ $rc -eq 1 ]] || fail "the run whose only worker was ended exited $rc, expected 1 (blocked)"
grep -q '"event":"task_blocked","elapsed":[^,]*,"task":"execute:01-01","message":"refused by a human: ended by harness-cli end-session: test"' "$tmp/events.jsonl" ||
  fail "the blocked task does not say the CLI ended it: $(grep task_blocked "$tmp/events.jsonl")"
out=$(cd "$p" && "$cli" end-session --list)
[[ -z $out ]] || fail "end-session --list after the run: $out"
echo "cli project commands: all checks passed"
