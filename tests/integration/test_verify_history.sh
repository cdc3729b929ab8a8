#!/usr/bin/env bash
# A repository git cannot read here (another user owns it and safe.directory does not list it; a
# repository format this git does not know) or only partly (a shallow clone): every git command
# fails, or the plans' commits lie beyond the clone's boundary. verify must not record that as
# gaps: it says git's reason (exit 1) and writes no VERIFICATION file; orchestrate's preflight
# names the refusal and git's own fix instead of advising `git init`, and refuses a run in a
# shallow clone whose verifications would need commits beyond its boundary.
set -euo pipefail
cli=${HARNESS_CLI:?}
src=${HARNESS_SOURCE_DIR:?}
source "$src/tests/integration/lib/project.sh"
project_tmp
export GIT_CONFIG_GLOBAL=$tmp/gitconfig # no safe.directory of the machine's own: git refuses as for a user
touch "$GIT_CONFIG_GLOBAL"
spec=docs/specs/SPC-001-history
p=$tmp/p
s=$p/$spec
file_plans_project "$p" "$spec" History 01-01 01-02
(cd "$p" && "$cli" orchestrate "$spec" --worker script --yes >"$tmp/run.out" 2>&1) || { cat "$tmp/run.out"; fail "first run"; }
report=$s/execution/phases/01-core/VERIFICATION.md
grep -q "^status: passed" "$report" || fail "the first run's phase report is not passed"
cp "$report" "$tmp/report.before"

# refused DESCRIPTION: verify and orchestrate while git refuses the repository.
refused() {
  set +e
  out=$(cd "$p" && "$cli" verify "$spec" 01-01 2>&1); rc=$?
  set -e
  [[ $rc -eq 1 ]] || fail "$1: verify 01-01 exited $rc: $out"
  [[ "$out" == *"git cannot read the repository at $p"* && "$out" == *"$2"* ]] || fail "$1: verify 01-01 said: $out"
  [[ "$out" != *"no commit carries"* ]] || fail "$1: a refused git read as missing commits: $out"
  set +e
  out=$(cd "$p" && "$cli" verify "$spec" --phase 1 2>&1); rc=$?
  set -e
  [[ $rc -eq 1 && "$out" == *"$2"* ]] || fail "$1: verify --phase 1 exited $rc: $out"
  cmp -s "$report" "$tmp/report.before" || fail "$1: verify --phase rewrote VERIFICATION.md: $(head -5 "$report")"
  set +e
  out=$(cd "$p" && "$cli" orchestrate "$spec" --worker script --yes 2>&1); rc=$?
  set -e
  [[ $rc -eq 2 ]] || fail "$1: orchestrate exited $rc: $out"
  [[ "$out" == *"git refuses the repository of $p"* && "$out" == *"$3"* ]] || fail "$1: preflight said: $out"
  [[ "$out" != *"git init"* ]] || fail "$1: the preflight advises git init: $out"
}

# A repository format this git does not know.
sed -i 's/repositoryformatversion = 0/repositoryformatversion = 99/' "$p/.git/config"
refused "unknown format" "Expected git repo version <= 1" "make git read it again"
sed -i 's/repositoryformatversion = 99/repositoryformatversion = 0/' "$p/.git/config"
# Another user's repository ("dubious ownership"); only root can hand it to another uid.
if [[ $(id -u) -eq 0 ]]; then
  chown -R 12345:12345 "$p"
  refused "dubious ownership" "detected dubious ownership" "git config --global --add safe.directory $p"
  chown -R 0:0 "$p"
fi
(cd "$p" && "$cli" verify "$spec" 01-01 >/dev/null) || fail "verify after git reads the repository again"

# A shallow clone (CI's default): the plans' commits lie beyond its boundary. verify says so and
# writes no report; the whole history makes it pass again.
(cd "$p" && git commit -q --allow-empty -m "after the run")
git clone -q --depth 1 "file://$p" "$tmp/ci"
set +e
out=$(cd "$tmp/ci" && "$cli" verify "$spec" --phase 1 2>&1); rc=$?
set -e
[[ $rc -eq 1 ]] || fail "shallow: verify --phase 1 exited $rc: $out"
[[ "$out" == *"not readable here: the clone is shallow"* && "$out" == *"git fetch --unshallow"* ]] || fail "shallow: $out"
[[ "$out" != *"no commit carries"* && "$out" != *"gaps_found"* ]] || fail "shallow: read as gaps: $out"
[[ -z "$(git -C "$tmp/ci" status --porcelain)" ]] || fail "shallow: verify wrote $(git -C "$tmp/ci" status --porcelain)"

# orchestrate in a shallow clone: with nothing left to do it says complete; with a new plan its
# verifications would read the earlier plans' commits as missing, so it refuses to start.
git clone -q --depth 2 "file://$p" "$tmp/ci2"
(cd "$tmp/ci2" && "$cli" orchestrate "$spec" --worker script --yes >"$tmp/ci2.out" 2>&1) ||
  fail "shallow, nothing to do: orchestrate failed: $(cat "$tmp/ci2.out")"
core_plan "$tmp/ci2/$spec" 01-03
(cd "$tmp/ci2" && git add -A && git commit -qm "plan 01-03")
set +e
out=$(cd "$tmp/ci2" && "$cli" orchestrate "$spec" --worker script --yes 2>&1); rc=$?
set -e
[[ $rc -eq 2 ]] || fail "shallow, a new plan: orchestrate exited $rc: $out"
[[ "$out" == *"the clone is shallow and holds no commit of 2 executed plans (01-01, 01-02)"* &&
   "$out" == *"fix: git fetch --unshallow"* ]] || fail "shallow, a new plan: preflight said: $out"
[[ ! -e "$tmp/ci2/out/01-03.txt" && -z "$(git -C "$tmp/ci2" status --porcelain)" ]] ||
  fail "shallow, a new plan: the run started: $(git -C "$tmp/ci2" status --porcelain)"
git -C "$tmp/ci2" fetch -q --unshallow
(cd "$tmp/ci2" && "$cli" orchestrate "$spec" --worker script --yes >"$tmp/ci2.out" 2>&1) ||
  fail "orchestrate after git fetch --unshallow: $(cat "$tmp/ci2.out")"
git -C "$tmp/ci" fetch -q --unshallow
(cd "$tmp/ci" && "$cli" verify "$spec" --phase 1 >/dev/null) || fail "verify after git fetch --unshallow"
echo "verify history: all checks passed"
