#!/usr/bin/env bash
# A disk that fills during a run (review II F9): the attempt that fails on it is the disk's fault,
# not the task's. The task waits for space without spending an attempt (--attempts 1 would block
# it otherwise), the run says what it waits for, and once space is freed the task runs again and
# the spec completes. What the store could not record meanwhile makes the run exit 1 asking for
# another run, which then ends 0. The project lives on a real 16 MB tmpfs filled with dd: root
# only (CI runs as root; elsewhere the test says it was skipped).
set -euo pipefail
cli=${HARNESS_CLI:?}
src=${HARNESS_SOURCE_DIR:?}
source "$src/tests/integration/lib/project.sh"
project_tmp
mnt=$tmp/disk
mkdir -p "$mnt"
if ! mount -t tmpfs -o size=16m tmpfs "$mnt" 2>"$tmp/mount.err"; then
  echo "orchestrate disk full: SKIPPED, cannot mount a tmpfs here: $(cat "$tmp/mount.err")"
  exit 0
fi
trap '[[ -z "${orch:-}" ]] || kill -KILL "$orch" 2>/dev/null || true; pkill -KILL -f "$tmp" 2>/dev/null || true; umount -l "$mnt" 2>/dev/null || true; rm -rf "$tmp"' EXIT
spec=docs/specs/SPC-001-disk
p=$mnt/run
file_plans_project "$p" "$spec" "Disk" 01-01 01-02
# 01-01 writes its file only once the disk is full ($tmp is not on it).
plan_runs "$p/$spec" 01-01 "while [ ! -f $tmp/go ]; do sleep 0.1; done; mkdir -p out && echo 01-01 > out/01-01.txt"
(cd "$p" && git add -A && git commit -qm plans)
(cd "$p" && exec "$cli" orchestrate "$spec" --worker script --yes --attempts 1 --json >"$tmp/events.jsonl" 2>"$tmp/err") &
orch=$!
wait_for() { # PATTERN WHAT
  for _ in $(seq 300); do grep -q "$1" "$tmp/events.jsonl" 2>/dev/null && return 0; sleep 0.1; done
  fail "no $2 in 30 s: $(cat "$tmp/events.jsonl" "$tmp/err")"
}
wait_for '"message":"Task 1/1: write"' "progress of execute:01-01"
dd if=/dev/zero of="$mnt/filler" bs=64k 2>/dev/null || true
touch "$tmp/go"
wait_for '"message":"waiting for disk space: ' "note that the run waits for space"
sleep 2.5 # one look more: the task still waits, nothing is retried on a full disk
rm -f "$mnt/filler"
rc=0
wait "$orch" || rc=$?
orch=
python3 - "$tmp/events.jsonl" "$rc" "$p" <<'PY'
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
rc, root = int(sys.argv[2]), sys.argv[3]
end = ev[-1]
assert end["event"] == "run_finished", end
x = [e for e in ev if e.get("task") == "execute:01-01" and e["event"] in ("task_started", "task_failed", "task_succeeded", "task_blocked")]
kinds = [e["event"] for e in x]
assert kinds == ["task_started", "task_failed", "task_started", "task_succeeded"], kinds
failed = x[1]["message"]
assert "No space left on device" in failed and f"the file system holding {root} has " in failed, failed
assert "the task runs again once it has 1024 KB and 64 files free (costs no attempt)" in failed, failed
assert x[2]["attempt"] == 1, x[2]  # the retry is still the first attempt
notes = [e["message"] for e in ev if e["event"] == "note" and e["message"].startswith("waiting for disk space")]
assert len(notes) == 1, notes  # said once while the disk stayed full
assert end["outcome"] == "complete", end
# The store missed what happened while the disk was full: the run asks for one more.
assert rc == end["exit_code"], (rc, end)
assert rc == 0 or (rc == 1 and any(u["file"] == ".orchestration/harness.db" for u in end.get("unwritten", []))), end
PY
grep -q "^01-01$" "$p/out/01-01.txt" || fail "01-01's file was not written"
[[ $(git -C "$p" log --format=%s | grep -c "feat(01-01)") == 1 ]] || fail "01-01 was not committed once"
(cd "$p" && "$cli" orchestrate "$spec" --worker script --yes --json >"$tmp/events2.jsonl" 2>"$tmp/err2") ||
  fail "the run after space was freed exited $?: $(tail -n 3 "$tmp/err2")"
grep -q "2/2 plans verified" "$p/$spec/STATUS.md" || fail "STATUS.md: $(head -20 "$p/$spec/STATUS.md")"

# A verification whose check fails on a full disk (here the check fills it) is the disk's fault
# too: it runs again once there is space, and the plan is not executed again (--attempts 1 would
# block it) nor its phase sent to gap planning.
core_plan "$p/$spec" 01-03
python3 - "$p/$spec/planning/plans/01-core/01-03-PLAN.md" "$tmp" "$mnt" <<'PY'
import sys
path, tmp, mnt = sys.argv[1:]
text = open(path).read()
check = f"""  - id: fills-disk
    type: command_output
    command: 'test -f {tmp}/freed || {{ dd if=/dev/zero of={mnt}/filler2 bs=64k 2>/dev/null; exit 1; }}'
    shell: true
---"""
open(path, "w").write(text.replace("---\n# 01-03", check + "\n# 01-03", 1))
PY
(cd "$p" && git add -A && git commit -qm "plan 01-03")
(cd "$p" && exec "$cli" orchestrate "$spec" --worker script --yes --attempts 1 --json >"$tmp/events3.jsonl" 2>"$tmp/err3") &
orch=$!
for _ in $(seq 300); do grep -q '"message":"waiting for disk space: ' "$tmp/events3.jsonl" 2>/dev/null && break; sleep 0.1; done
grep -q '"message":"waiting for disk space: ' "$tmp/events3.jsonl" || fail "no wait for space after a check filled the disk: $(cat "$tmp/events3.jsonl" "$tmp/err3")"
touch "$tmp/freed"
rm -f "$mnt/filler2"
rc=0
wait "$orch" || rc=$?
orch=
python3 - "$tmp/events3.jsonl" "$rc" <<'PY'
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
rc = int(sys.argv[2])
end = ev[-1]
assert end["event"] == "run_finished" and end["outcome"] == "complete", end
starts = [e["task"] for e in ev if e["event"] == "task_started"]
assert starts.count("execute:01-03") == 1, starts  # not executed again for a check the disk failed
assert starts.count("verify-plan:01-03") == 2, starts
assert not any(t.startswith("plan-gaps") for t in starts), starts
failed = [e["message"] for e in ev if e["event"] == "task_failed" and e["task"] == "verify-plan:01-03"]
assert len(failed) == 1 and "taken for the disk's fault" in failed[0], failed
assert rc == end["exit_code"] and rc in (0, 1), (rc, end)
PY

# A task that fills the disk itself waits, runs and fills it again each time space is freed: after
# three such failures in a row the next one counts as an attempt, and the run ends (it waited
# forever, review OO F2).
core_plan "$p/$spec" 01-04 '[]' "['out/01-04*']" '' "mkdir -p out && dd if=/dev/zero of=out/01-04.big bs=64k 2>/dev/null; exit 1"
(cd "$p" && git add -A && git commit -qm "plan 01-04")
(cd "$p" && exec "$cli" orchestrate "$spec" --worker script --yes --attempts 1 --json >"$tmp/events4.jsonl" 2>"$tmp/err4") &
orch=$!
for _ in $(seq 600); do # a person frees the space whenever the run says it waits
  kill -0 "$orch" 2>/dev/null || break
  if [[ -e $p/out/01-04.big ]] && [[ $(grep -c '"message":"waiting for disk space: ' "$tmp/events4.jsonl") -gt $(cat "$tmp/freed4" 2>/dev/null || echo 0) ]]; then
    grep -c '"message":"waiting for disk space: ' "$tmp/events4.jsonl" >"$tmp/freed4"
    rm -f "$p/out/01-04.big"
  fi
  sleep 0.1
done
rc=0
wait "$orch" || rc=$?
orch=
rm -f "$p/out/01-04.big"
python3 - "$tmp/events4.jsonl" "$rc" <<'PY'
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
# The wait names the task's own file that fills the disk (review QQ F4).
waits = [e["message"] for e in ev if e["event"] == "note" and e["message"].startswith("waiting for disk space: ")]
assert waits and all("the waiting tasks' plans left uncommitted files: out/01-04.big (" in w for w in waits), waits
end = ev[-1]
assert end["event"] == "run_finished" and end["outcome"] == "blocked" and int(sys.argv[2]) == 1, end
starts = [e for e in ev if e["event"] == "task_started" and e["task"] == "execute:01-04"]
assert len(starts) == 4 and all(e["attempt"] == 1 for e in starts), starts
notes = [e["message"] for e in ev if e["event"] == "note" and "failed with the disk full 4 times in a row" in e["message"]]
assert len(notes) == 1, [e for e in ev if e["event"] == "note"]
PY
# Nobody frees the disk: after timeouts.disk_full the run stops (outcome disk_full, exit 1) instead
# of waiting forever, the waiting task keeps its attempts, and the next run with space resumes it
# (an unattended run waited forever, review QQ F4).
p5=$mnt/run5
file_plans_project "$p5" "$spec" "Disk" 01-01
plan_runs "$p5/$spec" 01-01 "if [ ! -f $tmp/room5 ]; then mkdir -p out && dd if=/dev/zero of=out/01-01.big bs=64k 2>/dev/null; exit 1; fi; mkdir -p out && echo 01-01 > out/01-01.txt"
(cd "$p5" && git add -A && git commit -qm "plan fills the disk")
printf 'timeouts: {disk_full: 3}\n' >"$p5/.orchestration/config.yaml"
rc=0
(cd "$p5" && timeout 120 "$cli" orchestrate "$spec" --worker script --yes --attempts 1 --json >"$tmp/events5.jsonl" 2>"$tmp/err5") || rc=$?
rm -f "$p5/out/01-01.big"
python3 - "$tmp/events5.jsonl" "$rc" <<'PY'
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
end = ev[-1]
assert end["event"] == "run_finished" and end["outcome"] == "disk_full", end
assert int(sys.argv[2]) == 1 and end["exit_code"] == 1, (sys.argv[2], end)
assert "free some space, then harness-cli orchestrate docs/specs/SPC-001-disk resumes it" in end["message"], end
notes = [e["message"] for e in ev if e["event"] == "note"]
assert any("for at most 3 s: timeouts.disk_full" in n for n in notes if n.startswith("waiting for disk space")), notes
assert any(n.startswith("the disk stayed too full for 3 s (timeouts.disk_full): stopping the run; 1 task waited "
                        "for space and keeps its attempts") for n in notes), notes
x = [e["event"] for e in ev if e.get("task") == "execute:01-01" and e["event"].startswith("task_")]
assert x == ["task_started", "task_failed"], x
PY
touch "$tmp/room5"
for run in 6 7; do # the first run with space may end 1 to record what the full disk kept it from
  rc=0
  (cd "$p5" && "$cli" orchestrate "$spec" --worker script --yes --attempts 1 --json >"$tmp/events$run.jsonl" 2>"$tmp/err$run") || rc=$?
  [[ $rc == 0 ]] && break
done
[[ $rc == 0 ]] || fail "the runs after space was freed exited $rc: $(tail -n 3 "$tmp/err7")"
python3 - "$tmp/events6.jsonl" <<'PY'
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
starts = [e for e in ev if e["event"] == "task_started" and e["task"] == "execute:01-01"]
assert len(starts) == 1 and starts[0]["attempt"] == 1, starts  # its attempt was not spent on the disk
assert any(e["event"] == "task_succeeded" and e["task"] == "execute:01-01" for e in ev), ev
PY
grep -q "1/1 plans verified" "$p5/$spec/STATUS.md" || fail "STATUS.md after the disk-full stop: $(head -20 "$p5/$spec/STATUS.md")"

echo "orchestrate disk full: all checks passed"
