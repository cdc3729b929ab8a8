#!/usr/bin/env bash
# harness-cli simulate on the example spec: the JSON contract, the policies' order, the lower
# bound, --durations and the exit codes.
set -euo pipefail
cli="${HARNESS_CLI:?}"
spec="${HARNESS_SOURCE_DIR:?}/examples/specs/SPC-001-task-tracker"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

field() { node -e "const d=JSON.parse(require('fs').readFileSync(0,'utf8')); console.log(d['$1'])"; }

for policy in graph waves serial; do
  "$cli" simulate "$spec" --policy "$policy" --json > "$tmp/$policy.json"
done
node - "$tmp" <<'JS'
const fs = require('fs');
const dir = process.argv[2];
const read = (p) => JSON.parse(fs.readFileSync(`${dir}/${p}.json`, 'utf8'));
const g = read('graph'), w = read('waves'), s = read('serial');
for (const key of ['policy', 'slots', 'makespan', 'lower_bound', 'critical_path', 'total_work', 'utilization', 'tasks'])
  if (!(key in g)) throw new Error(`missing key ${key}`);
if (g.policy !== 'graph' || g.slots !== 4 || g.utilization.length !== 4) throw new Error('wrong header');
if (!g.complete) throw new Error('graph run did not complete');
if (g.makespan < g.lower_bound - 1e-9) throw new Error('makespan below the lower bound');
if (!(g.makespan <= w.makespan && g.makespan <= s.makespan)) throw new Error('graph slower than a baseline');
for (const t of g.tasks) {
  if (!t.id || !t.kind || t.slot < 1 || t.slot > 4 || t.end < t.start) throw new Error(`bad task ${JSON.stringify(t)}`);
}
// Slots count from 1, as orchestrate's events do (the range check above refuses a slot 0).
if (!g.tasks.some((t) => t.slot === 1)) throw new Error('no task in slot 1');
// No slot runs two tasks at once.
const bySlot = {};
for (const t of g.tasks) (bySlot[t.slot] ||= []).push(t);
for (const list of Object.values(bySlot)) {
  list.sort((a, b) => a.start - b.start);
  for (let i = 1; i < list.length; ++i)
    if (list[i].start < list[i - 1].end - 1e-9) throw new Error(`overlap in slot: ${list[i - 1].id} ${list[i].id}`);
}
JS

# ROADMAP: phase 4 "Depends on: Phase 2, Phase 3". 04-01 names no plan, yet it executes only after
# every plan of phases 2 and 3 is verified, with the default gate and without one.
"$cli" simulate "$spec" --gate unlimited --json > "$tmp/open.json"
for f in graph open; do
  node - "$tmp/$f.json" <<'JS'
const d = JSON.parse(require('fs').readFileSync(process.argv[2], 'utf8'));
const start = d.tasks.find((t) => t.id === 'execute:04-01').start;
const before = d.tasks.filter((t) => /^verify-plan:0[23]-/.test(t.id));
if (before.length !== 6) throw new Error(`expected 6 plan verifications of phases 2 and 3, got ${before.length}`);
for (const t of before)
  if (t.end > start + 1e-9) throw new Error(`execute:04-01 starts at ${start}, before ${t.id} ends at ${t.end}`);
JS
done

# A longer execute stretches the makespan.
base="$(field makespan < "$tmp/graph.json")"
echo '{"01-01": 500}' > "$tmp/durations.json"
longer="$("$cli" simulate "$spec" --durations "$tmp/durations.json" --json | field makespan)"
node -e "if (!($longer > $base + 400)) { console.error('durations ignored: $base -> $longer'); process.exit(1) }"

# The text output has the figures and a Gantt chart.
"$cli" simulate "$spec" --slots 2 > "$tmp/text.txt"
grep -q "makespan" "$tmp/text.txt"
grep -q "lower bound" "$tmp/text.txt"
grep -q "slot 2 busy" "$tmp/text.txt"
grep -q "execute:01-01 .*|#" "$tmp/text.txt"

# Invalid input: exit 2 with a message on stderr.
echo '[1, 2]' > "$tmp/bad.json"
set +e
"$cli" simulate "$spec" --durations "$tmp/bad.json" > /dev/null 2> "$tmp/err.txt"
code=$?
"$cli" simulate "$tmp/no-such-spec" > /dev/null 2>&1
code2=$?
set -e
[ "$code" -eq 2 ] || { echo "bad durations: exit $code"; exit 1; }
grep -q "durations" "$tmp/err.txt"
[ "$code2" -eq 2 ] || { echo "missing spec: exit $code2"; exit 1; }
# With --json the failure is a JSON object on stdout too.
echo '{"01-01": 1e309, "09-09": 1}' > "$tmp/huge.json"
set +e
json=$("$cli" simulate "$spec" --durations "$tmp/huge.json" --json 2>/dev/null)
code=$?
set -e
[ "$code" -eq 2 ] || { echo "huge durations: exit $code"; exit 1; }
node -e 'const d = JSON.parse(process.argv[1]); if (!d.error || d.diagnostics.map(x => x.code).join() !== "H301,H302") { console.error(d); process.exit(1) }' "$json"
# --seed takes a whole number from 0 to 2^64-1: -1, an overflow and an empty value are refused
# (review FF F10, KK F4: they ran as the largest seed, or with none, without a word).
for bad in -1 99999999999999999999 ""; do
  set +e
  "$cli" simulate "$spec" --seed "$bad" >/dev/null 2>"$tmp/seed.err"
  code=$?
  set -e
  [ "$code" -eq 2 ] || { echo "--seed '$bad': exit $code"; exit 1; }
  grep -q -- "--seed: '$bad' is no seed: a whole number from 0 to 18446744073709551615" "$tmp/seed.err" ||
    { echo "--seed '$bad' said: $(cat "$tmp/seed.err")"; exit 1; }
done
# The project's .orchestration/config.yaml is the run's: simulate predicts with its slots and gate,
# and status's "ready now" uses its gate, unless a flag says otherwise (review RR F3: both used the
# built-in defaults, and STATUS.md, written by orchestrate, disagreed with `status`). Phase 03's
# plan waits on phase 01's verification at the default gate, not with `lookahead: unlimited`.
proj=$tmp/cfg
for id in 01-01 03-01; do
  dir=$proj/docs/specs/SPC-002-g/planning/plans/$([[ $id == 01-* ]] && echo 01-core || echo 03-late)
  mkdir -p "$dir"
  printf -- "---\nplan_id: '%s'\ndepends_on: []\nfiles_modified: ['out/%s.txt']\n---\n# %s\n\n### Task 1: w\n\n\`\`\`bash\necho > out/%s.txt\n\`\`\`\n" \
    "$id" "$id" "$id" "$id" >"$dir/$id-PLAN.md"
done
echo "# G" >"$proj/docs/specs/SPC-002-g/SPEC.md"
git -C "$proj" init -q
ready() { (cd "$proj" && "$cli" status docs/specs/SPC-002-g --json "$@") | node -e "console.log(JSON.parse(require('fs').readFileSync(0,'utf8')).ready.join(','))"; }
[ "$(ready)" = "01-01" ] || { echo "status without config.yaml: ready $(ready)"; exit 1; }
mkdir -p "$proj/.orchestration"
printf 'slots: 1\nlookahead: unlimited\n' >"$proj/.orchestration/config.yaml"
[ "$(ready)" = "01-01,03-01" ] || { echo "status does not use config.yaml's gate: ready $(ready)"; exit 1; }
[ "$(ready --lookahead 1)" = "01-01" ] || { echo "status --lookahead 1 over config.yaml: ready $(ready --lookahead 1)"; exit 1; }
[ "$(cd "$proj" && "$cli" simulate docs/specs/SPC-002-g --json | field slots)" = 1 ] || { echo "simulate does not use config.yaml's slots"; exit 1; }
[ "$(cd "$proj" && "$cli" simulate docs/specs/SPC-002-g --json --slots 3 | field slots)" = 3 ] || { echo "simulate --slots over config.yaml"; exit 1; }
# A config.yaml with errors: said on stderr, the defaults used, the command still answers.
printf 'slots: [\n' >"$proj/.orchestration/config.yaml"
(cd "$proj" && "$cli" status docs/specs/SPC-002-g >"$tmp/badcfg.out" 2>"$tmp/badcfg.err") || { echo "status with a broken config.yaml failed"; exit 1; }
grep -q "warning: .orchestration/config.yaml is not valid; the built-in defaults are used here" "$tmp/badcfg.err" &&
  grep -q "config.yaml:2:1: error\[H201\]" "$tmp/badcfg.err" || { echo "status with a broken config.yaml said: $(cat "$tmp/badcfg.err")"; exit 1; }
grep -q "^Ready now: 01-01$" "$tmp/badcfg.out" || { echo "status with a broken config.yaml: $(cat "$tmp/badcfg.out")"; exit 1; }
echo "simulate: ok"
