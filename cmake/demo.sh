#!/usr/bin/env bash
# The main job on the example spec, as a user runs it: a fresh project (its own git repository
# under build/demo) holding the example spec, then validate, graph, orchestrate with the
# deterministic `script` worker, and status. $1: directory holding the binaries.
set -euo pipefail
bin=$(cd "$1" && pwd)
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
demo=$root/build/demo
spec=docs/specs/SPC-001-task-tracker

rm -rf "$demo"
mkdir -p "$demo/docs/specs"
cp -r "$root/examples/specs/SPC-001-task-tracker" "$demo/docs/specs/"
cd "$demo"
git init -q
# A fresh machine may have no git identity; the demo's commits need one.
if ! git config user.email >/dev/null; then
  git config user.name "harness demo"
  git config user.email "demo@harness.invalid"
fi
git add -A
git commit -qm "Example project with spec SPC-001"

run() { echo; echo "\$ $*"; "$@"; }
cd "$demo"
run "$bin/harness-cli" validate "$spec"
run "$bin/harness-cli" graph "$spec"
run "$bin/harness-cli" simulate "$spec" --slots 4
run "$bin/harness-cli" orchestrate "$spec" --worker script --yes --slots 4
run "$bin/harness-cli" status "$spec"
echo
echo "The example project is in $demo: git log shows one commit per task with Plan/Task/Spec"
echo "trailers; $spec/execution/ holds the SUMMARY and VERIFICATION files."
