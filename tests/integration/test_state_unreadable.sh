#!/usr/bin/env bash
# Run state another user cannot read (review II F2): a project run by root, then read by `nobody`
# with .orchestration/ at mode 0700. respond --list said "no checkpoint waits" (exit 0), status
# left its waiting questions out, the MCP tools returned empty lists, and redo threw a raw
# filesystem error: each now says it cannot read the state (respond and redo exit 1, status says
# so in a line and in --json, the tool fails). State
# it can read but not write fails the MCP tools with the cause named (F3).
set -euo pipefail
cli=${HARNESS_CLI:?}
mcp=${HARNESS_MCP:?}
src=${HARNESS_SOURCE_DIR:?}
source "$src/tests/integration/lib/project.sh"
project_tmp
if [[ $(id -u) -ne 0 ]] || ! command -v setpriv >/dev/null; then
  echo "SKIP: needs root and setpriv to read as another user"
  exit 0
fi
spec=docs/specs/SPC-001-unreadable
p=$tmp/p
file_plans_project "$p" "$spec" Unreadable 01-01
(cd "$p" && "$cli" orchestrate "$spec" --worker script --yes </dev/null >"$tmp/run.out" 2>&1) || fail "run: $(tail -5 "$tmp/run.out")"
# The binaries as the other user can reach them, wherever this checkout lies (/root is 0700).
mkdir "$tmp/bin" && cp "$cli" "$mcp" "$tmp/bin/" && cli=$tmp/bin/$(basename "$cli") && mcp=$tmp/bin/$(basename "$mcp")
chmod 0755 "$tmp" "$p"
chmod -R a+rX "$p/docs"
chmod 0700 "$p/.orchestration"
as_nobody() { (cd "$p" && setpriv --reuid=65534 --regid=65534 --clear-groups "$@"); }

rc=0
err=$(as_nobody "$cli" respond --list 2>&1 >/dev/null) || rc=$?
[[ $rc -eq 1 && $err == *"cannot read $p/.orchestration: Permission denied (it belongs to root"* ]] ||
  fail "respond --list as another user: exit $rc: $err"
rc=0
err=$(as_nobody "$cli" respond cp-x approve 2>&1 >/dev/null) || rc=$?
[[ $rc -eq 1 && $err == *"cannot read $p/.orchestration"* ]] || fail "respond ID as another user: exit $rc: $err"
rc=0
err=$(as_nobody "$cli" redo "$spec" 01-01 2>&1 >/dev/null) || rc=$?
[[ $rc -eq 1 && $err == *"cannot read $p/.orchestration: Permission denied (it belongs to root"* ]] ||
  fail "redo as another user: exit $rc: $err"
st=$(as_nobody "$cli" status "$spec")
[[ $st == *"what runs and what waits for an answer is not shown: cannot read $p/.orchestration"* ]] || fail "status: $st"
json=$(as_nobody "$cli" status "$spec" --json)
[[ $json == *'"state_unreadable":"cannot read '* ]] || fail "status --json: $json"

init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}'
call='{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"harness_list_sessions","arguments":{}}}'
out=$(printf '%s\n%s\n' "$init" "$call" | as_nobody "$mcp" | tail -n 1)
[[ $out == *'"isError":true'* && $out == *"cannot read $p/.orchestration"* ]] || fail "harness_list_sessions as another user: $out"

# A group-shared .orchestration/ (0770 or 0755) whose sessions/ and index/ the run made 0700: the
# waiting questions are there, and were hidden the same way (review KK F1).
chmod 0755 "$p/.orchestration"
rc=0
err=$(as_nobody "$cli" respond --list 2>&1 >/dev/null) || rc=$?
[[ $rc -eq 1 && $err == *"cannot read $p/.orchestration/"*"Permission denied (it belongs to root"* ]] ||
  fail "respond --list with the sessions unreadable: exit $rc: $err"
chmod 0755 "$p/.orchestration/sessions" "$p/.orchestration/index"

# Readable but not writable by this user: SQLite cannot read a WAL database without writing
# beside it, and says only "unable to open database file" (review II F3): the cause is added.
out=$(printf '%s\n%s\n' "$init" "$call" | as_nobody "$mcp" | tail -n 1)
[[ $out == *'"isError":true'* && $out == *".orchestration is not writable by this user: SQLite needs to write beside the database even to read it"* ]] ||
  fail "harness_list_sessions on state it cannot write: $out"

# Root reads it as before.
[[ $(cd "$p" && "$cli" respond --list 2>&1) == "no checkpoint waits for an answer" ]] || fail "respond --list as root"
echo "ok"
