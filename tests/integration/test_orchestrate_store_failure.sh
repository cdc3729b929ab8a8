#!/usr/bin/env bash
# A store that cannot record what the run must remember (here: a plan's block holds the
# database's write lock past the store's 10 s wait, "database is locked"; a full disk says
# "database or disk is full") makes the run exit 1 with the reason at its end, as a document it
# could not write does: it used to say `complete`, exit 0. The next run says the sessions whose
# end went unrecorded ended while that run's store failed (it said "while no orchestrator watched").
set -euo pipefail
cli=${HARNESS_CLI:?}
src=${HARNESS_SOURCE_DIR:?}
source "$src/tests/integration/lib/project.sh"
project_tmp
spec=docs/specs/SPC-001-store
p=$tmp/run
file_plans_project "$p" "$spec" "Store" 01-01 01-02
# 01-01 takes the store's write lock for 13 s; 01-02 ends meanwhile, and its end must be recorded.
plan_runs "$p/$spec" 01-01 "python3 -c 'import sqlite3, time; c = sqlite3.connect(\".orchestration/harness.db\", isolation_level=None); c.execute(\"BEGIN EXCLUSIVE\"); time.sleep(13)'; mkdir -p out && echo 01-01 > out/01-01.txt"
plan_runs "$p/$spec" 01-02 "sleep 1; mkdir -p out && echo 01-02 > out/01-02.txt"
(cd "$p" && git add -A && git commit -qm plans)
set +e
(cd "$p" && "$cli" orchestrate "$spec" --worker script --yes --slots 2 --json >"$tmp/events.jsonl" 2>"$tmp/err")
rc=$?
set -e
python3 - "$tmp/events.jsonl" "$rc" <<'PY'
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
rc = int(sys.argv[2])
end = ev[-1]
assert end["event"] == "run_finished", end
notes = [e.get("message", "") for e in ev if e["event"] == "note"]
assert any(n.startswith("store: ") and "locked" in n for n in notes), notes
assert end["exit_code"] == 1 and rc == 1, (rc, end)
db = [u for u in end.get("unwritten", []) if u["file"] == ".orchestration/harness.db"]
assert db and "locked" in db[0]["error"], end
assert "harness.db" in end["message"], end["message"]
PY
# The next run: a session whose end went unrecorded ended while the earlier run watched; it says
# that run's store failed, not that no orchestrator watched. Here the store recorded the end once
# the lock was gone; an end it never recorded (a lock held longer, a full disk) is left as such.
grep -q "locked" "$p/.orchestration/store-failed.txt" || fail "the run did not leave its store's error for the next one"
python3 - "$p/.orchestration/harness.db" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1], isolation_level=None)
n = c.execute("UPDATE sessions SET status = 'running', ended_at = NULL, end_reason = NULL WHERE task_id = 'execute:01-02'").rowcount
assert n == 1, n
PY
set +e
(cd "$p" && "$cli" orchestrate "$spec" --worker script --yes --slots 2 --json >"$tmp/events2.jsonl" 2>"$tmp/err2")
set -e
python3 - "$tmp/events2.jsonl" <<'PY'
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
notes = [e.get("message", "") for e in ev if e["event"] == "note"]
assert not any("no orchestrator watched" in n for n in notes), notes
assert any("of an earlier run ended unrecorded: the earlier run's store failed (store: " in n and "locked" in n for n in notes), notes
PY
[[ ! -e "$p/.orchestration/store-failed.txt" ]] || fail "the store's error was said and stays for the run after"
echo "orchestrate store failure: all checks passed"
