#!/usr/bin/env bash
# harness-cli validate / graph / status run as processes on the example spec and on bad input:
# exit codes, stdout/stderr separation, JSON shapes.
set -euo pipefail
cli=${HARNESS_CLI:?}
src=${HARNESS_SOURCE_DIR:?}
example=$src/examples/specs/SPC-001-task-tracker
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# validate: valid example → exit 0, summary on stdout, nothing on stderr
"$cli" validate "$example" >"$tmp/out" 2>"$tmp/err" || fail "validate example exited $?"
grep -q "12 plans in 4 phases, 0 errors" "$tmp/out" || fail "validate summary: $(cat "$tmp/out")"
[[ ! -s "$tmp/err" ]] || fail "validate wrote to stderr: $(cat "$tmp/err")"

# validate --json
"$cli" validate "$example" --json >"$tmp/v.json"
python3 - "$tmp/v.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
assert j["valid"] is True and j["plans"] == 12 and j["diagnostics"] == [], j
PY

# validate on a corpus case → exit 2, diagnostic with caret on stderr
set +e
"$cli" validate "$src/tests/corpus/cycle-two" >"$tmp/out" 2>"$tmp/err"
code=$?
set -e
[[ $code -eq 2 ]] || fail "validate cycle-two exited $code, expected 2"
grep -q "error\[H009\]: dependency cycle: 01-01 -> 01-02 -> 01-01" "$tmp/err" || fail "cycle diagnostic: $(cat "$tmp/err")"
grep -q "^ *\^$" "$tmp/err" || fail "no caret line"

set +e
"$cli" validate "$src/tests/corpus/unknown-dependency" --json >"$tmp/bad.json"
code=$?
set -e
[[ $code -eq 2 ]] || fail "validate --json on a bad spec exited $code"
python3 - "$tmp/bad.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
assert j["valid"] is False
d = [x for x in j["diagnostics"] if x["code"] == "H007"][0]
assert d["file"] == "planning/plans/01-core/01-02-PLAN.md" and d["line"] == 3 and d["severity"] == "error", d
assert set(d) == {"file", "line", "col", "severity", "code", "message"}, d
PY

# a directory that does not exist, or bad flags → 2
set +e
"$cli" validate "$tmp/nope" 2>/dev/null; [[ $? -eq 2 ]] || fail "missing dir should exit 2"
"$cli" graph "$example" --format png 2>/dev/null; [[ $? -eq 2 ]] || fail "bad --format should exit 2"
err=$("$cli" frobnicate 2>&1); [[ $? -eq 2 ]] || fail "unknown subcommand should exit 2"
[[ $err == "harness-cli: error: unknown command 'frobnicate'; the commands are: validate graph status"* ]] \
  || fail "unknown subcommand, not named: $err"
set -e

# graph in every format
# phase 4's ROADMAP "Depends on: Phase 2, Phase 3" is drawn and on the critical path, as simulate counts it
grep -q "critical path: 01-01 -> 01-02 -> 03-01 -> 03-02 -> 03-03 -> 04-01 -> 04-02$" <<<"$("$cli" graph "$example")" ||
  fail "graph text: $("$cli" graph "$example")"
grep -q "^  phase 03 -> phase 04$" <<<"$("$cli" graph "$example")" || fail "graph text: no phase edge"
"$cli" graph "$example" --format json | python3 -c 'import json,sys; j=json.load(sys.stdin); assert ["02-01","02-02"] in j["conflicts"], j["conflicts"]'
grep -q '"01-01" -> "01-02";' <<<"$("$cli" graph "$example" --format dot)" || fail "graph dot"
grep -q 'lhead="cluster_04"' <<<"$("$cli" graph "$example" --format dot)" || fail "graph dot: no phase edge"
grep -q '^graph LR' <<<"$("$cli" graph "$example" --format mermaid)" || fail "graph mermaid"

# status on a copy whose first plan has a SUMMARY
cp -r "$example" "$tmp/spec"
mkdir -p "$tmp/spec/execution/phases/01-foundation"
printf -- "---\nplan_id: '01-01'\nstatus: complete\nverification: passed\n---\n" >"$tmp/spec/execution/phases/01-foundation/01-01-SUMMARY.md"
"$cli" status "$tmp/spec" >"$tmp/status.txt"
grep -q "1/12 plans verified" "$tmp/status.txt" || fail "status text: $(cat "$tmp/status.txt")"
grep -q "Ready now: 01-02, 01-03, 01-04" "$tmp/status.txt" || fail "ready now: $(grep Ready "$tmp/status.txt")"
"$cli" status "$tmp/spec" --json | python3 -c '
import json,sys; j=json.load(sys.stdin)
assert j["plans_verified"] == 1 and j["plans_total"] == 12, j
assert j["ready"] == ["01-02", "01-03", "01-04"], j["ready"]'
rc=0; "$cli" status "$tmp/spec" --lookahead -1 >/dev/null 2>&1 || rc=$?
[[ $rc -eq 2 ]] || fail "status --lookahead -1 must exit 2, got $rc"

# status --lookahead unlimited (documented, as orchestrate's): no phase gate, yet phase 4's first plan
# (no depends_on) is not ready: ROADMAP says phase 4 depends on phases 2 and 3, whose plans are not
# verified, and status says so
"$cli" status "$tmp/spec" --lookahead unlimited >"$tmp/status.txt" || fail "status --lookahead unlimited exited $?"
grep -q "Ready now: 01-02, 01-03, 01-04$" "$tmp/status.txt" || fail "unlimited ready now: $(grep Ready "$tmp/status.txt")"
grep -q "04-01 .* planned  (waits for the plans of phases 02, 03, ROADMAP Depends on)" "$tmp/status.txt" ||
  fail "unlimited: 04-01 does not say why it waits: $(grep 04-01 "$tmp/status.txt")"
rc=0; "$cli" status "$tmp/spec" --lookahead sometimes >/dev/null 2>"$tmp/err" || rc=$?
[[ $rc -eq 2 ]] && grep -q "from 0 to 16 or 'unlimited'" "$tmp/err" || fail "status --lookahead sometimes: rc $rc, $(cat "$tmp/err")"

# graph --json is --format json ("read commands accept --json"); both at once are refused
"$cli" graph "$example" --json | python3 -c 'import json,sys; j=json.load(sys.stdin); assert ["02-01","02-02"] in j["conflicts"], j'
rc=0; "$cli" graph "$example" --json --format dot >/dev/null 2>&1 || rc=$?
[[ $rc -eq 2 ]] || fail "graph --json --format dot exited $rc"

# validate: plans saved under names harness never reads are warned about (H027, the spec stays
# valid); 01-2-PLAN.md would be read as 01-02 but opened as 01-02-PLAN.md by workers: H018
cp -r "$example" "$tmp/misnamed"
phase1=$tmp/misnamed/planning/plans/01-foundation
[[ -d $phase1 ]] || fail "example layout changed: no $phase1"
cp "$phase1/01-04-PLAN.md" "$phase1/01-04-plan.md"
printf 'draft\n' >"$phase1/plan-05.md"
"$cli" validate "$tmp/misnamed" >"$tmp/out" 2>"$tmp/err" || fail "validate with warnings only exited $?: $(cat "$tmp/err")"
grep -q "^planning/plans/01-foundation/01-04-plan.md: warning\[H027\]: '01-04-plan.md' is not read" "$tmp/out" ||
  fail "H027 for 01-04-plan.md: $(cat "$tmp/out")"
grep -q "^planning/plans/01-foundation/plan-05.md: warning\[H027\]" "$tmp/out" || fail "H027 for plan-05.md: $(cat "$tmp/out")"
mv "$phase1/01-04-plan.md" "$phase1/01-4-PLAN.md"
rc=0; "$cli" validate "$tmp/misnamed" >"$tmp/out" 2>"$tmp/err" || rc=$?
[[ $rc -eq 2 ]] || fail "validate with 01-4-PLAN.md exited $rc"
grep -q "01-4-PLAN.md: error\[H018\]: .*name it 01-04-PLAN.md" "$tmp/err" || fail "H018 for 01-4-PLAN.md: $(cat "$tmp/err")"

# simulate: a ROADMAP phase without plans is named as not predictable (text and JSON)
cp -r "$example" "$tmp/unplanned"
printf '\n## Phase 5: Notifications\n**Goal**: Tell people.\n**Depends on**: Phase 4\n' >>"$tmp/unplanned/ROADMAP.md"
out=$("$cli" simulate "$tmp/unplanned")
[[ $out == *"note: phase 05 has no plans yet: its execution cannot be predicted"* ]] || fail "simulate note: $out"
"$cli" simulate "$tmp/unplanned" --json | python3 -c 'import json,sys; j=json.load(sys.stdin); assert j["unplanned_phases"] == ["05"], j["unplanned_phases"]'
out=$("$cli" simulate "$example")
[[ $out != *"note: phase"* ]] || fail "a fully planned spec got a note: $out"

# simulate --durations: an id that names no plan is an error with file, line and column (exit 2)
printf '{\n  "01-01": 10,\n  "09-09": 5\n}\n' >"$tmp/durations.json"
rc=0; "$cli" simulate "$example" --durations "$tmp/durations.json" >"$tmp/out" 2>"$tmp/err" || rc=$?
[[ $rc -eq 2 ]] || fail "simulate with an unknown duration id exited $rc"
grep -q "durations.json:3:3: error\[H302\]: no plan '09-09' in the spec" "$tmp/err" || fail "H302: $(cat "$tmp/err")"
[[ ! -s "$tmp/out" ]] || fail "simulate printed a result despite the error: $(cat "$tmp/out")"
printf '{"01-01": 10, "03-02": 45}\n' >"$tmp/durations.json"
"$cli" simulate "$example" --durations "$tmp/durations.json" --json >/dev/null || fail "valid durations exited $?"

# respond --list --json: an object even when nothing waits, in any directory
(cd "$tmp" && "$cli" respond --list --json) | python3 -c 'import json,sys; assert json.load(sys.stdin) == {"checkpoints": []}'
# --json on failure: stdout still carries one JSON object (the error, or the validation result of
# an invalid spec), stderr the text; a command-line mistake reads like our other errors.
for cmd in validate status graph simulate verify; do
  rc=0; "$cli" $cmd "$tmp/no-such-spec" --json >"$tmp/out" 2>"$tmp/err" || rc=$?
  [[ $rc -eq 2 ]] || fail "$cmd --json on a missing spec exited $rc"
  python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert "no such directory" in j["error"], j' "$tmp/out" ||
    fail "$cmd --json on a missing spec: $(cat "$tmp/out")"
  grep -q "^harness-cli: error: .*no such directory" "$tmp/err" || fail "$cmd: $(cat "$tmp/err")"
done
rc=0; "$cli" status "$src/tests/corpus/unknown-dependency" --json >"$tmp/out" 2>"$tmp/err" || rc=$?
[[ $rc -eq 2 ]] || fail "status --json on an invalid spec exited $rc"
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["valid"] is False and j["diagnostics"], j' "$tmp/out" ||
  fail "status --json on an invalid spec: $(cat "$tmp/out")"
rc=0; (cd "$tmp" && "$cli" orchestrate "$tmp/no-such-spec" --worker script --json) >"$tmp/out" 2>"$tmp/err" || rc=$?
[[ $rc -eq 2 ]] || fail "orchestrate --json on a missing spec exited $rc"
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["event"] == "run_refused" and j["exit_code"] == 2, j' "$tmp/out" ||
  fail "orchestrate --json refusal: $(cat "$tmp/out")"
# A dependency cycle through the ROADMAP (H036) is a validation error like any other: validate
# and orchestrate refuse the spec with exit 2, before anything is written.
cp -r "$src/tests/corpus/roadmap-cycle" "$tmp/roadmap-cycle"
rc=0; "$cli" validate "$tmp/roadmap-cycle" >"$tmp/out" 2>"$tmp/err" || rc=$?
[[ $rc -eq 2 ]] || fail "validate on a ROADMAP cycle exited $rc"
grep -q "02-01-PLAN.md:3:23: error\[H036\]: dependency cycle through the ROADMAP: 02-01 -> 03-01 -> phase 02's plans -> 02-01" \
  "$tmp/err" || fail "ROADMAP cycle: $(cat "$tmp/err")"
rc=0; (cd "$tmp" && "$cli" orchestrate "$tmp/roadmap-cycle" --worker script --json) >"$tmp/out" 2>"$tmp/err" || rc=$?
[[ $rc -eq 2 ]] || fail "orchestrate on a ROADMAP cycle exited $rc: $(cat "$tmp/err")"
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["event"] == "run_refused" and "H036" in j["error"], j' "$tmp/out" ||
  fail "orchestrate refusal of a ROADMAP cycle: $(cat "$tmp/out")"
[[ ! -e "$tmp/.orchestration" ]] || fail "orchestrate wrote its state for a spec it refused"
rc=0; "$cli" validate "$example" --bogus >"$tmp/out" 2>"$tmp/err" || rc=$?
[[ $rc -eq 2 ]] || fail "an unknown flag exited $rc"
grep -q "^harness-cli: error: The following argument was not expected: --bogus" "$tmp/err" || fail "unknown flag: $(cat "$tmp/err")"
[[ ! -s "$tmp/out" ]] || fail "an unknown flag without --json printed on stdout: $(cat "$tmp/out")"
# With --json, a command line that does not parse is an object on stdout too.
rc=0; $cli orchestrate "$example" --json --slots abc >"$tmp/out" 2>"$tmp/err" || rc=$? # the stream's own refusal
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["event"] == "run_refused" and j["exit_code"] == 2 and "abc" in j["error"], j' "$tmp/out" \
  || fail "orchestrate --json --slots abc: rc $rc, $(cat "$tmp/out")"
for bad in "validate $example --json --bogus" "simulate $example --json --slots 0" "status $example --json --lookahead x"; do
  rc=0; $cli $bad >"$tmp/out" 2>"$tmp/err" || rc=$?
  [[ $rc -eq 2 ]] || fail "$bad exited $rc"
  python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert list(j) == ["error"] and j["error"], j' "$tmp/out" \
    || fail "$bad --json: stdout $(cat "$tmp/out")"
done

echo "cli spec commands: all checks passed"
