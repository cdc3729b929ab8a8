#!/usr/bin/env bash
# harness-cli verify as a user runs it: exit 0 passed, 1 failed, 3 waiting for a human, 2 invalid
# input; real targets for every kind of check: files, commands, an HTTP API and a web page served
# by a server the check starts, the page opened in a real headless Chromium (Debian's chromium,
# driven by playwright-core from tests/node), a git history with and without trailers. A check's
# timeout stops its whole process group (no orphan left), and a bad check gives file:line.
set -euo pipefail
cli=${HARNESS_CLI:?}
src=${HARNESS_SOURCE_DIR:?}
[[ -d "$src/tests/node/node_modules/playwright-core" ]] || bash "$src/tests/setup.sh"
export HARNESS_NODE_MODULES=$src/tests/node/node_modules
tmp=$(mktemp -d)
marker=$((700000 + RANDOM))
trap 'pkill -KILL -f "sleep $marker" 2>/dev/null || true; pkill -KILL -f "$tmp" 2>/dev/null || true; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com
p=$tmp/project
s=$p/docs/specs/SPC-009-verify
plans=$s/planning/plans/01-checks
mkdir -p "$plans" "$p/site" "$p/api"
printf '# Verify\n\nChecks of every kind.\n' >"$s/SPEC.md"
port=$((20000 + RANDOM % 20000))
cat >"$p/site/index.html" <<'HTML'
<!doctype html><title>Tasks</title><h1 id="title">Tasks</h1><a id="go" href="done.html">next</a>
HTML
cat >"$p/site/done.html" <<'HTML'
<!doctype html><title>Done</title><p id="msg">All done</p>
HTML
echo '{"tasks": [{"id": 1, "title": "write tests"}], "count": 1}' >"$p/api/tasks.json"
serve="python3 -m http.server $port --bind 127.0.0.1"

plan() { # id, checks (YAML list items, indented by 2), more of the body
  printf -- "---\nplan_id: '%s'\ndepends_on: []\nfiles_modified: []\nmust_pass:\n%s---\n# %s\n\n### Task 1: nothing\n%s" "$1" "$2" "$1" "${3:-}" \
    >"$plans/$1-PLAN.md"
}
plan 01-01 "  - {id: readme, type: file_exists, path: site/index.html}
  - {id: words, type: file_contains, path: site/index.html, pattern: 'id=\"title\"'}
  - {id: echo, type: command_output, command: 'echo hello', expects: {exit_code: 0, stdout: '^hello\$'}}
  - id: api
    type: api_response
    start: '$serve --directory .'
    url: 'http://127.0.0.1:$port'
    endpoint: 'GET /api/tasks.json'
    expects: {status: 200, body: {count: 1}}
  - id: title
    type: ui_element_exists
    start: '$serve --directory site'
    url: 'http://127.0.0.1:$port/index.html'
    selector: '#title'
    expects: {text: Tasks}
  - id: flow
    type: ui_navigation
    start: '$serve --directory site'
    url: 'http://127.0.0.1:$port/index.html'
    steps: [{click: '#go'}, {wait_for: '#msg'}]
    expects: {url: 'done\\.html\$', text: 'All done'}
"
plan 01-02 "  - id: missing
    type: ui_element_exists
    start: '$serve --directory site'
    url: 'http://127.0.0.1:$port/index.html'
    selector: '#not-there'
    timeout: 3
  - id: wrong-page
    type: ui_navigation
    start: '$serve --directory site'
    url: 'http://127.0.0.1:$port/index.html'
    steps: [{click: '#go'}]
    expects: {url: 'elsewhere\\.html\$'}
    timeout: 3
"
plan 01-03 "  - {id: looks, type: visual_quality, description: 'the list looks tidy on a phone'}
" "
### Task 2: run the tests
"
plan 01-04 "  - {id: slow, type: command_output, command: 'sh -c \"sleep $marker & sleep $marker\"', timeout: 1}
"
plan 01-05 "  - id: gone
    type: api_response
    start: 'sh -c \"exit 3\"'
    url: 'http://127.0.0.1:$port'
    endpoint: 'GET /'
    timeout: 10
  - id: wrapped
    type: api_response
    start: 'sh -c \"$serve --directory . & exit 0\"'
    url: 'http://127.0.0.1:$port'
    endpoint: 'GET /api/tasks.json'
    expects: {status: 200, body: {count: 1}}
    timeout: 10
"
(cd "$p" && git init -q && git add -A && git commit -qm init)
(cd "$p" && git commit -q --allow-empty -m "feat(01-01): task" -m "Plan: 01-01, Task: 1/1" -m "Spec: SPC-009-verify")
# 01-05's only commit names the spec by an earlier name (a renamed directory).
(cd "$p" && git commit -q --allow-empty -m "feat(01-05): task" -m "Plan: 01-05, Task: 1/1" -m "Spec: SPC-008-old-name")
# 01-03 declares no file but its commit writes one (and a note in the spec's own directory).
mkdir -p "$p/notes" "$s/execution" && echo x >"$p/notes/extra file.txt" && echo n >"$s/execution/note.md"
(cd "$p" && git add -A && git commit -q -m "feat(01-03): task" -m "Plan: 01-03, Task: 1/1" -m "Spec: SPC-009-verify")

verify() { # expected exit code, args...
  local want=$1; shift
  set +e
  out=$(cd "$p" && "$cli" verify docs/specs/SPC-009-verify "$@" 2>&1)
  rc=$?
  set -e
  [[ $rc -eq $want ]] || { echo "$out" >&2; fail "verify $* exited $rc, expected $want"; }
}

# Passing plan: files, a command, an HTTP API and a page in Chromium, all through started servers.
verify 0 01-01 --json
python3 - "$out" <<'PY'
import json, sys
r = json.loads(sys.argv[1])
by = {c["id"]: c for c in r["results"]}
for k in ("readme", "words", "echo", "api", "title", "flow", "commits"):
    assert by[k]["status"] == "passed", (k, by[k])
assert "done.html" in by["flow"]["evidence"], by["flow"]
PY
# Failing plan: a selector that never appears, a navigation that ends elsewhere, no commits.
verify 1 01-02 --json
python3 - "$out" <<'PY'
import json, sys
by = {c["id"]: c for c in json.loads(sys.argv[1])["results"]}
assert by["missing"]["status"] == "failed" and "#not-there" in by["missing"]["message"], by["missing"]
assert by["wrong-page"]["status"] == "failed" and "elsewhere" in by["wrong-page"]["message"], by["wrong-page"]
assert by["commits"]["status"] == "failed", by["commits"]
PY
# A server command that exits before answering is an error of the check, not a crash; one that
# leaves the server running in the background and exits is waited for, and its server is
# stopped with it afterwards.
verify 1 01-05 --json
python3 - "$out" <<'PY'
import json, sys
by = {c["id"]: c for c in json.loads(sys.argv[1])["results"]}
assert by["gone"]["status"] == "error" and "exited before answering" in by["gone"]["message"], by["gone"]
assert by["wrapped"]["status"] == "passed", by["wrapped"]
assert by["commits"]["status"] == "failed", by["commits"]
assert "they carry 'Spec: SPC-008-old-name' (another spec's, or this spec's before its directory was renamed)" in by["commits"]["message"], by["commits"]
PY
sleep 0.3
if pgrep -f "http.server $port" >/dev/null; then fail "the server a wrapper left in the background survived the check"; fi
# A human check waits for a person. Task 2 has no commit: the commits check passes (a task may
# change nothing) but names it.
verify 3 01-03 --json
python3 - "$out" <<'PY'
import json, sys
by = {c["id"]: c for c in json.loads(sys.argv[1])["results"]}
assert by["commits"]["status"] == "passed", by["commits"]
assert by["commits"]["message"].startswith("1 commit, 1 of 2 tasks covered; no commit for task 2 'run the tests'"), by["commits"]
# The undeclared write is named (not the spec's own note); the check still passes: the work is done.
assert "; changed outside files_modified: notes/extra file.txt (declare them" in by["commits"]["message"], by["commits"]
assert "note.md" not in by["commits"]["message"], by["commits"]
PY
# A timeout stops the command's whole process group: no `sleep` survives it.
verify 1 01-04
[[ "$out" == *"timed out"* || "$out" == *"timeout"* ]] || fail "timeout not reported: $out"
sleep 0.3
if pgrep -f "sleep $marker" >/dev/null; then fail "a child of the timed-out check survived"; fi
# No server left behind by the started checks.
if pgrep -f "http.server $port" >/dev/null; then fail "a check's server survived it"; fi
# Phase: every plan again, VERIFICATION.md written with its status.
verify 1 --phase 1
grep -q "^status: gaps_found" "$s/execution/phases/01-checks/VERIFICATION.md" || fail "VERIFICATION.md status"
# Invalid input: unknown plan, no target, and a malformed check with its file and line.
verify 2 09-09
verify 2
plan 01-05 "  - {id: bad, type: ui_navigation, steps: [{teleport: '#x'}]}
"
verify 2 01-05
[[ "$out" == *"01-05-PLAN.md:6:44: error[H017]: unknown ui step 'teleport'"* ]] || fail "diagnostic: $out"
[[ "$out" == *"01-05-PLAN.md:6:5: error[H013]: ui_navigation check 'bad' needs 'url'"* ]] || fail "diagnostic: $out"
echo "verify CLI: all checks passed"
