#!/usr/bin/env bash
# Test-time tools that do not come from Debian: pinned npm packages, installed once into
# tests/node/node_modules (ignored by git). Offline-safe when already installed.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[[ -f "$here/node/package.json" ]] || exit 0
cd "$here/node"
if [[ ! -d node_modules ]] || [[ package.json -nt node_modules ]]; then
  npm install --no-audit --no-fund --loglevel=error
  touch node_modules
fi
