#!/usr/bin/env bash
# harness-mcp as a process: only JSON lines on stdout, prompt exit on EOF, SIGTERM and SIGINT,
# usage errors exit 2, a worker without a session still answers initialize and tools/list.
set -euo pipefail
mcp=${HARNESS_MCP:?HARNESS_MCP must name the harness-mcp binary}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
fail() { echo "FAIL: $*"; exit 1; }

init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}'
list='{"jsonrpc":"2.0","id":2,"method":"tools/list"}'

# EOF: answers everything, then exits 0; stdout holds exactly one JSON object per line.
printf '%s\n%s\n' "$init" "$list" | "$mcp" --worker >out.txt 2>err.txt || fail "exit code $? on EOF"
[[ $(wc -l <out.txt) -eq 2 ]] || fail "expected 2 lines, got: $(cat out.txt)"
while IFS= read -r line; do
  [[ $line == '{"jsonrpc":"2.0",'* && $line == *'}' ]] || fail "not a JSON-RPC line: $line"
done <out.txt
grep -q '"harness_worker_await"' out.txt || fail "worker tools not listed"
[[ ! -d .orchestration ]] || fail "listing tools created .orchestration"

# Signals: a server waiting on an open stdin exits promptly with 0.
for sig in TERM INT; do
  mkfifo "in.$sig"
  "$mcp" <"in.$sig" >"out.$sig" 2>/dev/null &
  pid=$!
  exec {fd}>"in.$sig"
  printf '%s\n' "$init" >&$fd
  for _ in $(seq 50); do [[ -s "out.$sig" ]] && break; sleep 0.05; done
  [[ -s "out.$sig" ]] || fail "no initialize answer before SIG$sig"
  start=$(date +%s%N)
  kill -s "$sig" "$pid"
  rc=0
  wait "$pid" || rc=$?
  exec {fd}>&-
  elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))
  [[ $rc -eq 0 ]] || fail "exit code $rc after SIG$sig"
  (( elapsed_ms < 2000 )) || fail "took ${elapsed_ms} ms to exit on SIG$sig"
done

# Started below the project (Claude Code starts it in the directory it runs in): the state goes
# to the repository's root, as for harness-cli, not to the subdirectory.
mkdir -p proj/app/src
git -C proj init -q
set_state='{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"harness_set_state","arguments":{"key":"k","value":1}}}'
(cd proj/app/src && printf '%s\n%s\n' "$init" "$set_state" | "$mcp" >"$work/out.sub" 2>/dev/null) || fail "exit code $? below the project"
grep -q '"id":3' out.sub || fail "no answer to harness_set_state: $(cat out.sub)"
[[ -f proj/.orchestration/harness.db ]] || fail "the state is not in the project root"
[[ ! -e proj/app/src/.orchestration ]] || fail "the state went to the working directory below the project"

# Usage errors.
rc=0; "$mcp" --no-such-flag </dev/null >/dev/null 2>err.txt || rc=$?
[[ $rc -eq 2 ]] || fail "unknown flag exit code $rc"
grep -q "unknown option" err.txt || fail "no usage error on stderr"
# A mistyped --project or --tools name: exit 2 before serving, nothing created.
rc=0; printf '%s\n%s\n' "$init" "$set_state" | "$mcp" --project "$work/nope/deeper" >out.missing 2>err.txt || rc=$?
[[ $rc -eq 2 && ! -e "$work/nope" && ! -s out.missing ]] || fail "--project of a missing directory: rc $rc, $(cat err.txt)"
grep -q "is not a directory" err.txt || fail "no reason on stderr: $(cat err.txt)"
rc=0; "$mcp" --project proj --tools harness_get_state,harness_get_stat </dev/null >/dev/null 2>err.txt || rc=$?
[[ $rc -eq 2 ]] && grep -q "names no tool of this server: harness_get_stat (it has " err.txt || fail "--tools typo: rc $rc, $(cat err.txt)"
echo "ok"
