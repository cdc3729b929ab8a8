#!/usr/bin/env bash
# orchestrate started with git's repository variables in its environment (git sets GIT_DIR and
# GIT_INDEX_FILE for hooks and aliases; vcsh and yadm export GIT_DIR and GIT_WORK_TREE in a shell):
# harness finds the project's repository itself, so its commits go there and its real index is
# left clean, and a note says which variables it ignored.
set -euo pipefail
cli=${HARNESS_CLI:?}
src=${HARNESS_SOURCE_DIR:?}
source "$src/tests/integration/lib/project.sh"
project_tmp
spec=docs/specs/SPC-001-gitenv
other=$tmp/other
git init -q "$other" && git -C "$other" commit -q --allow-empty -m "other root"

# run NAME VAR=VALUE...: a new project, orchestrated with the variables set.
run() {
  local name=$1
  shift
  p=$tmp/$name
  file_plans_project "$p" "$spec" "Git environment" 01-01 01-02
  (cd "$p" && env "$@" "$cli" orchestrate "$spec" --worker script --yes >"$tmp/$name.out" 2>&1) ||
    { cat "$tmp/$name.out"; fail "$name: orchestrate failed"; }
  grep -q "ignored ${1%%=*}" "$tmp/$name.out" || fail "$name: no note about ${1%%=*}: $(cat "$tmp/$name.out")"
  [[ $(git -C "$p" log --format=%B | grep -c '^Plan: ') -ge 2 ]] || fail "$name: the plans' commits are not in the project"
  [[ -z "$(git -C "$p" status --porcelain)" ]] || fail "$name: git status is not clean: $(git -C "$p" status --porcelain)"
  [[ $(git -C "$other" rev-list --count HEAD) -eq 1 ]] || fail "$name: the other repository got commits"
}

run gitdir "GIT_DIR=$other/.git" "GIT_WORK_TREE=$other"
run indexfile "GIT_INDEX_FILE=$tmp/other-index"
[[ ! -e "$tmp/other-index" ]] || fail "indexfile: the run wrote GIT_INDEX_FILE's index"
echo "orchestrate with git's environment: all checks passed"
