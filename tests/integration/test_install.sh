#!/usr/bin/env bash
# `cmake --install` as README's "Using it in your project" has a user run it:
#   - the runtime component puts harness-cli, harness-mcp, the skills and ui_driver.cjs under the
#     prefix, and the installed programs use the installed files (not the source tree they were
#     built from): install-skills copies a marker put into the installed skills only;
#   - from a fresh project with only the prefix's bin/ on PATH: install-skills, init, and an
#     orchestrate with the script worker complete; harness-mcp answers initialize; both name the
#     commit they were built from;
#   - the development component gives `find_package(harness)`: a consumer project builds against
#     harness::harness and loads the example spec through the library.
set -euo pipefail
cli=${HARNESS_CLI:?}
src=${HARNESS_SOURCE_DIR:?}
bin=${HARNESS_BINARY_DIR:?}
source "$src/tests/integration/lib/project.sh"
project_tmp
prefix=$tmp/prefix

# 1. The runtime component alone: programs and their data, no library.
cmake --install "$bin" --prefix "$prefix" --component runtime >"$tmp/install.out" 2>&1 ||
  fail "cmake --install --component runtime: $(cat "$tmp/install.out")"
for f in bin/harness-cli bin/harness-mcp share/harness/ui_driver.cjs share/harness/skills/templates/worker-prompt.md; do
  [[ -e $prefix/$f ]] || fail "the runtime component lacks $f"
done
[[ ! -e $prefix/lib ]] || fail "the runtime component installed the library: $(ls "$prefix/lib")"
status_cmd=$(find "$prefix/share/harness/skills" -path '*commands*' -name 'status.md' | head -1)
[[ -n $status_cmd ]] || fail "no status command among the installed skills"
echo "<!-- installed-copy-marker -->" >>"$status_cmd"

# 2. A user's project, with nothing of the build tree on PATH.
p=$tmp/proj
mkdir -p "$p"
(cd "$p" && git init -q && git commit -q --allow-empty -m init)
run() { (cd "$p" && env PATH="$prefix/bin:/usr/local/bin:/usr/bin:/bin" "$@"); }
out=$(run harness-cli install-skills 2>&1) || fail "install-skills from the prefix: $out"
grep -rq 'installed-copy-marker' "$p/.claude" || fail "install-skills did not copy the installed skills (source tree used?)"
out=$(run harness-cli init --spec notifications 2>&1) || fail "init from the prefix: $out"
[[ -f $p/docs/specs/SPC-001-notifications/SPEC.md ]] || fail "init wrote no SPEC.md: $out"
init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}'
out=$(printf '%s\n' "$init" | run harness-mcp 2>&1) || fail "harness-mcp from the prefix: $out"
[[ $out == *'"serverInfo"'* ]] || fail "harness-mcp gave no initialize answer: $out"
# Both programs name the commit they were built from (the source tree is a git checkout here; a
# commit made since the build leaves the build's own commit in the history).
[[ $out =~ \"version\":\"0\.1\.0\+([0-9a-f]{12})(-dirty)?\" ]] || fail "harness-mcp's serverInfo names no commit: $out"
commit=${BASH_REMATCH[1]}
git -C "$src" merge-base --is-ancestor "$commit" HEAD || fail "harness-mcp names $commit, not a commit of this checkout"
out=$(run harness-cli --version 2>&1) || fail "harness-cli --version: $out"
[[ $out =~ ^"harness-cli 0.1.0 ($commit"(-dirty)?")"$ ]] || fail "harness-cli --version said: $out (harness-mcp: $commit)"
s=$p/docs/specs/SPC-002-two
mkdir -p "$s/planning/plans/01-core"
echo "# Two plans" >"$s/SPEC.md"
core_plan "$s" 01-01
core_plan "$s" 01-02 "['01-01']"
(cd "$p" && git add -A && git commit -qm "spec and skills")
rc=0
out=$(run timeout 120 harness-cli orchestrate docs/specs/SPC-002-two --worker script --yes 2>&1 </dev/null) || rc=$?
[[ $rc -eq 0 && $out == *"run_finished"*"complete"* ]] || fail "orchestrate from the prefix: rc $rc: $out"
[[ -f $p/out/01-02.txt ]] || fail "the second plan's file is missing"

# 3. The development component: find_package(harness) and a program linked with the library.
cmake --install "$bin" --prefix "$prefix" --component development >"$tmp/install.out" 2>&1 ||
  fail "cmake --install --component development: $(cat "$tmp/install.out")"
c=$tmp/consumer
mkdir -p "$c"
cat >"$c/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.20)
project(consumer CXX)
set(CMAKE_CXX_STANDARD 23)
find_package(harness REQUIRED)
add_executable(consumer main.cpp)
target_link_libraries(consumer PRIVATE harness::harness)
CMAKE
cat >"$c/main.cpp" <<'CPP'
#include "harness/spec/spec.hpp"
#include <cstdio>
int main(int, char** argv) {
  auto spec = harness::spec::load_spec(argv[1]);
  if (!spec) return std::fprintf(stderr, "%s\n", spec.error().c_str()), 1;
  std::printf("%zu plans\n", spec->plans.size());
}
CPP
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S "$c" -B "$c/build" "${generator[@]}" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Debug >"$tmp/consumer.out" 2>&1 ||
  fail "find_package(harness) failed: $(tail -20 "$tmp/consumer.out")"
cmake --build "$c/build" -j2 >"$tmp/consumer.out" 2>&1 || fail "the consumer does not build: $(tail -30 "$tmp/consumer.out")"
out=$("$c/build/consumer" "$src/examples/specs/SPC-001-task-tracker" 2>&1) || fail "the consumer failed: $out"
[[ $out == "12 plans" ]] || fail "the consumer read the example as: $out"
echo "install: ok"
