#!/usr/bin/env bash
# A worker that finishes after its orchestrator was killed (script worker, real git): the next
# run says the session ended while nobody watched and that it reported its task done, not that it
# failed; it takes the session's commits and completes without running the task again.
set -euo pipefail
cli=${HARNESS_CLI:?}
src=${HARNESS_SOURCE_DIR:?}
source "$src/tests/integration/lib/project.sh"
project_tmp
spec=docs/specs/SPC-001-ended
p=$tmp/p
file_plans_project "$p" "$spec" "Ended" 01-01
s=$p/$spec
sed -i 's|^mkdir -p out \&\& echo 01-01 > out/01-01.txt$|sleep 1 \&\& mkdir -p out \&\& echo 01-01 >> out/01-01.txt|' \
  "$s/planning/plans/01-core/01-01-PLAN.md"
grep -q '^sleep 1' "$s/planning/plans/01-core/01-01-PLAN.md" || fail "the plan was not edited"
(cd "$p" && git commit -qam "01-01 takes a second")

(cd "$p" && exec "$cli" orchestrate "$spec" --worker script >"$tmp/killed.out" 2>&1 </dev/null) &
orch=$!
for _ in $(seq 1 600); do
  compgen -G "$p/.orchestration/sessions/execute-01-01-*/status.json" >/dev/null && break
  sleep 0.05
done
kill -KILL $orch
wait $orch 2>/dev/null || true
result=$(compgen -G "$p/.orchestration/sessions/execute-01-01-*" | head -1)/result.json
for _ in $(seq 1 600); do
  grep -q '"completed"' "$result" 2>/dev/null && break
  sleep 0.05
done
grep -q '"completed"' "$result" || fail "the worker did not finish: $(cat "$tmp/killed.out")"
sleep 0.5 # the worker process exits after writing its result

rc=0
out=$(cd "$p" && timeout 120 "$cli" orchestrate "$spec" --worker script 2>&1 </dev/null) || rc=$?
[[ $rc -eq 0 ]] || fail "the next run should complete: rc $rc: $out"
[[ $out == *"1 session of an earlier run ended while no orchestrator watched: it reported its task done; its commits stand"* ]] ||
  fail "the ended session is not described by what it did: $out"
[[ $out != *"marked failed"* ]] || fail "a finished session is called failed: $out"
[[ $out != *"task_started"*"execute:01-01"* ]] || fail "the finished task ran again: $out"
[[ $(cat "$p/out/01-01.txt") == "01-01" ]] || fail "the task ran twice: $(cat "$p/out/01-01.txt")"
echo PASS
