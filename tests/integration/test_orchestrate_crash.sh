#!/usr/bin/env bash
# Crash-proof resume: a 30-plan `script` run whose orchestrator is SIGKILLed at 30 random moments
# and restarted each time must end exactly like an uninterrupted run of the same spec: every
# task applied once (each task appends a line, so a repeat shows), every worker report that
# reached a file in the store, and the spec directory's documents equal after the values that
# differ between any two runs (commit hashes, timings, session ids) are masked.
set -euo pipefail
cli=${HARNESS_CLI:?}
src=${HARNESS_SOURCE_DIR:?}
source "$src/tests/integration/lib/project.sh"
project_tmp
source "$src/tests/integration/lib/gen30.sh"
spec=docs/specs/SPC-030-crash

# The reference: one uninterrupted run.
gen30 "$tmp/calm"
(cd "$tmp/calm" && "$cli" orchestrate "$spec" --worker script --slots 2 --yes >"$tmp/calm.log" 2>&1) || { tail "$tmp/calm.log"; fail "uninterrupted run"; }

# The same spec, killed 30 times.
p=$tmp/crash
gen30 "$p"
kills=0
for i in $(seq 1 90); do
  [[ $kills -ge 30 ]] && break
  (cd "$p" && exec "$cli" orchestrate "$spec" --worker script --slots 2 --yes >>"$tmp/crash.log" 2>&1) &
  pid=$!
  sleep "0.$((RANDOM % 18 + 3))" # 0.03 s to 0.20 s into each restart
  kill -KILL $pid 2>/dev/null && kills=$((kills + 1))
  wait $pid 2>/dev/null || true
done
echo "orchestrator killed $kills times"
[[ $kills -ge 30 ]] || fail "only $kills kills landed before the run finished"
rc=0
(cd "$p" && "$cli" orchestrate "$spec" --worker script --slots 2 --yes >"$tmp/final.log" 2>&1) || rc=$?
cat "$tmp/final.log" >>"$tmp/crash.log"
[[ $rc -eq 0 ]] || { cat "$tmp/final.log" >&2; fail "final resume exited $rc"; }

# Side effects: every file as in the calm run, every task committed exactly once.
diff -r "$tmp/calm/out" "$p/out" || fail "the files the plans wrote differ from the uninterrupted run"
dups=$(cd "$p" && git log --format=%B | grep '^Plan: .*, Task:' | sort | uniq -d)
[[ -z "$dups" ]] || fail "tasks committed twice: $dups"
[[ $(cd "$p" && git log --format=%B | grep -c '^Plan: .*, Task:') -eq 60 ]] || fail "expected 60 task commits"

# Documents: equal once run-specific values are masked.
normalize() { # spec dir -> normalized text of every document the run wrote
  (cd "$1" && find . -path ./planning -prune -o -type f -print | sort | while read -r f; do
    echo "== $f"
    if [[ $f == */commits.log ]]; then
      awk '{print $2}' "$f" | sort | uniq -c # plans and how many commits each, order and sessions aside
    else
      sed -E -e 's/[0-9a-f]{40}/<hash>/g' -e 's/^(duration_seconds|verified_at): .*/\1: <t>/' \
             -e 's/\| [0-9]+\.[0-9]+ \|/| <s> |/g' "$f"
    fi
  done)
}
normalize "$tmp/calm/$spec" >"$tmp/calm.docs"
normalize "$p/$spec" >"$tmp/crash.docs"
diff "$tmp/calm.docs" "$tmp/crash.docs" || fail "the documents differ from the uninterrupted run"

# No worker report lost: every result a worker left in its session directory is in the store.
cd "$p"
for r in .orchestration/sessions/*/result.json; do
  sid=$(basename "$(dirname "$r")")
  n=$(sqlite3 .orchestration/harness.db "select count(*) from worker_messages where session_id='$sid' and message_type in ('task_completed','task_failed')")
  [[ $n -ge 1 ]] || fail "the result of session $sid never reached the store"
done
echo "crash test: $kills kills, final state equals the uninterrupted run"
