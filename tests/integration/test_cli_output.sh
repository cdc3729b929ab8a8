#!/usr/bin/env bash
# Standard output that cannot be written: every command run with stdout on a full device
# (/dev/full) reports it on stderr and exits non-zero, whatever else it did; `orchestrate` finishes
# its run all the same (STATUS.md says complete), and its exit code says the output was lost; so
# with stdout closed. An
# `orchestrate` whose reader goes away (a closed pipe) ends its run as after SIGHUP.
set -euo pipefail
cli=${HARNESS_CLI:?}
src=${HARNESS_SOURCE_DIR:?}
source "$src/tests/integration/lib/project.sh"
project_tmp
spec=docs/specs/SPC-001-out
p=$tmp/p
file_plans_project "$p" "$spec" Output 01-01 01-02
cd "$p"

# run NAME ARGS...: the command with stdout on /dev/full; sets rc and err.
run() {
  set +e
  "$cli" "$@" >/dev/full 2>"$tmp/err"
  rc=$?
  set -e
  err=$(cat "$tmp/err")
}

run orchestrate "$spec" --worker script --yes --json
[[ $rc -eq 1 ]] || fail "orchestrate --json > /dev/full exited $rc, expected 1: $err"
[[ "$err" == *"harness-cli: error: cannot write standard output: No space left on device"* ]] ||
  fail "orchestrate did not say its output was lost: $err"
grep -q '^run: "complete"' "$spec/STATUS.md" || fail "the run did not go on without its output: $(head -3 "$spec/STATUS.md")"

for cmd in "status $spec" "status $spec --json" "graph $spec --format dot" "validate $spec --json" "simulate $spec" "--help"; do
  # shellcheck disable=SC2086 # the words of the command
  run $cmd
  [[ $rc -eq 1 ]] || fail "$cmd > /dev/full exited $rc, expected 1"
  [[ "$err" == "harness-cli: error: cannot write standard output: No space left on device" ]] || fail "$cmd > /dev/full said: $err"
done

# Invalid input keeps its own exit code; a command that wrote nothing on stdout is not affected.
run validate "$spec/nothing-here"
[[ $rc -eq 2 && "$err" != *"standard output"* ]] || fail "validate of a missing directory > /dev/full: exit $rc: $err"
run orchestrate "$spec/nothing-here" --worker script --json
[[ $rc -eq 2 && "$err" == *"cannot write standard output"* ]] || fail "a refused run's JSON on /dev/full: exit $rc: $err"

# Standard output closed (`>&-`): the next file the run opened took descriptor 1 and its lines went
# there (review II F7); it is held now, and writing fails as on a closed descriptor.
p=$tmp/closed
file_plans_project "$p" "$spec" Closed 01-01 01-02
cd "$p"
set +e
"$cli" orchestrate "$spec" --worker script --yes >&- 2>"$tmp/err"
rc=$?
set -e
err=$(cat "$tmp/err")
[[ $rc -eq 1 && "$err" == *"harness-cli: error: cannot write standard output: Bad file descriptor"* ]] ||
  fail "orchestrate >&- exited $rc: $err"
grep -q '^run: "complete"' "$spec/STATUS.md" || fail "the run with stdout closed: $(head -3 "$spec/STATUS.md")"

# A closed pipe (`orchestrate | head -1`): the run is not killed by SIGPIPE with its workers left
# running unwatched; it drains as when the terminal closes (no new tasks, the running ones
# finish, STATUS.md says interrupted) and exits 130, saying the output was lost.
p=$tmp/pipe
file_plans_project "$p" "$spec" Pipe 01-01 01-02 01-03 01-04
sed -i 's|^mkdir -p out|sleep 2 \&\& mkdir -p out|' "$p/$spec"/planning/plans/01-core/*-PLAN.md
(cd "$p" && git commit -qam 'plans that take a while')
cd "$p"
set +e
"$cli" orchestrate "$spec" --worker script --yes --slots 2 2>"$tmp/err" | head -1 >"$tmp/first"
codes=("${PIPESTATUS[@]}")
set -e
err=$(cat "$tmp/err")
[[ ${codes[0]} -eq 130 ]] || fail "orchestrate | head -1 exited ${codes[0]}, expected 130 (as after SIGHUP): $err"
[[ "$err" == *"harness-cli: error: cannot write standard output: Broken pipe"* ]] || fail "the lost output was not named: $err"
[[ $(cat "$tmp/first") == *"run_started"* ]] || fail "head did not get the first line: $(cat "$tmp/first")"
if pgrep -f "script-worker.*$p" >/dev/null; then fail "workers left running after the run ended"; fi
grep -q '^run: "interrupted"' "$spec/STATUS.md" || fail "STATUS.md does not say interrupted: $(head -3 "$spec/STATUS.md")"
[[ $(ls out | wc -l) -eq 2 ]] || fail "expected the 2 running plans to finish and no new one to start: $(ls out)"
[[ $(git log -1 --format=%s) == *"orchestrate: interrupted" ]] || fail "no interrupted write-back: $(git log -3 --oneline)"

echo "OK"
