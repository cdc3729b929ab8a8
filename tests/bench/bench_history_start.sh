#!/usr/bin/env bash
# How long `orchestrate` takes to start in a repository with a long history, with the trailer
# index an earlier run kept (.orchestration/trailer-index.json) and without it (the whole history
# read). Builds repositories of N commits with git fast-import, runs a 2-plan spec once with the
# script worker, then times runs of the finished spec (a start, recovery, the final look, no
# task), alternating kept / removed.
#   tests/bench/bench_history_start.sh [HARNESS_CLI] [COMMITS...]   (default 20000 200000)
set -euo pipefail
cli=$(realpath "${1:-build/release/bin/harness-cli}")
shift || true
counts=("$@")
[[ ${#counts[@]} -gt 0 ]] || counts=(20000 200000)
runs=5
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

make_history() { # dir commits
  python3 - "$1" "$2" <<'PY'
import os, subprocess, sys
root, n = sys.argv[1], int(sys.argv[2])
os.makedirs(root); os.chdir(root)
subprocess.run(["git", "init", "-q", "-b", "main"], check=True)
p = subprocess.Popen(["git", "fast-import", "--quiet"], stdin=subprocess.PIPE)
w = p.stdin.write
def data(b): w(b"data %d\n" % len(b)); w(b); w(b"\n")
t = 1600000000
w(b"commit refs/heads/main\nmark :1\ncommitter Bench <b@example.com> %d +0000\n" % t); data(b"initial")
for i in range(400):
    w(b"M 100644 inline lib/d%02d/f%03d.c\n" % (i // 20, i)); data(b"int f%d;\n" % i)
for c in range(2, n + 1):
    t += 60
    w(b"commit refs/heads/main\nmark :%d\ncommitter Bench <b@example.com> %d +0000\n" % (c, t))
    data(b"change %d\n\nbody of commit %d\n" % (c, c)); w(b"from :%d\n" % (c - 1))
    i = (c * 7919) % 400
    w(b"M 100644 inline lib/d%02d/f%03d.c\n" % (i // 20, i)); data(b"int f%d; /* %d */\n" % (i, c))
p.stdin.close(); p.wait()
subprocess.run(["git", "checkout", "-q", "-f", "main"], check=True)
PY
}

write_plan() { # spec id dir
  local file="$1/planning/plans/01-base/$2-PLAN.md"
  mkdir -p "$(dirname "$file")"
  cat > "$file" <<PLAN
---
plan_id: '$2'
phase: 1
plan: ${2#01-}
type: execute
depends_on: []
files_modified: ['$3/**']
must_pass:
  - id: written
    type: file_contains
    path: $3/new.txt
    pattern: 'by $2'
---
# $2: a file in $3

### Task 1: write it

\`\`\`sh
echo 'by $2' > $3/new.txt
\`\`\`
PLAN
}

# Wall seconds of a run that succeeds; a failed run is no figure: say so and stop.
seconds() {
  if ! /usr/bin/time -o "$work/t" -f "%e" "$@" >"$work/out" 2>&1; then
    echo "bench_history_start: a run failed: $*" >&2
    tail -5 "$work/out" >&2
    exit 1
  fi
  tail -1 "$work/t"
}

echo "orchestrate start of a finished 2-plan spec, wall seconds ($runs runs each; $(nproc) cores)"
printf '%-10s %-28s %-28s\n' commits "index kept" "whole history read"
for n in "${counts[@]}"; do
  repo="$work/h$n"
  make_history "$repo" "$n"
  cd "$repo"
  git config user.name Bench && git config user.email b@example.com
  "$cli" init --spec hist >/dev/null
  spec=docs/specs/SPC-001-hist
  rm -rf "$spec/planning/plans"
  cat > "$spec/ROADMAP.md" <<'ROAD'
# Roadmap: hist

## Phase 1: base
**Goal**: two files.
**Depends on**: nothing

Plans:
- [ ] 01-01: a file in lib/d01
- [ ] 01-02: a file in lib/d02
ROAD
  write_plan "$spec" 01-01 lib/d01
  write_plan "$spec" 01-02 lib/d02
  git add -A && git commit -qm spec
  "$cli" orchestrate "$spec" --worker script --yes >/dev/null 2>&1 || { echo "the first run failed" >&2; exit 1; }
  "$cli" orchestrate "$spec" --worker script --yes >/dev/null 2>&1 # the index now reaches the run's commits
  kept=() whole=()
  for ((i = 0; i < runs; i++)); do
    kept+=("$(seconds "$cli" orchestrate "$spec" --worker script --yes)")
    rm -f .orchestration/trailer-index.json
    whole+=("$(seconds "$cli" orchestrate "$spec" --worker script --yes)")
  done
  printf '%-10s %-28s %-28s\n' "$n" "${kept[*]}" "${whole[*]}"
  cd "$work" && rm -rf "$repo"
done
