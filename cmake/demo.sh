#!/usr/bin/env bash
# The main job on the example spec, as a user would run it. $1: directory holding the binaries.
set -euo pipefail
bin=$1
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
spec=$root/examples/specs/SPC-001-task-tracker
cd "$root"
echo "\$ harness-cli validate ${spec#$root/}"
"$bin/harness-cli" validate "$spec"
echo
echo "\$ harness-cli graph ${spec#$root/}"
"$bin/harness-cli" graph "$spec"
echo
echo "\$ harness-cli status ${spec#$root/}"
"$bin/harness-cli" status "$spec"
