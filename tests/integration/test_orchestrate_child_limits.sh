#!/usr/bin/env bash
# harness-cli raises its soft limit on open files to the hard one (at most 65536); what it starts
# (workers, their script blocks, checks, git) gets back the soft limit harness-cli started with: a
# program that uses select() fails with a descriptor at 1024 or above.
set -euo pipefail
cli=${HARNESS_CLI:?}
src=${HARNESS_SOURCE_DIR:?}
source "$src/tests/integration/lib/project.sh"
project_tmp
spec=docs/specs/SPC-001-limits
[[ $(ulimit -Hn) == unlimited || $(ulimit -Hn) -gt 512 ]] || { echo "hard limit on open files too low to test: skipped"; exit 0; }

p=$tmp/limits
file_plans_project "$p" "$spec" Limits 01-01
# The block writes its own soft limit and its parent's (the script worker, a harness-cli); the
# check passes only when its command, too, runs under 512.
plan_runs "$p/$spec" 01-01 'mkdir -p out && { ulimit -Sn; awk '"'"'/^Max open files/ {print $4}'"'"' /proc/$PPID/limits; } > out/01-01.txt'
python3 - "$p/$spec/planning/plans/01-core/01-01-PLAN.md" <<'PY'
import sys
path = sys.argv[1]
text = open(path).read()
check = "  - id: limit\n    type: command_output\n    shell: true\n    command: \"test $(ulimit -Sn) -eq 512\"\n    expects: {exit_code: 0}\n"
text = text.replace("must_pass:\n", "must_pass:\n" + check, 1)
open(path, "w").write(text)
PY
(cd "$p" && git add -A && git commit -qm plan)
set +e
out=$(cd "$p" && bash -c 'ulimit -Sn 512 && exec "$@"' - "$cli" orchestrate "$spec" --worker script --yes 2>&1); rc=$?
set -e
[[ $rc -eq 0 ]] || fail "orchestrate exited $rc: $out"
read -r -d '' block parent <"$p/out/01-01.txt" || true
[[ $block == 512 ]] || fail "a script block got soft limit $block, not the 512 harness-cli started with"
[[ $parent -gt 512 ]] || fail "the script worker (harness-cli) did not raise its own limit: $parent"
echo "orchestrate child limits: all checks passed"
