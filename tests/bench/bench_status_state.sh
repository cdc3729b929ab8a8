#!/usr/bin/env bash
# `harness-cli status` in a project whose .orchestration/ holds a state database (any project
# after its first run): the example spec is run once with the script worker, then `status` is
# timed RUNS times per binary, the binaries alternating in rounds of 50, through Python's
# subprocess (which adds about 1 ms to each wall figure on this machine; the CPU figure is the
# child's own user + system time). Give a second build to compare two.
#   tests/bench/bench_status_state.sh [HARNESS_CLI] [RUNS] [OTHER_HARNESS_CLI...]   (default 300)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cli=$(realpath "${1:-build/release/bin/harness-cli}")
runs=${2:-300}
shift 2 || shift $#
others=()
for o in "$@"; do others+=("$(realpath "$o")"); done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
spec=docs/specs/SPC-001-task-tracker
mkdir -p "$work/p/docs/specs"
cp -r "$root/examples/specs/SPC-001-task-tracker" "$work/p/docs/specs/"
cd "$work/p"
git init -q
git config user.name bench && git config user.email bench@harness.invalid
git add -A && git commit -qm example
"$cli" orchestrate "$spec" --worker script --yes --slots 4 </dev/null >"$work/run.log" 2>&1 ||
  { echo "the example run failed:"; tail -n 5 "$work/run.log"; exit 1; }
[[ -f .orchestration/harness.db ]] || { echo "no state database after the run"; exit 1; }
python3 - "$spec" "$runs" "$cli" "${others[@]}" <<'PY'
import resource, statistics, subprocess, sys, time
spec, runs, clis = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
wall = {c: [] for c in clis}
cpu = {c: [] for c in clis}
done = 0
while done < runs:
    for c in clis:
        for _ in range(min(50, runs - done)):
            r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            t = time.perf_counter()
            subprocess.run([c, "status", spec], stdout=subprocess.DEVNULL, check=True)
            wall[c].append((time.perf_counter() - t) * 1000)
            r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu[c].append((r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime) * 1000)
    done += min(50, runs - done)
for c in clis:
    w = sorted(wall[c])
    print(f"status with a state database, {runs} runs: wall median {statistics.median(w):.2f} ms, "
          f"p95 {w[int(len(w) * 0.95) - 1]:.2f} ms; CPU median {statistics.median(cpu[c]):.2f} ms  ({c})")
PY
