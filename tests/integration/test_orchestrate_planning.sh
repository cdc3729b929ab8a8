#!/usr/bin/env bash
# orchestrate on a spec that has a roadmap and no plans yet: the harness researches and plans each
# phase with workers, has the plans checked, sends them back once on the checker's verdict, adds
# the plans that appear on disk to the live graph and executes them. The researcher, planner and
# checker are a scripted stand-in for an agent (no LLM runs here), started by the real `command`
# adapter as real processes; it reads its task input from the prompt the harness wrote and reports
# through the file transport (result.json). The executor is the script worker.
# Also: a spec with nothing to run is refused (exit 2), and the script worker cannot plan: the run
# ends blocked, naming where the PLAN files were expected, without marking anything verified.
set -euo pipefail
cli=${HARNESS_CLI:?}
src=${HARNESS_SOURCE_DIR:?}
source "$src/tests/integration/lib/project.sh"
project_tmp
spec=docs/specs/SPC-001-greet

new_project() { # dir
  mkdir -p "$1/$spec"
  cat >"$1/$spec/SPEC.md" <<'EOF'
# SPC-001: greet

## Requirements
- R1. `sh greet.sh` prints a greeting.
- R2. The README says how to run it.
EOF
  cat >"$1/$spec/ROADMAP.md" <<'EOF'
# Roadmap: greet

## Phase 1: Core
**Goal**: `sh greet.sh` prints hello
**Depends on**: nothing
**Success criteria**:
1. `sh greet.sh` prints hello

## Phase 2: Docs
**Goal**: the README explains greet.sh
**Depends on**: Phase 1
EOF
  (cd "$1" && git init -q && git add -A && git commit -qm init)
}

# The stand-in agent: python, because the task input is JSON.
cat >"$tmp/agent.py" <<'PY'
import json, os, re, sys, time
prompt = open(sys.argv[1]).read()
task = json.loads(re.search(r"^Task input \(JSON\): (.*)$", prompt, re.M).group(1))
kind, log = task["kind"], open(os.environ["AGENT_LOG"], "a")
log.write(json.dumps(task) + "\n")
log.flush()  # a planner may be killed below
result = {"sessionId": os.environ["HARNESS_SESSION_ID"], "token": os.environ["HARNESS_TOKEN"], "timestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ"),
          "status": "completed", "summaryPath": "", "commits": [], "filesTouched": []}

def plan(path, pid, deps, files, title, code, checks=""):
    # Whole or not at all: section 2 kills every agent at once, and a phase-02 planner running
    # beside the hanging one must not leave half a PLAN (which the next run rightly refuses).
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = os.path.join(os.path.dirname(path), "." + os.path.basename(path) + ".tmp")
    with open(tmp, "w") as f:
        f.write(f"---\nplan_id: '{pid}'\ndepends_on: {json.dumps(deps)}\nfiles_modified: {json.dumps(files)}\n"
                f"{checks}---\n# {pid}: {title}\n\n### Task 1: {title}\n\n```sh\n{code}\n```\n")
    os.rename(tmp, path)

if kind == "research" and os.environ.get("SKIP_RESEARCH"):  # says done, writes nothing
    pass
elif kind == "research":
    os.makedirs(os.path.dirname(task["output"]), exist_ok=True)
    with open(task["output"], "w") as f:
        f.write(f"# Phase {task['phase']} research\n\nNothing surprising for: {task['phase_goal']}\n")
elif kind == "plan" and task["phase"] == "01":
    d = task["plans_dir"]
    if os.environ.get("FAIL_SECOND_PLAN"):  # its second pass fails: a run that ends blocked mid-loop
        calls = os.environ["FAIL_SECOND_PLAN"]
        n = len(open(calls).read()) if os.path.exists(calls) else 0
        open(calls, "a").write("x")
        if n == 1:
            sys.exit(1)
    plan(f"{d}/01-01-PLAN.md", "01-01", [], ["greet.sh"], "greet script", "printf 'echo hello\\n' > greet.sh",
         "must_pass:\n  - id: hello\n    type: command_output\n    command: ['sh', 'greet.sh']\n"
         "    expects: {exit_code: 0, stdout: '^hello'}\n")
    if os.environ.get("HANG_AFTER_FIRST_PLAN"):  # the run is killed here, one plan written
        time.sleep(600)
    if task.get("revision_findings"):  # the checker asked for a test
        plan(f"{d}/01-02-PLAN.md", "01-02", ["01-01"], ["test.sh"], "test", "printf 'sh greet.sh | grep -q hello\\n' > test.sh")
elif kind == "plan":
    plan(f"{task['plans_dir']}/02-01-PLAN.md", "02-01", ["01-01"], ["README.md"], "readme", "echo 'run: sh greet.sh' > README.md")
elif kind == "check-plans":
    if os.environ.get("HANG_IN_CHECK"):  # the run is killed here, the plans written, not checked
        open(os.environ["HANG_IN_CHECK"], "w").close()
        time.sleep(600)
    if os.environ.get("CHECKER_EDITS") and len(task["plans"]) >= 2 and not os.path.exists(os.environ["CHECKER_EDITS"]):
        # Once: "fixes" 01-01 while passing it (review SS H2); harness puts it back and fails this attempt.
        open(os.environ["CHECKER_EDITS"], "w").close()
        f = next(f for f in task["plans"] if f.endswith("01-01-PLAN.md"))
        text = open(f).read()
        open(f, "w").write(text.replace("echo hello", "echo HACKED").replace("stdout: '^hello'", "stdout: '.*'"))
    if os.environ.get("CHECKER_COMMITS") and len(task["plans"]) >= 2 and not os.path.exists(os.environ["CHECKER_COMMITS"]):
        # The checker edits 01-01 and commits the edit itself, as if a person had (review UU H1).
        open(os.environ["CHECKER_COMMITS"], "w").close()
        f = next(f for f in task["plans"] if f.endswith("01-01-PLAN.md"))
        open(f, "a").write("\nThe checker's note, committed.\n")
        import subprocess
        subprocess.run(["git", "commit", "-qm", "note on 01-01", f], check=True)
    if os.environ.get("NO_VERDICT"):  # says done, judges nothing
        pass
    elif os.environ.get("ALWAYS_REVISE") and task["phase"] == "01":  # never satisfied: a person decides
        result.update(verdict="revise", findings=[f"plans of {task['phase']} still lack a test"])
    elif task["phase"] == "01" and len(task["plans"]) < 2:
        result.update(verdict="revise", findings=["R1 has no test: add a plan that tests greet.sh"])
    else:
        result["verdict"] = "pass"
out = os.path.join(os.environ["HARNESS_STATE_DIR"], "sessions", os.environ["HARNESS_SESSION_ID"], "result.json")
json.dump(result, open(out + ".tmp", "w"))
os.rename(out + ".tmp", out)
PY

# 1. Planned by workers, checked, revised once, executed, verified.
p=$tmp/run
new_project "$p"
mkdir -p "$p/.orchestration"
cat >"$p/.orchestration/config.yaml" <<EOF
adapters: {default: script, researcher: command, planner: command, plan_checker: command}
workers:
  command: "python3 $tmp/agent.py {prompt_file}"
EOF
rc=0
(cd "$p" && AGENT_LOG=$tmp/agent.log "$cli" orchestrate "$spec" --yes --json >"$tmp/events.jsonl" 2>"$tmp/stderr.log") || rc=$?
[[ $rc -eq 0 ]] || { tail -30 "$tmp/events.jsonl" >&2; cat "$tmp/stderr.log" >&2; fail "orchestrate exited $rc"; }
python3 - "$tmp/events.jsonl" "$tmp/agent.log" <<'PY'
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
assert ev[-1]["event"] == "run_finished" and ev[-1]["message"].startswith("complete"), ev[-1]
done = lambda t: [e for e in ev if e["event"] == "task_succeeded" and e.get("task") == t]
checks = done("check-plans:01")
assert [c["message"].split(":")[0] for c in checks] == ["revise", "pass"], checks
assert "add a plan that tests greet.sh" in checks[0]["message"], checks[0]
assert len(done("plan:01")) == 2 and len(done("plan:02")) == 1, "planner passes"
for t in ("execute:01-01", "execute:01-02", "execute:02-01", "verify-phase:01", "verify-phase:02", "final"):
    assert len(done(t)) == 1, t
order = [e["task"] for e in ev if e["event"] == "task_started"]
assert order.index("execute:01-01") > max(i for i, t in enumerate(order) if t == "check-plans:01"), "executed before the check passed"
tasks = [json.loads(l) for l in open(sys.argv[2])]
plans = [t for t in tasks if t["kind"] == "plan" and t["phase"] == "01"]
assert "revision_findings" not in plans[0] and plans[1]["revision_findings"] == ["R1 has no test: add a plan that tests greet.sh"], plans
assert plans[0]["plans_dir"].endswith("/planning/plans/01-core") and plans[0]["template"].endswith("/plan.md"), plans[0]
assert plans[0]["phase_goal"].endswith("greet.sh prints hello"), plans[0]
PY
cd "$p"
[[ -f "$spec/planning/research/phase-01-research.md" && -f "$spec/planning/research/phase-02-research.md" ]] || fail "research files"
[[ -f "$spec/execution/FINAL-VERIFICATION.md" ]] || fail "no final verification"
[[ $(git log --oneline --grep '^feat(' | wc -l) -eq 3 ]] || fail "task commits: $(git log --oneline)"
[[ $(git log --oneline --grep "plan phase 01" | wc -l) -eq 2 ]] || fail "the planner's two passes of phase 01 are not committed: $(git log --oneline)"
[[ "$(sh greet.sh)" == hello && -f test.sh && -f README.md ]] || fail "the plans' effects"
"$cli" status "$spec" | grep "3/3 plans verified" >/dev/null || fail "status: $("$cli" status "$spec")"
# 1b. A phase added to the finished spec as /harness:add-phase adds it (a ROADMAP section, no plans
# yet) leaves the spec incomplete: in `status` (text and JSON), and in a run that cannot plan it
# (the script worker): blocked, exit 1, STATUS.md "blocked"; never "complete" beside a blocked list.
python3 - "$spec/ROADMAP.md" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
s = s.replace("## Phase 2: Docs", "## Phase 1.1: Hotfix\n**Goal**: greet.sh says HELLO\n**Depends on**: Phase 1\n\nPlans:\n\n## Phase 2: Docs")
open(p, "w").write(s)
PY
git commit -qam "add phase 1.1"
for when in before after; do
  if [[ $when == after ]]; then
    rc=0
    "$cli" orchestrate "$spec" --worker script --yes >"$tmp/added.log" 2>&1 || rc=$?
    [[ $rc -eq 1 ]] || { cat "$tmp/added.log" >&2; fail "a run that cannot plan the added phase exited $rc, expected 1"; }
    grep -q "run_finished.*: blocked after" "$tmp/added.log" || { cat "$tmp/added.log" >&2; fail "the run did not end blocked"; }
    grep -q '^run: "blocked"' "$spec/STATUS.md" || fail "STATUS.md: $(head -5 "$spec/STATUS.md")"
  fi
  out=$("$cli" status "$spec")
  [[ "$out" == *"3/3 plans verified (100%), 3 executed"$'\n'* && "$out" == *"Phase 01.1 Hotfix"*"not planned"* ]] ||
    fail "status $when the run calls the spec with an unplanned phase complete: $out"
  [[ "$out" == *"final: again, its report no longer holds: phase 01.1 has no plans yet"* ]] || fail "status $when the run: $out"
  "$cli" status "$spec" --json | python3 -c 'import json, sys; d = json.load(sys.stdin); assert d["complete"] is False, d' ||
    fail "status --json $when the run says complete"
done

# 2. Killed while the planner writes phase 01 (one plan of two on disk): the next run plans that
# phase again over what is there and has it checked before anything executes.
killed_while_planning() { # project dir, tag[, keep]: a run killed once its planner (which then hangs) wrote 01-01
  local p=$1 tag=$2 keep=${3:-} orch
  new_project "$p"
  mkdir -p "$p/.orchestration"
  cp "$tmp/run/.orchestration/config.yaml" "$p/.orchestration/config.yaml"
  (cd "$p" && HANG_AFTER_FIRST_PLAN=1 AGENT_LOG=$tmp/$tag-agent.log exec "$cli" orchestrate "$spec" --yes --json \
    >"$tmp/${tag}1.jsonl" 2>&1) &
  orch=$!
  for _ in $(seq 300); do [[ -f "$p/$spec/planning/plans/01-core/01-01-PLAN.md" ]] && break; sleep 0.1; done
  [[ -f "$p/$spec/planning/plans/01-core/01-01-PLAN.md" ]] || { kill -9 $orch; cat "$tmp/${tag}1.jsonl" >&2; fail "$tag: the planner never wrote 01-01"; }
  kill -9 $orch; wait $orch 2>/dev/null || true
  # The hanging planner, left behind like any worker of a killed run: killed here, or kept for the
  # next run to stop.
  [[ $keep == keep ]] || pkill -9 -f "$tmp/agent.py" || true
}
p=$tmp/killed
killed_while_planning "$p" killed
rc=0
(cd "$p" && AGENT_LOG=$tmp/killed-agent.log "$cli" orchestrate "$spec" --yes --json >"$tmp/killed2.jsonl" 2>"$tmp/killed2.err") || rc=$?
[[ $rc -eq 0 ]] || { tail -30 "$tmp/killed2.jsonl" >&2; cat "$tmp/killed2.err" >&2; fail "the resumed run exited $rc"; }
python3 - "$tmp/killed2.jsonl" "$tmp/killed-agent.log" <<'PY'
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
assert ev[-1]["event"] == "run_finished" and ev[-1]["message"].startswith("complete"), ev[-1]
assert any("phase 01's planning was interrupted" in e.get("message", "") for e in ev), "no note about the interrupted planning"
order = [e["task"] for e in ev if e["event"] == "task_started"]
assert "plan:01" in order and "check-plans:01" in order, order
passed = [i for i, e in enumerate(ev) if e["event"] == "task_succeeded" and e.get("task") == "check-plans:01" and e["message"].startswith("pass")]
first_exec = min(i for i, e in enumerate(ev) if e["event"] == "task_started" and e.get("task", "").startswith("execute:01-"))
assert passed and passed[0] < first_exec, "a plan of phase 01 executed before its plans were checked"
tasks = [json.loads(l) for l in open(sys.argv[2])]
resumed = [t for t in tasks if t["kind"] == "plan" and t["phase"] == "01"][1]
assert resumed["existing_plans"] and "interrupted" in resumed["instructions"], resumed
PY
[[ -f "$p/$spec/execution/FINAL-VERIFICATION.md" && -f "$p/$spec/planning/plans/01-core/01-02-PLAN.md" ]] || fail "the resumed run did not finish planning"
# Finished: a third run finds nothing to plan again.
(cd "$p" && "$cli" orchestrate "$spec" --yes --json >"$tmp/killed3.jsonl" 2>&1) || fail "third run"
! grep -q '"task":"plan:01"' "$tmp/killed3.jsonl" || fail "the planning mark outlived the check"

# 2f. Killed while the planner writes its second PLAN, cut short (an agent's file write is not
# atomic): the resumed run sets the half-written file aside, says where, and plans the phase again.
# Not with a planner that cannot plan again (the script worker): that run refuses the spec (exit 2)
# and leaves the file where it is.
p=$tmp/killed-half
killed_while_planning "$p" kh keep # its planner still runs: the next run stops it before it looks
half="$p/$spec/planning/plans/01-core/01-02-PLAN.md"
printf -- "---\nplan_id: '01-02'\ndepends_on: [" >"$half"
rc=0
(cd "$p" && "$cli" orchestrate "$spec" --worker script --json >"$tmp/kh-script.jsonl" 2>"$tmp/kh-script.err") || rc=$?
[[ $rc -eq 2 && -f "$half" ]] || { cat "$tmp/kh-script.err" >&2; fail "2f: the script run exited $rc (expected 2) or moved the file"; }
grep -q "01-02-PLAN.md:.*H002" "$tmp/kh-script.err" || { cat "$tmp/kh-script.err" >&2; fail "2f: the refusal does not name the file"; }
rc=0
(cd "$p" && AGENT_LOG=$tmp/kh-agent.log "$cli" orchestrate "$spec" --yes --json >"$tmp/kh2.jsonl" 2>"$tmp/kh2.err") || rc=$?
[[ $rc -eq 0 ]] || { tail -30 "$tmp/kh2.jsonl" >&2; cat "$tmp/kh2.err" >&2; fail "2f: the resumed run exited $rc"; }
grep -q "planning/plans/01-core/01-02-PLAN.md is what an interrupted planner left of it (H002: .*): moved to .orchestration/discarded/SPC-001-greet/planning-" \
  "$tmp/kh2.jsonl" || { head -5 "$tmp/kh2.jsonl" >&2; fail "2f: no note of the file set aside"; }
kept=("$p"/.orchestration/discarded/SPC-001-greet/planning-*/planning/plans/01-core/01-02-PLAN.md)
[[ -f "${kept[0]}" && "$(cat "${kept[0]}")" == "---"$'\n'"plan_id: '01-02'"$'\n'"depends_on: [" ]] || fail "2f: the half-written file was not kept"
grep -q '"run_finished".*"complete' "$tmp/kh2.jsonl" || { tail -5 "$tmp/kh2.jsonl" >&2; fail "2f: the resumed run did not complete"; }
python3 - "$tmp/kh2.jsonl" <<'PY' || fail "2f: the earlier run's planner was not stopped before the file was set aside"
import json, sys
msgs = [json.loads(l).get("message", "") for l in open(sys.argv[1])]
stopped = [i for i, m in enumerate(msgs) if "stopped a worker left running by an earlier run" in m]
moved = [i for i, m in enumerate(msgs) if "is what an interrupted planner left of it" in m]
assert stopped and moved and stopped[0] < moved[0], (stopped, moved)
PY
pgrep -f "$tmp/agent.py" >/dev/null && fail "2f: the earlier run's planner still runs" || true
grep -q "^plan_id: '01-02'" "$half" || fail "2f: phase 01 was not planned again"

# 2c. The same kill, resumed by a run whose planner is the script worker: it cannot plan, so it
# runs the plans on disk as they are and says so. The planning mark goes with it: `status` must not
# call a plan that ran "waiting on its plan check".
p=$tmp/killed-script
killed_while_planning "$p" ks
printf 'adapters: {default: script}\nmax_attempts: 1\n' >"$p/.orchestration/config.yaml"
printf '\n```sh\nexit 3\n```\n' >>"$p/$spec/planning/plans/01-core/01-01-PLAN.md" # it runs, and fails
rc=0
(cd "$p" && "$cli" orchestrate "$spec" --yes --json >"$tmp/ks2.jsonl" 2>&1) || rc=$?
[[ $rc -eq 1 ]] || { tail -20 "$tmp/ks2.jsonl" >&2; fail "2c: the script run exited $rc, expected 1 (01-01 fails)"; }
grep -q "phase 01's planning was interrupted; the script worker cannot finish it" "$tmp/ks2.jsonl" ||
  fail "2c: no note that the plans run as they are"
grep -q '"task_failed".*"task":"execute:01-01"' "$tmp/ks2.jsonl" || { cat "$tmp/ks2.jsonl" >&2; fail "2c: 01-01 did not run"; }
out=$(cd "$p" && "$cli" status "$spec")
[[ "$out" != *"waiting on its plan check"* ]] || fail "2c: status after the script run: $out"

# 2b. Killed while the checker looks at phase 01's plans (the planner had finished): the next run
# checks them first and plans again only because the checker sends them back.
p=$tmp/killed-check
new_project "$p"
mkdir -p "$p/.orchestration"
cp "$tmp/run/.orchestration/config.yaml" "$p/.orchestration/config.yaml"
(cd "$p" && HANG_IN_CHECK=$tmp/checking AGENT_LOG=$tmp/kc-agent.log exec "$cli" orchestrate "$spec" --yes --json \
  >"$tmp/kc1.jsonl" 2>&1) &
orch=$!
for _ in $(seq 300); do [[ -f "$tmp/checking" ]] && break; sleep 0.1; done
[[ -f "$tmp/checking" ]] || { kill -9 $orch; cat "$tmp/kc1.jsonl" >&2; fail "the checker never started"; }
kill -9 $orch; wait $orch 2>/dev/null || true
pkill -9 -f "$tmp/agent.py" || true
rc=0
(cd "$p" && AGENT_LOG=$tmp/kc-agent.log "$cli" orchestrate "$spec" --yes --json >"$tmp/kc2.jsonl" 2>"$tmp/kc2.err") || rc=$?
[[ $rc -eq 0 ]] || { tail -30 "$tmp/kc2.jsonl" >&2; cat "$tmp/kc2.err" >&2; fail "the run resumed after the check exited $rc"; }
python3 - "$tmp/kc2.jsonl" "$tmp/kc-agent.log" <<'PY'
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
assert ev[-1]["event"] == "run_finished" and ev[-1]["message"].startswith("complete"), ev[-1]
assert any("phase 01's plans were written but never checked" in e.get("message", "") for e in ev), "no note"
order = [e["task"] for e in ev if e["event"] == "task_started" and e["task"] in ("plan:01", "check-plans:01")]
assert order[:3] == ["check-plans:01", "plan:01", "check-plans:01"], order  # checked first, then revised
tasks = [json.loads(l) for l in open(sys.argv[2])]
plans = [t for t in tasks if t["kind"] == "plan" and t["phase"] == "01"]
assert len(plans) == 2 and plans[1].get("revision_findings"), plans  # the killed run's pass, then the revision
PY

# 2d. The checker sends phase 01's plans back until a person must decide (exit 3 without a
# terminal). Approved meanwhile, the next run executes the plans the person saw: it neither plans
# nor checks phase 01 again.
p=$tmp/always-revise
new_project "$p"
mkdir -p "$p/.orchestration"
cp "$tmp/run/.orchestration/config.yaml" "$p/.orchestration/config.yaml"
rc=0
(cd "$p" && ALWAYS_REVISE=1 AGENT_LOG=$tmp/ar-agent.log "$cli" orchestrate "$spec" --yes --json >"$tmp/ar1.jsonl" 2>"$tmp/ar1.err") || rc=$?
[[ $rc -eq 3 ]] || { tail -n 20 "$tmp/ar1.jsonl" "$tmp/ar1.err" >&2; fail "a run whose plans were sent back 3 times exited $rc, expected 3"; }
cp_id=$(cd "$p" && "$cli" respond --list --json | python3 -c 'import json, sys; print(next(c["id"] for c in json.load(sys.stdin)["checkpoints"] if c["task"] == "check-plans:01"))')
plans_asked=$(cat "$p/$spec/planning/plans/01-core/"*-PLAN.md | sha256sum)
(cd "$p" && "$cli" respond "$cp_id" approve >/dev/null) || fail "respond"
rc=0
(cd "$p" && ALWAYS_REVISE=1 AGENT_LOG=$tmp/ar-agent.log "$cli" orchestrate "$spec" --yes --json >"$tmp/ar2.jsonl" 2>"$tmp/ar2.err") || rc=$?
[[ $rc -eq 0 ]] || { tail -n 20 "$tmp/ar2.jsonl" "$tmp/ar2.err" >&2; fail "the run after the approval exited $rc"; }
python3 - "$tmp/ar2.jsonl" <<'PY' || fail "the approved plans were not taken as they stood"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
assert ev[-1]["event"] == "run_finished" and ev[-1]["message"].startswith("complete"), ev[-1]
started = [e["task"] for e in ev if e["event"] == "task_started"]
assert "plan:01" not in started and "check-plans:01" not in started, started
assert "execute:01-01" in started, started
answered = [e for e in ev if e["event"] == "checkpoint_answered" and e.get("task") == "check-plans:01"]
assert len(answered) == 1 and answered[0]["message"].startswith("approved"), answered
PY
[[ "$(cat "$p/$spec/planning/plans/01-core/"*-PLAN.md | sha256sum)" == "$plans_asked" ]] || fail "phase 01's plans changed after the approval"

# 2c. Never taken on the worker's word: a researcher that reports task_completed but wrote no
# research file, and a checker whose task_completed has no verdict, fail their attempts; nothing
# after them runs (the planner without research, plans nobody approved).
for fault in SKIP_RESEARCH NO_VERDICT; do
  p=$tmp/$fault
  new_project "$p"
  mkdir -p "$p/.orchestration"
  { cat "$tmp/run/.orchestration/config.yaml"; echo "max_attempts: 1"; } >"$p/.orchestration/config.yaml"
  rc=0
  (cd "$p" && env "$fault=1" AGENT_LOG=$tmp/$fault.log "$cli" orchestrate "$spec" --yes --json >"$tmp/$fault.jsonl" 2>"$tmp/$fault.err") || rc=$?
  [[ $rc -eq 1 ]] || { tail -n 20 "$tmp/$fault.jsonl" "$tmp/$fault.err" >&2; fail "$fault: the run exited $rc, expected 1 (blocked)"; }
  python3 - "$tmp/$fault.jsonl" "$fault" <<'PY' || fail "$fault: events"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
task, why, never = {
    "SKIP_RESEARCH": ("research:01", "no research file for phase 01 (expected planning/research/phase-01-research.md)", "plan:01"),
    "NO_VERDICT": ("check-plans:01", 'the plan checker reported task_completed without a verdict ("pass" or "revise")', "execute:01-01"),
}[sys.argv[2]]
failed = [e for e in ev if e["event"] == "task_failed" and e.get("task") == task]
assert len(failed) == 1 and why in failed[0]["message"], failed
assert not [e for e in ev if e["event"] == "task_succeeded" and e.get("task") == task], "succeeded too"
assert not [e for e in ev if e["event"] == "task_started" and e.get("task") == never], never + " started"
PY
done

# 2e. A checker that never passes: past plan_check_iterations a person decides (exit 3), and the
# question names the checker's last findings, where `respond --list` shows it; the plans wait on
# that answer, not "ready now".
p=$tmp/revise-findings
new_project "$p"
mkdir -p "$p/.orchestration"
{ cat "$tmp/run/.orchestration/config.yaml"; echo "plan_check_iterations: 1"; } >"$p/.orchestration/config.yaml"
rc=0
(cd "$p" && ALWAYS_REVISE=1 AGENT_LOG=$tmp/revise.log "$cli" orchestrate "$spec" >"$tmp/revise.out" 2>&1) || rc=$?
[[ $rc -eq 3 ]] || { cat "$tmp/revise.out" >&2; fail "a checker that never passes: exit $rc, expected 3"; }
out=$(cd "$p" && "$cli" respond --list)
[[ "$out" == *"plans of phase 01: plans sent back for revision 1 times; a human decides; the checker's last findings: plans of 01 still lack a test; approve to execute them"* ]] ||
  fail "the revision limit's question does not name the findings: $out"
# Plans nobody approved do not run, and are not "ready now" either: in `status` and STATUS.md.
out=$(cd "$p" && "$cli" status "$spec")
[[ "$out" == *"01-01 "*"planned  (waiting on its plan check)"* && "$out" == *"Ready now: nothing"* ]] ||
  fail "status lists plans the checker sent back as ready: $out"
(cd "$p" && "$cli" status "$spec" --json) | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["ready"] == [] and all(p["waiting_on_check"] and not p["ready"] for p in d["plans"] if p["id"].startswith("01-")), d' ||
  fail "status --json lists plans the checker sent back as ready"
grep -A1 "^## Ready now" "$p/$spec/STATUS.md" | grep -q "^Nothing" || fail "STATUS.md: $(cat "$p/$spec/STATUS.md")"
grep -q "| 01-01 | .* | planned, waiting on its plan check |" "$p/$spec/STATUS.md" || fail "STATUS.md: $(cat "$p/$spec/STATUS.md")"
# Refused with a note, the plans removed to have the phase planned again: the planner is told the
# note (review SS M4: it never heard why).
id=$(cd "$p" && "$cli" respond --list 2>/dev/null | awk '$3 == "check-plans:01" {print $1; exit}')
[[ -n $id ]] || fail "no checkpoint of check-plans:01 in: $(cd "$p" && "$cli" respond --list)"
(cd "$p" && "$cli" respond "$id" refuse --note "every plan needs a test of greet.sh" >/dev/null)
rm "$p/$spec/planning/plans/"*/*-PLAN.md
rc=0
(cd "$p" && ALWAYS_REVISE=1 AGENT_LOG=$tmp/revise2.log "$cli" orchestrate "$spec" >"$tmp/revise2.out" 2>&1) || rc=$?
[[ $rc -eq 3 ]] || { cat "$tmp/revise2.out" >&2; fail "the run after the refusal: exit $rc, expected 3"; }
python3 - "$tmp/revise2.log" <<'PY' || fail "the planner after the refusal was not told its note: $(cat "$tmp/revise2.log")"
import json, sys
plans = [t for t in map(json.loads, open(sys.argv[1])) if t["kind"] == "plan" and t["phase"] == "01"]
assert plans and any("every plan needs a test of greet.sh" in n for n in plans[0].get("person_notes", [])), plans[:1]
# Planned from scratch, a new cycle: its plan_check_iterations (1) revision runs before the question
# (review TT M2: the refused cycle's rounds were counted against it).
assert len(plans) == 2, len(plans)
PY
# Approved after the plans were changed and committed: the approval was about other plans, and it
# expires with a note instead of vanishing (review SS M6); the checker looks at the plans as they are.
id=$(cd "$p" && "$cli" respond --list 2>/dev/null | awk '$3 == "check-plans:01" {print $1; exit}')
[[ -n $id ]] || fail "no second checkpoint of check-plans:01 in: $(cd "$p" && "$cli" respond --list)"
echo "Edited after the question." >>"$p/$spec/planning/plans/01-core/01-01-PLAN.md"
(cd "$p" && git commit -qam "edit 01-01 after the question" && "$cli" respond "$id" approve >/dev/null)
rc=0
(cd "$p" && ALWAYS_REVISE=1 AGENT_LOG=$tmp/revise3.log "$cli" orchestrate "$spec" >"$tmp/revise3.out" 2>&1) || rc=$?
[[ $rc -eq 3 ]] || { cat "$tmp/revise3.out" >&2; fail "the run after the approval of changed plans: exit $rc, expected 3"; }
grep -q "checkpoint $id of an earlier run expired: it was approved about the phase's plans as they were at commit .*, and they changed since" "$tmp/revise3.out" ||
  { cat "$tmp/revise3.out" >&2; fail "the approval of plans changed since did not expire with a note"; }
! grep -q "task_started .*execute:01-01" "$tmp/revise3.out" || fail "plans executed on an approval of other plans"

# 2f. A planning task changes only the plans that are its to change (review SS H1, H2): a checker
# that rewrites a plan while passing it fails its attempt, the plan is put back as it was (the
# checker's version kept under .orchestration/discarded/), and the retry's verdict is the one taken.
p=$tmp/checker-edits
new_project "$p"
mkdir -p "$p/.orchestration"
cp "$tmp/run/.orchestration/config.yaml" "$p/.orchestration/config.yaml"
rc=0
(cd "$p" && CHECKER_EDITS=$tmp/checker-edited AGENT_LOG=$tmp/checker-edits.log "$cli" orchestrate "$spec" --yes --json \
  >"$tmp/checker-edits.jsonl" 2>"$tmp/checker-edits.err") || rc=$?
[[ $rc -eq 0 ]] || { tail -n 20 "$tmp/checker-edits.jsonl" "$tmp/checker-edits.err" >&2; fail "checker edits: the run exited $rc"; }
[[ -f $tmp/checker-edited ]] || fail "the checker never edited a plan"
python3 - "$tmp/checker-edits.jsonl" <<'PY' || fail "checker edits: events"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
failed = [e["message"] for e in ev if e["event"] == "task_failed" and e.get("task") == "check-plans:01"]
assert len(failed) == 1, failed
assert ("it changed docs/specs/SPC-001-greet/planning/plans/01-core/01-01-PLAN.md (a plan checker judges the plans "
        "and changes none): put back as it was when it started, its version kept in .orchestration/discarded/SPC-001-greet/plan-edit-") in failed[0], failed
assert ev[-1]["event"] == "run_finished" and ev[-1]["outcome"] == "complete", ev[-1]
PY
[[ "$(cd "$p" && sh greet.sh)" == hello ]] || fail "the checker's edit of 01-01 ran: $(cd "$p" && sh greet.sh)"
grep -q "echo HACKED" "$p"/.orchestration/discarded/SPC-001-greet/plan-edit-*/"$spec"/planning/plans/01-core/01-01-PLAN.md ||
  fail "the checker's version was not kept"
! git -C "$p" log -p | grep -q "HACKED" || fail "the checker's edit was committed"
# Committing the forbidden edit is no way past the guard (review UU H1): the attempt fails and the
# work tree is put back (git keeps the commit, which the run's note on untrailed commits names).
p=$tmp/checker-commits
new_project "$p"
mkdir -p "$p/.orchestration"
cp "$tmp/run/.orchestration/config.yaml" "$p/.orchestration/config.yaml"
(cd "$p" && CHECKER_COMMITS=$tmp/checker-committed AGENT_LOG=$tmp/checker-commits.log "$cli" orchestrate "$spec" --yes --json \
  >"$tmp/checker-commits.jsonl" 2>"$tmp/checker-commits.err") || { tail -n 20 "$tmp/checker-commits.jsonl" "$tmp/checker-commits.err" >&2; fail "checker commits: the run failed"; }
[[ -f $tmp/checker-committed ]] || fail "the checker never committed"
grep -q '"event":"task_failed","elapsed":[0-9.]*,"task":"check-plans:01".*it changed docs/specs/SPC-001-greet/planning/plans/01-core/01-01-PLAN.md (a plan checker judges' "$tmp/checker-commits.jsonl" ||
  fail "the checker's committed edit was not refused: $(grep -c task_failed "$tmp/checker-commits.jsonl") failures"
! grep -q "The checker's note, committed." "$p/$spec/planning/plans/01-core/01-01-PLAN.md" || fail "the checker's committed edit stayed in the work tree"

# 2g. The revision bound counts per phase, not per run (review SS H3): a run that ends blocked in
# the middle of the loop leaves the next one the rounds that are left, not a fresh budget.
p=$tmp/rounds
new_project "$p"
mkdir -p "$p/.orchestration"
{ cat "$tmp/run/.orchestration/config.yaml"; echo "plan_check_iterations: 2"; echo "max_attempts: 1"; } >"$p/.orchestration/config.yaml"
rc=0
(cd "$p" && ALWAYS_REVISE=1 FAIL_SECOND_PLAN=$tmp/rounds-calls AGENT_LOG=$tmp/rounds.log "$cli" orchestrate "$spec" --json \
  >"$tmp/rounds1.jsonl" 2>"$tmp/rounds1.err") || rc=$?
[[ $rc -eq 1 ]] || { tail -n 20 "$tmp/rounds1.jsonl" "$tmp/rounds1.err" >&2; fail "rounds: the first run exited $rc, expected 1 (blocked)"; }
rc=0
(cd "$p" && ALWAYS_REVISE=1 AGENT_LOG=$tmp/rounds.log "$cli" orchestrate "$spec" --json >"$tmp/rounds2.jsonl" 2>"$tmp/rounds2.err") || rc=$?
[[ $rc -eq 3 ]] || { tail -n 20 "$tmp/rounds2.jsonl" "$tmp/rounds2.err" >&2; fail "rounds: the second run exited $rc, expected 3 (a person decides)"; }
python3 - "$tmp/rounds1.jsonl" "$tmp/rounds2.jsonl" <<'PY' || fail "rounds: events"
import json, sys
checks = lambda f: [e for e in map(json.loads, open(f)) if e["event"] == "task_succeeded" and e.get("task") == "check-plans:01"]
assert len(checks(sys.argv[1])) == 1, checks(sys.argv[1])  # one revision spent before the planner failed
second = checks(sys.argv[2])
assert len(second) == 2, second  # the two left of plan_check_iterations + 1 checks, not three more
ev = [json.loads(l) for l in open(sys.argv[2])]
assert any(e["event"] == "checkpoint_opened" and "plans sent back for revision 2 times" in e["message"] for e in ev), ev[-3:]
PY

# 3. The script worker cannot plan: blocked, with where the plans belong; nothing verified.
p=$tmp/script
new_project "$p"
rc=0
(cd "$p" && "$cli" orchestrate "$spec" --worker script >"$tmp/script.log" 2>&1) || rc=$?
[[ $rc -eq 1 ]] || { cat "$tmp/script.log" >&2; fail "a run the script worker cannot plan exited $rc, expected 1"; }
[[ $(grep -c "task_started .*plan:01 " "$tmp/script.log") -eq 1 ]] || { cat "$tmp/script.log" >&2; fail "the script worker's planning was tried again"; }
grep -q "blocked: plan:01: no PLAN files for phase 01 (expected planning/plans/01-core/01-NN-PLAN.md).*(not retried: a retry cannot help)" "$tmp/script.log" \
  || { cat "$tmp/script.log" >&2; fail "the blocked planning task does not say where the plans belong"; }
[[ ! -e "$p/$spec/execution/FINAL-VERIFICATION.md" ]] || fail "an unplanned spec got a final verification"
grep -q "blocked" "$p/$spec/STATUS.md" || fail "STATUS.md does not say blocked"

# 4. Nothing to run at all: invalid input, nothing written.
p=$tmp/empty
mkdir -p "$p/$spec" && echo "# SPC-001: greet" >"$p/$spec/SPEC.md" && (cd "$p" && git init -q)
rc=0
out=$(cd "$p" && "$cli" orchestrate "$spec" --worker script 2>&1) || rc=$?
[[ $rc -eq 2 ]] || fail "an empty spec exited $rc, expected 2: $out"
grep -q "nothing to run: no phases in ROADMAP.md and no PLAN files" <<<"$out" || fail "message: $out"
[[ ! -e "$p/.orchestration" && ! -e "$p/$spec/STATUS.md" ]] || fail "an empty spec left files behind"
# simulate predicts no run of it either (it once said complete, with a makespan).
rc=0
out=$(cd "$p" && "$cli" simulate "$spec" --json 2>/dev/null) || rc=$?
[[ $rc -eq 2 && $out == *'"error":"SPC-001-greet: nothing to run: no phases in ROADMAP.md and no PLAN files'* ]] \
  || fail "simulate of an empty spec: rc $rc: $out"
echo "orchestrate planning: all checks passed"
