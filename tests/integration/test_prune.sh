#!/usr/bin/env bash
# `harness-cli prune` after real runs (script worker, real git): run A of spec SPC-001 leaves plan
# 01-02 blocked, run B completes spec SPC-002. Prune removes run A's finished sessions and keeps
# the newest run, the blocked task's last (failed) attempt whose log `status` shows, a directory
# whose worker still runs, an open checkpoint and a directory the store does not know; it refuses
# while a run holds the project, removes nothing on --dry-run, never touches discarded/ or the
# store, and a later run of the blocked spec completes as if nothing was pruned.
set -euo pipefail
cli=${HARNESS_CLI:?}
src=${HARNESS_SOURCE_DIR:?}
source "$src/tests/integration/lib/project.sh"
project_tmp
p=$tmp/p
a=docs/specs/SPC-001-a
b=docs/specs/SPC-002-b
file_plans_project "$p" "$a" "A" 01-01 01-02
plan_runs "$p/$a" 01-02 'exit 3'
mkdir -p "$p/$b"
printf '# B\n\nOne plan.\n' >"$p/$b/SPEC.md"
core_plan "$p/$b" 01-01
(cd "$p" && git add -A && git commit -qm "two specs")
sessions=$p/.orchestration/sessions

rc=0; (cd "$p" && "$cli" orchestrate "$a" --worker script) >"$tmp/a.out" 2>&1 || rc=$?
[[ $rc -eq 1 ]] || fail "run A should end with 01-02 blocked: rc $rc: $(cat "$tmp/a.out")"
(cd "$p" && "$cli" orchestrate "$b" --worker script) >"$tmp/b.out" 2>&1 || fail "run B: $(cat "$tmp/b.out")"
dir_of() { # dir_of GLOB: the one session directory matching GLOB
  local found=("$sessions"/$1)
  [[ ${#found[@]} -eq 1 && -d ${found[0]} ]] || fail "no single session directory $1: $(ls "$sessions")"
  basename "${found[0]}"
}
a_done=$(basename "$(grep -l '"spec":"SPC-001-a"' "$sessions"/execute-01-01-a1-*/worker*.json | xargs dirname)")
b_done=$(basename "$(grep -l '"spec":"SPC-002-b"' "$sessions"/execute-01-01-a1-*/worker*.json | xargs dirname)")
a_fail1=$(dir_of 'execute-01-02-a1-*')
a_fail2=$(dir_of 'execute-01-02-a2-*')
[[ -n $a_done && -n $b_done && $a_done != "$b_done" ]] || fail "sessions of the two runs not found: $(ls "$sessions")"
run_a=${a_done##*-}

# A directory of run A whose worker a killed run left running (its record names a live process group).
setsid sleep 120 &
live=$!
ticks=$(awk '{print $22}' "/proc/$live/stat")
a_live=$a_fail1
printf '{"pid":%s,"start_ticks":%s,"task":"execute:01-02","session":"%s","spec":"SPC-001-a"}\n' \
  "$live" "$ticks" "$a_live" >"$sessions/$a_live/worker.json"
# An open checkpoint an old run asked, a directory harness did not write, a leftover of an
# interrupted prune, a file a retry reset.
cp_dir=cp-SPC-001-a-final-0aa0aa-1
mkdir -p "$sessions/$cp_dir" "$sessions/my-notes" "$p/.orchestration/pruning/half-gone" "$p/.orchestration/discarded/SPC-001-a/x"
printf '{"id":"%s","task":"verify-final","question":"Approve?","run":"0aa0aa","spec":"SPC-001-a","asker":"orchestrator","opened_at":"2026-01-01T00:00:00.000Z"}\n' \
  "$cp_dir" >"$sessions/$cp_dir/checkpoint.json"
echo keep >"$sessions/my-notes/notes.txt"
head -c 5000 /dev/zero >"$p/.orchestration/discarded/SPC-001-a/x/out.txt"
rows_before=$(sqlite3 "$p/.orchestration/harness.db" "SELECT count(*) FROM sessions")

# Invalid input, and a project a run holds: exit 2 / 1, nothing removed.
rc=0; (cd "$p" && "$cli" prune --keep-runs -1) >/dev/null 2>"$tmp/bad.err" || rc=$?
[[ $rc -eq 2 && $(cat "$tmp/bad.err") == *"-1 not in range 0 to 1000000"* ]] || fail "--keep-runs -1 exited $rc: $(cat "$tmp/bad.err")"
# A mistyped --project is no empty project: exit 2, and --json still gets an object.
rc=0; out=$("$cli" prune --project "$p/no-such-dir" --json 2>/dev/null) || rc=$?
[[ $rc -eq 2 && $out == '{"error":"--project '"$p"'/no-such-dir is not a directory"}' ]] || fail "prune in a missing project: rc $rc, $out"
hold_run_lock "$p"
rc=0; (cd "$p" && "$cli" prune) >/dev/null 2>"$tmp/held.err" || rc=$?
[[ $rc -eq 1 ]] || fail "prune beside a running orchestrate exited $rc"
grep -q "an orchestrate is running in this project (pid $holder" "$tmp/held.err" || fail "the run is not named: $(cat "$tmp/held.err")"
kill "$holder"; wait "$holder" 2>/dev/null || true
[[ -d $sessions/$a_done ]] || fail "a refused prune removed something"

# --dry-run says what would go and why the rest stays, and removes nothing.
(cd "$p" && "$cli" prune --dry-run --json) >"$tmp/dry.json" || fail "prune --dry-run failed"
python3 - "$tmp/dry.json" "$a_done" "$a_fail2" "$a_live" "$b_done" "$cp_dir" <<'PY' || fail "dry run: $(cat "$tmp/dry.json")"
import json, sys
r = json.load(open(sys.argv[1]))
a_done, a_fail2, a_live, b_done, cp = sys.argv[2:]
assert r["dry_run"] is True and r["keep_runs"] == 1, r
assert r["removed"] == [a_done], r["removed"]
assert r["kept"] == {"running": [a_live], "waiting": [cp], "recent_run": [b_done], "last_failure": [a_fail2],
                     "unknown": ["my-notes"]}, r["kept"]
assert r["runs"] == 3 and r["failed"] == [] and r["discarded_bytes"] >= 5000, r  # disk space, as du counts
assert r["removed_bytes"] > 0, r
PY
[[ -d $sessions/$a_done ]] || fail "--dry-run removed a directory"
(cd "$p" && "$cli" prune --dry-run) >"$tmp/dry.txt"
grep -qx "would remove .orchestration/sessions/$a_done" "$tmp/dry.txt" || fail "dry run text: $(cat "$tmp/dry.txt")"

# The real thing.
(cd "$p" && "$cli" prune) >"$tmp/prune.txt" || fail "prune failed: $(cat "$tmp/prune.txt")"
grep -q "^removed 1 session directory (.* KB) of 3 runs; kept 5: 1 of the newest run (--keep-runs), 1 of workers that may still run, 1 with a question or an answer not read yet, 1 the last, failed attempt of a task, 1 the store does not know$" \
  "$tmp/prune.txt" || fail "prune text: $(cat "$tmp/prune.txt")"
grep -q "discarded/ holds [0-9.]* KB" "$tmp/prune.txt" || fail "discarded/ not mentioned: $(cat "$tmp/prune.txt")"
[[ ! -e $sessions/$a_done ]] || fail "$a_done was not removed"
for d in "$a_fail2" "$a_live" "$b_done" "$cp_dir" my-notes; do [[ -d $sessions/$d ]] || fail "$d was removed"; done
[[ ! -e $p/.orchestration/pruning ]] || fail "an interrupted prune's leftovers stay"
[[ -f $p/.orchestration/discarded/SPC-001-a/x/out.txt ]] || fail "discarded/ was touched"
[[ $(sqlite3 "$p/.orchestration/harness.db" "SELECT count(*) FROM sessions") -eq $rows_before ]] || fail "store rows removed"
st=$(cd "$p" && "$cli" status "$a" 2>&1 || true)
[[ $st == *"$a_fail2/output.log"* ]] || fail "status does not point at the kept log: $st"

# The worker ends: its directory goes with --keep-runs 0, and the newest run's too; what still
# matters stays.
kill "$live"; wait "$live" 2>/dev/null || true
(cd "$p" && "$cli" prune --keep-runs 0 --json) >"$tmp/zero.json" || fail "prune --keep-runs 0 failed"
python3 - "$tmp/zero.json" "$a_live" "$b_done" "$a_fail2" "$cp_dir" <<'PY' || fail "keep-runs 0: $(cat "$tmp/zero.json")"
import json, sys
r = json.load(open(sys.argv[1]))
a_live, b_done, a_fail2, cp = sys.argv[2:]
assert r["dry_run"] is False and sorted(r["removed"]) == sorted([a_live, b_done]), r["removed"]
assert r["kept"]["last_failure"] == [a_fail2] and r["kept"]["waiting"] == [cp] and r["kept"]["unknown"] == ["my-notes"], r
PY

# 01-02 fixed: the next run of spec A completes; then its failed attempt is no longer the last one.
plan=$p/$a/planning/plans/01-core/01-02-PLAN.md
sed -i 's|^exit 3$|mkdir -p out \&\& echo 01-02 > out/01-02.txt|' "$plan"
(cd "$p" && git commit -qam "fix 01-02" && "$cli" redo "$a" 01-02 >/dev/null 2>&1 || true)
(cd "$p" && "$cli" orchestrate "$a" --worker script) >"$tmp/a2.out" 2>&1 || fail "the fixed run: $(cat "$tmp/a2.out")"
(cd "$p" && "$cli" prune --keep-runs 0 --json) >"$tmp/after.json" || fail "prune after the fix failed"
python3 - "$tmp/after.json" "$a_fail2" <<'PY' || fail "after the fix: $(cat "$tmp/after.json")"
import json, sys
r = json.load(open(sys.argv[1]))
assert sys.argv[2] in r["removed"], r
assert r["kept"]["last_failure"] == [], r
PY
[[ $run_a =~ ^[0-9a-f]{6}$ ]] || fail "session ids do not end with the run id: $a_done"
# A .orchestration/ a person made for config.yaml, before any run: prune's lock files get the
# directory's .gitignore first, and `git status` stays clean (review II F10).
q=$tmp/q
file_plans_project "$q" "$a" "Q" 01-01
rm -rf "$q/.orchestration" && mkdir "$q/.orchestration" && printf 'slots: 2\n' >"$q/.orchestration/config.yaml"
(cd "$q" && git add -A && git commit -qm "config" && git rm -q --cached .orchestration/config.yaml && git commit -qm untrack)
(cd "$q" && "$cli" prune) >/dev/null 2>&1 || fail "prune in a project that never ran"
[[ -f $q/.orchestration/.gitignore ]] || fail "prune left .orchestration/ without its .gitignore: $(ls -a "$q/.orchestration")"
st=$(git -C "$q" status --porcelain)
[[ -z $st ]] || fail "git status after prune: $st"
echo "PASS test_prune"
