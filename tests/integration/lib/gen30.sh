# gen30 DIR: a 30-plan spec (3 phases x 10; 02-k after 01-k, 03-k after 02-k), two tasks each,
# each task appending one line, so a task applied twice shows. The first task sleeps 0.5 s so
# that a run lasts long enough to be killed 30 times (with 0.2 s a quiet machine once finished
# the run after 25 kills).
gen30() {
  local s=$1/docs/specs/SPC-030-crash
  mkdir -p "$s"
  printf '# Crash\n\nThirty plans.\n' >"$s/SPEC.md"
  for ph in 1 2 3; do
    mkdir -p "$s/planning/plans/0$ph-p"
    for k in $(seq -w 1 10); do
      id=0$ph-$k
      deps="[]"
      [[ $ph -gt 1 ]] && deps="['0$((ph - 1))-$k']"
      cat >"$s/planning/plans/0$ph-p/$id-PLAN.md" <<PLAN
---
plan_id: '$id'
depends_on: $deps
files_modified: ['out/$id.txt']
must_pass:
  - id: once
    type: command_output
    shell: true
    command: "test \$(wc -l < out/$id.txt) -eq 2"
    expects: {exit_code: 0}
---
# $id

### Task 1: first line

\`\`\`bash
mkdir -p out && sleep 0.5 && echo "$id first" >> out/$id.txt
\`\`\`

### Task 2: second line

\`\`\`bash
echo "$id second" >> out/$id.txt
\`\`\`
PLAN
    done
  done
  (cd "$1" && git init -q && git add -A && git commit -qm init)
}
