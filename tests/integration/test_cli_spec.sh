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
"$cli" frobnicate 2>/dev/null; [[ $? -eq 2 ]] || fail "unknown subcommand should exit 2"
set -e

# graph in every format
grep -q "critical path: 01-01 -> 01-02 -> 03-01 -> 03-02 -> 03-03" <<<"$("$cli" graph "$example")" || fail "graph text"
"$cli" graph "$example" --format json | python3 -c 'import json,sys; j=json.load(sys.stdin); assert ["02-01","02-02"] in j["conflicts"], j["conflicts"]'
grep -q '"01-01" -> "01-02";' <<<"$("$cli" graph "$example" --format dot)" || fail "graph dot"
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
echo "cli spec commands: all checks passed"
