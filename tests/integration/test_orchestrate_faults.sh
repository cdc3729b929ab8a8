#!/usr/bin/env bash
# Worker faults under `harness-cli orchestrate`: a worker that crashes, one that hangs without a
# word (idle timeout), one that prints binary garbage, one that claims task_completed without its
# artifacts, one whose commit carries another spec's Spec trailer, one that exits non-zero with
# only a line on stderr, two whose first SUMMARY validate would reject (`status: done`, another
# plan's plan_id), a script worker whose shell block fails, and an agent (claude adapter)
# whose stdout is not stream-json although it exits 0; and a plan that commits on its own
# without trailers (the run names that commit); and git's index lock left by a worker stopped
# mid-commit, after an idle timeout and after a killed run (removed once no git works there); and
# a worker program that cannot be executed at all (its sessions recorded as failed at once).
# Each must be detected, retried per policy (2 attempts), and what stays blocked must show in
# STATUS.md and `harness-cli status`, with the worker's own reason and its log, not just an exit
# code. The process group of a killed worker must be gone.
set -euo pipefail
cli=${HARNESS_CLI:?}
src=${HARNESS_SOURCE_DIR:?}
source "$src/tests/integration/lib/project.sh"
tmp=$(mktemp -d)
export FAULT_SLEEP=$((900000 + RANDOM)) # a unique argument to find orphans by
trap 'pkill -KILL -f "sleep $FAULT_SLEEP" 2>/dev/null || true; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com
spec=docs/specs/SPC-007-faults

new_project() { # dir plans...
  local p=$1; shift
  file_plans_project "$p" "$spec" Faults "$@"
  printf 'timeouts: {idle: 3, stop_grace: 1}\nmax_attempts: 2\n' >"$p/.orchestration/config.yaml"
}

# 1. command workers: crash, hang, garbage, liar.
p=$tmp/cmd
export FAULT_DIR=$tmp/attempts
mkdir -p "$FAULT_DIR"
new_project "$p" 01-01 01-02 01-03 01-04 01-05 01-06 01-07 01-08
set +e
(cd "$p" && "$cli" orchestrate "$spec" --worker command --command "bash $src/tests/integration/faults/fault_worker.sh {harness_cli}" \
   --yes --json >"$tmp/events.jsonl" 2>"$tmp/stderr.log")
rc=$?
set -e
[[ $rc -eq 1 ]] || { cat "$tmp/stderr.log"; fail "a run with a task blocked should exit 1, got $rc"; }
python3 - "$tmp/events.jsonl" <<'PY'
import json, re, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
def of(kind, task): return [e for e in ev if e["event"] == kind and e.get("task") == task]
assert ev[-1]["event"] == "run_finished" and ev[-1]["message"].startswith("blocked"), ev[-1]
# crash: one failed attempt naming the signal, then success
f = of("task_failed", "execute:01-01")
assert len(f) == 1 and "signal" in f[0]["message"].lower(), f
assert of("task_succeeded", "execute:01-01"), "crash not retried"
# hang: stopped for silence, then success
f = of("task_failed", "execute:01-02")
assert len(f) == 1 and f[0]["message"].startswith("idle (no output and no message) (log: .orchestration/sessions/execute-01-02-a1-"), f
assert f[0]["message"].endswith("/output.log)"), f
assert of("task_succeeded", "execute:01-02"), "hang not retried"
# garbage on stdout changes nothing for a command worker
assert not of("task_failed", "execute:01-03") and of("task_succeeded", "execute:01-03")
# the liar: both attempts fail on missing artifacts, then blocked
f = of("task_failed", "execute:01-04")
assert len(f) == 2 and all("SUMMARY" in e["message"] or "commit" in e["message"] for e in f), f
assert of("task_blocked", "execute:01-04")
# the stray: its commit carries 'Plan: 01-05' but another spec's Spec trailer
f = of("task_failed", "execute:01-05")
assert len(f) == 2 and all("Spec: SPC-007-faults" in e["message"] for e in f), f
assert all("(they carry 'Spec: SPC-999-elsewhere')" in e["message"] for e in f), f
assert of("task_blocked", "execute:01-05")
# the mute one: exits 4 without a report; what it printed last is the reason, with its log
f = of("task_failed", "execute:01-06")
assert len(f) == 2, f
for n, e in enumerate(f, 1):
    m = re.fullmatch(r"exited 4: its output ends: fault worker: cannot reach the model API "
                     r"\(log: \.orchestration/sessions/execute-01-06-a(\d)-\w+/output\.log\)", e["message"])
    assert m and m.group(1) == str(n), e
# the sloppy one: its `status: done` fails the attempt with validate's diagnostic; the retry fixes it
f = of("task_failed", "execute:01-07")
assert len(f) == 1 and f[0]["message"].startswith(
    "task reported done but its SUMMARY does not validate: execution/phases/01-core/01-07-SUMMARY.md:3:9: "
    "error[H017]: status 'done' is not one of complete, partial, failed (log: "), f
assert of("task_succeeded", "execute:01-07"), "the sloppy SUMMARY was not retried"
# the misnamed one: a SUMMARY read as 01-08's that says it is 01-01's; the retry (the script
# adapter, its task committed already) writes it anew rather than keep it
f = of("task_failed", "execute:01-08")
assert len(f) == 1 and "01-08-SUMMARY.md:2:10: error[H006]: plan_id '01-01' does not match the file name" in f[0]["message"], f
assert of("task_succeeded", "execute:01-08"), "the misnamed SUMMARY was not retried"
PY
[[ $(cat "$FAULT_DIR/01-04") -eq 2 ]] || fail "the liar should have had exactly 2 attempts"
out=$(cd "$p" && "$cli" validate "$spec" 2>&1) || fail "the SUMMARYs the retries left do not validate: $out"
if pgrep -f "sleep $FAULT_SLEEP" >/dev/null; then fail "the hung worker's child survived its process group"; fi
grep -q 'task: "execute:01-04"' "$p/$spec/STATUS.md" || fail "STATUS.md does not list the blocked task: $(head -8 "$p/$spec/STATUS.md")"
out=$(cd "$p" && "$cli" status "$spec")
[[ "$out" == *"execute:01-04 blocked by the last run"* && "$out" == *"more tasks wait on these"* ]] || fail "status does not surface the blocked task: $out"
[[ "$out" == *"execute:01-06 blocked by the last run: crashed: exited 4: its output ends: fault worker: cannot reach the model API (log: .orchestration/sessions/execute-01-06-a2-"*"/output.log) (after 2 attempts)"* ]] ||
  fail "status does not say why 01-06 failed: $out"
log=$(ls "$p"/.orchestration/sessions/execute-01-03-a1-*/output.log)
[[ $(stat -c %s "$log") -gt 200000 ]] || fail "garbage output not logged"
# The other three plans' side effects happened exactly once.
for id in 01-01 01-02 01-03; do
  [[ $(cd "$p" && git log --oneline --grep "Plan: $id, Task: 1/1" | wc -l) -eq 1 ]] || fail "$id task committed more or less than once"
done

# 1b. A plan written for an agent (no shell block) given to the script worker: not "done" with
#     nothing run, but blocked at once with why (one attempt: nothing changes for a second).
p=$tmp/no-blocks
new_project "$p" 01-01
python3 - "$p/$spec/planning/plans/01-core/01-01-PLAN.md" <<'PY'
import re, sys
p = sys.argv[1]
s = open(p).read()
open(p, "w").write(re.sub(r"```(ba)?sh\n.*?```\n", "Write out/01-01.txt with the plan's id.\n", s, flags=re.S))
PY
(cd "$p" && git commit -qam 'a plan for an agent')
rc=0; out=$(cd "$p" && timeout 60 "$cli" orchestrate "$spec" --worker script --yes 2>&1) || rc=$?
[[ $rc -eq 1 && "$out" == *"plan 01-01 has no \`\`\`sh or \`\`\`bash block: the script worker runs only those"*"(not retried: a retry cannot help)"* ]] ||
  fail "a plan without shell blocks under the script worker (exit $rc): $out"
[[ $(grep -c "task_started .*execute:01-01" <<<"$out") -eq 1 && ! -e "$p/$spec/execution/phases/01-core/01-01-SUMMARY.md" ]] ||
  fail "a plan without shell blocks: tried again, or a SUMMARY written: $out"

# 2. A script worker whose shell block fails: its task_failed report (result.json) is the reason.
p=$tmp/script
new_project "$p" 01-01
sed -i 's|^mkdir -p out && echo 01-01 > out/01-01.txt$|echo "disk full, says the test" >\&2; exit 3|' "$p/$spec/planning/plans/01-core/01-01-PLAN.md"
(cd "$p" && git commit -qam 'a block that fails')
set +e
(cd "$p" && "$cli" orchestrate "$spec" --worker script --yes >"$tmp/script.out" 2>"$tmp/script.err")
rc=$?
set -e
[[ $rc -eq 1 ]] || { cat "$tmp/script.err"; fail "a failing shell block should leave the run blocked (exit 1), got $rc"; }
out=$(cd "$p" && "$cli" status "$spec")
[[ "$out" == *"execute:01-01 blocked by the last run: crashed: exited 1: the worker reported task_failed: Task 1/1: write failed: a shell block exited 3 (log: .orchestration/sessions/execute-01-01-a2-"*"/output.log) (after 2 attempts)"* ]] ||
  fail "status does not give the script worker's reason: $out"
log=${out#*"(log: "}
log=${log%%")"*}
[[ $(cat "$p/$log") == *"disk full, says the test"* ]] || fail "the log named does not hold the block's output: $p/$log"

# 3. An agent whose stdout is not stream-json fails its attempt even with exit code 0.
p=$tmp/agent
new_project "$p" 01-01
cat >"$tmp/not-claude" <<'SH'
#!/bin/sh
echo "Sure! I did everything you asked."
exit 0
SH
chmod +x "$tmp/not-claude"
printf 'workers:\n  claude: {binary: %s}\n' "$tmp/not-claude" >>"$p/.orchestration/config.yaml"
set +e
(cd "$p" && "$cli" orchestrate "$spec" --worker claude --yes --json >"$tmp/agent.jsonl" 2>"$tmp/agent.err")
rc=$?
set -e
[[ $rc -eq 1 ]] || { cat "$tmp/agent.err"; fail "a lying agent should leave the run blocked (exit 1), got $rc"; }
python3 - "$tmp/agent.jsonl" <<'PY'
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
f = [e for e in ev if e["event"] == "task_failed" and e.get("task") == "execute:01-01"]
assert len(f) == 2, f
assert all("result" in e["message"] or "stream" in e["message"] for e in f), f
PY
[[ ! -e "$p/out/01-01.txt" ]] || fail "nothing should have been written"
# 4. A plan whose block commits on its own, without trailers, and writes a file no plan declares:
# the run cannot undo the commit, but it names it with what it changed.
p=$tmp/own-commit
new_project "$p" 01-01
sed -i 's|^mkdir -p out && echo 01-01 > out/01-01.txt$|mkdir -p out \&\& echo 01-01 > out/01-01.txt \&\& echo junk > junk.txt \&\& git add -A \&\& git commit -qm "my own commit"|' \
  "$p/$spec/planning/plans/01-core/01-01-PLAN.md"
(cd "$p" && git commit -qam 'a block that commits itself')
out=$(cd "$p" && "$cli" orchestrate "$spec" --worker script --yes 2>&1) || fail "own commit: the run failed: $out"
[[ "$out" == *"note"*"commit "*" 'my own commit' was made during the run without Plan:/Spec: trailers"*"; it changed junk.txt, out/01-01.txt (01-01's); it changed files 01-01 declare: work their task commits may lack"* ]] ||
  fail "the commit without trailers was not named with the plan whose work it took: $out"
[[ $(grep -c "without Plan:/Spec: trailers" <<<"$out") -eq 1 ]] || fail "harness's own commits were named too: $out"

# 5. Git's index lock left behind by a worker stopped mid-commit (here the plan's block makes it,
#    as a git killed while it held the index would): every later commit would fail on it. After
#    stopping a worker harness removes such a lock once no git process works in the repository.
#    a) a worker stopped for silence (idle timeout), retried;
p=$tmp/lock-idle
new_project "$p" 01-01
sed -i "s|^mkdir -p out && echo 01-01 > out/01-01.txt\$|if [ ! -e $tmp/lock-idle.once ]; then touch $tmp/lock-idle.once .git/index.lock; sleep $FAULT_SLEEP; fi; mkdir -p out \&\& echo 01-01 > out/01-01.txt|" \
  "$p/$spec/planning/plans/01-core/01-01-PLAN.md"
(cd "$p" && git commit -qam 'a block that hangs once, holding the index lock')
out=$(cd "$p" && timeout 60 "$cli" orchestrate "$spec" --worker script --yes 2>&1) || fail "lock after a stop: the run failed: $out"
[[ "$out" == *"removed .git/index.lock: a stopped worker's git left it, and no git process works in this repository"* ]] ||
  fail "the lock left by a stopped worker was not removed: $out"
[[ ! -e $p/.git/index.lock && -f $p/out/01-01.txt ]] || fail "lock after a stop: the retry did not commit"
#    b) a run killed with its worker in the middle: the next run stops that worker, then removes the lock.
p=$tmp/lock-resume
new_project "$p" 01-01
sed -i "s|^mkdir -p out && echo 01-01 > out/01-01.txt\$|if [ ! -e $tmp/lock-resume.once ]; then touch $tmp/lock-resume.once .git/index.lock; sleep $FAULT_SLEEP; fi; mkdir -p out \&\& echo 01-01 > out/01-01.txt|" \
  "$p/$spec/planning/plans/01-core/01-01-PLAN.md"
(cd "$p" && git commit -qam 'a block that hangs once, holding the index lock')
(cd "$p" && exec "$cli" orchestrate "$spec" --worker script --yes >"$tmp/lock-resume.first" 2>&1) &
first=$!
for _ in $(seq 1 100); do [[ -e $p/.git/index.lock ]] && break; sleep 0.1; done
[[ -e $p/.git/index.lock ]] || fail "lock after kill -9: the block never ran: $(cat "$tmp/lock-resume.first")"
kill -KILL $first; wait $first 2>/dev/null || true
out=$(cd "$p" && timeout 60 "$cli" orchestrate "$spec" --worker script --yes 2>&1) || fail "lock after kill -9: the run failed: $out"
[[ "$out" == *"stopped a worker left running by an earlier run"*"removed .git/index.lock: a stopped worker's git left it"* ]] ||
  fail "lock after kill -9 was not removed: $out"
[[ -f $p/out/01-01.txt && -z $(cd "$p" && git status --porcelain) ]] || fail "lock after kill -9: the plan did not finish"
#    b2) the same stop while another git works in the repository (here a stand-in named git,
#       living 5 s past the stop): its lock cannot be told from that git's until it ends. The run
#       looks again until then; one look only, the retry's commit failed on the lock (10 s).
p=$tmp/lock-busy
new_project "$p" 01-01
mkdir -p "$tmp/fakegit" && cp /bin/sleep "$tmp/fakegit/git"
sed -i "s|^mkdir -p out && echo 01-01 > out/01-01.txt\$|if [ ! -e $tmp/lock-busy.once ]; then touch $tmp/lock-busy.once; setsid $tmp/fakegit/git 8 </dev/null >/dev/null 2>\&1 \& touch .git/index.lock; sleep $FAULT_SLEEP; fi; mkdir -p out \&\& echo 01-01 > out/01-01.txt|" \
  "$p/$spec/planning/plans/01-core/01-01-PLAN.md"
(cd "$p" && git commit -qam 'a block that hangs once, holding the index lock beside a working git')
out=$(cd "$p" && timeout 90 "$cli" orchestrate "$spec" --worker script --yes 2>&1) || fail "lock beside a working git: the run failed: $out"
[[ "$out" == *"removed .git/index.lock: a stopped worker's git left it"* && -f $p/out/01-01.txt ]] ||
  fail "lock beside a working git: not removed once that git ended: $out"
#    c) a lock no run of harness left (a crashed editor's commit): the preflight refuses at once,
#       exit 2, nothing started, and says how to remove it; harness does not remove it itself.
p=$tmp/lock-stale
new_project "$p" 01-01
: >"$p/.git/index.lock"
rc=0; out=$(cd "$p" && timeout 60 "$cli" orchestrate "$spec" --worker script --yes 2>&1) || rc=$?
[[ $rc -eq 2 && "$out" == *".git/index.lock exists and no git process works in this repository"*"rm .git/index.lock"* ]] ||
  fail "a stale lock was not refused up front (exit $rc): $out"
[[ -e $p/.git/index.lock && ! -e $p/.orchestration/harness.db && ! -e $p/out ]] || fail "a stale lock: the run started anyway"
#    d) the same lock after a run that stopped workers and was killed before it looked for their
#       locks (its mark .orchestration/locks-unchecked says so; the crash test met it): the lock
#       is taken for that worker's and removed, and the mark goes.
mkdir -p "$p/.orchestration" && echo "workers stopped" >"$p/.orchestration/locks-unchecked"
out=$(cd "$p" && timeout 60 "$cli" orchestrate "$spec" --worker script --yes 2>&1) || fail "a lock after a killed stop: the run failed: $out"
[[ "$out" == *"removed .git/index.lock: a stopped worker's git left it"* ]] || fail "a lock after a killed stop was not removed: $out"
[[ ! -e $p/.git/index.lock && ! -e $p/.orchestration/locks-unchecked && -f $p/out/01-01.txt ]] ||
  fail "a lock after a killed stop: the lock or the mark is left, or the plan did not run"
#    e) the same after a run killed while its worker committed the SUMMARY: the lock and an
#       uncommitted SUMMARY. The start removes the lock before its own recovery commits the
#       SUMMARY (they would wait 10 s for the lock, and fail).
summary=$(cd "$p" && git ls-files | grep '01-01-SUMMARY.md')
(cd "$p" && git rm -q --cached "$summary" && git commit -qm "the SUMMARY out of the history, as if its commit was killed")
: >"$p/.git/index.lock"
echo "workers stopped" >"$p/.orchestration/locks-unchecked"
out=$(cd "$p" && timeout 60 "$cli" orchestrate "$spec" --worker script --yes 2>&1) || fail "a lock and a SUMMARY to commit at start: the run failed: $out"
[[ "$out" == *"removed .git/index.lock"* && "$out" != *"could not commit"* ]] || fail "a lock and a SUMMARY to commit at start: $out"
[[ -z $(cd "$p" && git status --porcelain -- "$summary") ]] && (cd "$p" && git cat-file -e "HEAD:$summary") ||
  fail "a lock and a SUMMARY to commit at start: the SUMMARY is not committed: $(cd "$p" && git status --porcelain)"

# 6. A worker that does the work and leaves its SUMMARY, then reports task_failed: a failed
#    attempt's SUMMARY is no proof of execution. It is marked `status: failed`, `status` calls the
#    plan failed, and the next run executes the plan again instead of verifying it and calling the
#    spec complete. With the cause fixed (here: the plain script worker) the plan is done.
p=$tmp/quitter
new_project "$p" 01-09
quitter() { # events-file: a run of the fault worker
  (cd "$p" && "$cli" orchestrate "$spec" --worker command --command "bash $src/tests/integration/faults/fault_worker.sh {harness_cli}" \
     --yes --json >"$1" 2>"$1.err")
}
summary=$p/$spec/execution/phases/01-core/01-09-SUMMARY.md
for run in 1 2; do
  rc=0
  quitter "$tmp/quit$run.jsonl" || rc=$?
  [[ $rc -eq 1 ]] || fail "run $run of a worker that reports task_failed after its SUMMARY should be blocked (exit 1), got $rc: $(tail -3 "$tmp/quit$run.jsonl")"
  python3 - "$tmp/quit$run.jsonl" "$run" <<'PY'
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
of = lambda kind, task: [e for e in ev if e["event"] == kind and e.get("task") == task]
assert of("task_started", "execute:01-09"), f"run {sys.argv[2]} did not execute 01-09 again"
assert not of("task_succeeded", "verify-plan:01-09"), f"run {sys.argv[2]} verified the failed attempt's work"
assert ev[-1]["event"] == "run_finished" and ev[-1]["message"].startswith("blocked"), ev[-1]
PY
  grep -q '^status: failed' "$summary" || fail "run $run left the failed attempt's SUMMARY unmarked: $(head -5 "$summary")"
  out=$(cd "$p" && "$cli" status "$spec")
  [[ "$out" == *"0/1 plans verified (0%), 0 executed"$'\n'* && "$out" == *"01-09 "*" failed"* && "$out" == *"plan 01-09 failed (see its SUMMARY)"* ]] ||
    fail "status after run $run should call 01-09 failed: $out"
done
grep -q 'marked status: failed: a failed attempt' "$tmp/quit1.jsonl" || fail "the run does not say it marked the SUMMARY"
(cd "$p" && "$cli" orchestrate "$spec" --worker script --yes >"$tmp/quit3.log" 2>&1) || fail "fixed: the run failed: $(cat "$tmp/quit3.log")"
grep -q '^status: complete' "$summary" || fail "fixed: the SUMMARY was not written again: $(head -5 "$summary")"
out=$(cd "$p" && "$cli" status "$spec")
[[ "$out" == *"1/1 plans verified (100%), 1 executed, complete"* ]] || fail "fixed: status: $out"
#    The same report made while no orchestrator listens (its run killed -9): the next run marks
#    the SUMMARY failed before reading the plans' state, and executes the plan again.
p=$tmp/late-quitter
new_project "$p" 01-10
(cd "$p" && exec "$cli" orchestrate "$spec" --worker command --command "bash $src/tests/integration/faults/fault_worker.sh {harness_cli}" \
   --yes >"$tmp/late.first" 2>&1) &
first=$!
for _ in $(seq 1 150); do [[ -e $FAULT_DIR/01-10.waiting ]] && break; sleep 0.1; done
[[ -e $FAULT_DIR/01-10.waiting ]] || fail "late quitter: the worker never got to its report: $(cat "$tmp/late.first")"
kill -KILL $first; wait $first 2>/dev/null || true
out=$(cd "$p" && timeout 60 "$cli" orchestrate "$spec" --worker script --yes 2>&1) || fail "late quitter: the next run failed: $out"
[[ "$out" == *"01-10-SUMMARY.md marked status: failed"*"task_started"*"execute:01-10"* ]] ||
  fail "late quitter: the next run took the failed attempt's SUMMARY as executed: $out"

# A worker program that cannot be executed (a text file with its executable bit, no #! line):
# each attempt fails to start; the store says so, and the next run does not take those sessions
# for workers that ended while no orchestrator watched (review II F8).
p=$tmp/nostart
file_plans_project "$p" "$spec" NoStart 01-01
printf 'not a program\n' >"$tmp/not-a-program"
chmod +x "$tmp/not-a-program"
rc=0
(cd "$p" && timeout 60 "$cli" orchestrate "$spec" --worker command --command "$tmp/not-a-program {prompt_file}" </dev/null >"$tmp/nostart1.out" 2>&1) || rc=$?
[[ $rc -eq 1 ]] || fail "a worker that cannot start: rc $rc: $(tail -n 5 "$tmp/nostart1.out")"
grep -q "blocked" "$tmp/nostart1.out" || fail "the task that could not start is not blocked: $(cat "$tmp/nostart1.out")"
rc=0
(cd "$p" && timeout 60 "$cli" orchestrate "$spec" --worker script --yes </dev/null >"$tmp/nostart2.out" 2>&1) || rc=$?
[[ $rc -eq 0 ]] || fail "the run after: rc $rc: $(tail -n 5 "$tmp/nostart2.out")"
grep -q "ended while no orchestrator watched" "$tmp/nostart2.out" && fail "sessions that never started were taken for unwatched workers: $(head -n 5 "$tmp/nostart2.out")"

echo "orchestrate worker faults: all checks passed"
