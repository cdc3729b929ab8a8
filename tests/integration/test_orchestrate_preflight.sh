#!/usr/bin/env bash
# `harness-cli orchestrate` refuses to start what would fail part-way: a project that is not a git
# repository, a git without an identity to commit with, commits git cannot sign, a merge waiting to be finished, spec
# documents a .gitignore rule hides, a worker program that is not there, a command worker without
# a template, a limit on open files too low for --slots. Each is reported before anything is written (no
# .orchestration/ state, STATUS.md unchanged, nothing staged), all of them at once, each with a
# fix, and the exit code is 2.
set -euo pipefail
cli=${HARNESS_CLI:?}
src=${HARNESS_SOURCE_DIR:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
spec=docs/specs/SPC-001-task-tracker
ident=(-c user.name=t -c user.email=t@example.com) # for the test's own commits only

new_project() { # dir [git]
  mkdir -p "$1/docs/specs"
  cp -r "$src/examples/specs/SPC-001-task-tracker" "$1/docs/specs/"
  if [[ ${2:-} == git ]]; then
    (cd "$1" && git init -q && git add -A && git "${ident[@]}" commit -qm init)
  fi
}

# Git with no identity at all: no config files, no identity variables. user.useConfigOnly (set
# through the environment) stops git from guessing an address from a host name that has a
# domain, so the test means the same on every machine.
no_identity() {
  mkdir -p "$tmp/home"
  env -u GIT_AUTHOR_NAME -u GIT_AUTHOR_EMAIL -u GIT_COMMITTER_NAME -u GIT_COMMITTER_EMAIL -u EMAIL \
    HOME="$tmp/home" XDG_CONFIG_HOME="$tmp/home/.config" GIT_CONFIG_NOSYSTEM=1 \
    GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=user.useConfigOnly GIT_CONFIG_VALUE_0=true "$@"
}

# A PATH with git and the usual tools but no claude or codex.
mkdir -p "$tmp/bin"
for tool in git bash sh env; do ln -s "$(command -v "$tool")" "$tmp/bin/$tool"; done
no_agents_path=$tmp/bin

# orchestrate_in DIR ARGS...: runs orchestrate there; sets rc, out, err.
orchestrate_in() {
  local dir=$1; shift
  set +e
  (cd "$dir" && "$@") >"$tmp/out" 2>"$tmp/err"
  rc=$?
  set -e
  out=$(cat "$tmp/out")
  err=$(cat "$tmp/err")
}

untouched() { # dir what
  [[ ! -e "$1/.orchestration" ]] || fail "$2: .orchestration/ was created: $(ls -A "$1/.orchestration")"
  cmp -s "$1/$spec/STATUS.md" "$src/examples/specs/SPC-001-task-tracker/STATUS.md" || fail "$2: STATUS.md changed"
  [[ ! -e "$1/app" ]] || fail "$2: a plan's shell block ran"
  [[ -z $out ]] || fail "$2: the run started: $out"
}

export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com

# 1. Not a git repository.
p=$tmp/nogit
new_project "$p"
orchestrate_in "$p" "$cli" orchestrate "$spec" --worker script --yes
[[ $rc -eq 2 ]] || fail "a project without git should exit 2, got $rc: $err"
[[ $err == *"the run cannot start; one problem to fix first (nothing was started or written):"* ]] || fail "no preflight report: $err"
[[ $err == *"$p is not a git repository"* && $err == *"fix: make it one: cd $p && git init"* ]] || fail "not a repository: $err"
untouched "$p" "not a repository"

# 2. A repository, but git has no identity: the commits of every task would fail.
p=$tmp/noident
new_project "$p" git
orchestrate_in "$p" no_identity "$cli" orchestrate "$spec" --worker script --yes
[[ $rc -eq 2 ]] || fail "a git without identity should exit 2, got $rc: $err"
[[ $err == *"git has no identity to commit with ("* ]] || fail "no identity: $err"
[[ $err == *"fix: git config --global user.name 'Your Name' && git config --global user.email you@example.com"* ]] || fail "identity fix: $err"
untouched "$p" "no identity"
[[ -z $(cd "$p" && git status --porcelain) ]] || fail "no identity: the work tree changed: $(cd "$p" && git status --porcelain)"

# 3. The default worker, Claude Code, is not installed.
p=$tmp/noclaude
new_project "$p" git
orchestrate_in "$p" env PATH="$no_agents_path" "$cli" orchestrate "$spec" --yes
[[ $rc -eq 2 ]] || fail "a missing claude should exit 2, got $rc: $err"
[[ $err == *'the claude worker (for every task) cannot start: `claude` is not on PATH'* ]] || fail "missing claude: $err"
[[ $err == *"fix: install Claude Code"* ]] || fail "claude fix: $err"
untouched "$p" "missing claude"

# 4. A binary set in config.yaml that is not there, for the planner only (per-kind choice):
# nothing is written beside the config.
mkdir -p "$p/.orchestration"
printf 'adapters: {default: script, planner: claude}\nworkers:\n  claude: {binary: %s}\n' "$tmp/no-such-claude" >"$p/.orchestration/config.yaml"
orchestrate_in "$p" "$cli" orchestrate "$spec" --yes
[[ $rc -eq 2 ]] || fail "a missing configured claude should exit 2, got $rc: $err"
[[ $err == *"the claude worker (for plan and plan-gaps tasks) cannot start: $tmp/no-such-claude does not exist or is not executable"* ]] ||
  fail "configured claude: $err"
[[ $err == *'fix: correct `workers: {claude: {binary: ...}}` in .orchestration/config.yaml'* ]] || fail "configured claude fix: $err"
[[ $(ls -A "$p/.orchestration") == config.yaml ]] || fail "configured claude: state written: $(ls -A "$p/.orchestration")"
rm -r "$p/.orchestration"

# 5. --worker command without a template.
orchestrate_in "$p" "$cli" orchestrate "$spec" --worker command --yes
[[ $rc -eq 2 ]] || fail "a command worker without a template should exit 2, got $rc: $err"
[[ $err == *"the command worker (for every task) has no command template"* && $err == *"fix: pass --command"* ]] || fail "command: $err"
untouched "$p" "command without template"

# 6. Everything at once: all three problems in one report.
p=$tmp/all
new_project "$p"
orchestrate_in "$p" no_identity env PATH="$no_agents_path" "$cli" orchestrate "$spec"
[[ $rc -eq 2 ]] || fail "exit 2 expected, got $rc: $err"
[[ $err == *"3 problems to fix first"* && $err == *"not a git repository"* && $err == *"git has no identity"* &&
   $err == *'`claude` is not on PATH'* ]] || fail "not every problem reported: $err"
untouched "$p" "all at once"

# 7. A merge waiting for its conflict to be resolved, and a .gitignore rule that hides the spec's
# execution/ files: both found before any plan ran, nothing staged into the user's merge.
p=$tmp/merge
new_project "$p" git
(cd "$p" && git checkout -qb other && echo o >c.txt && git add c.txt && git commit -qm o && git checkout -q - &&
  echo m >c.txt && git add c.txt && git commit -qm m && { git merge -q other >/dev/null 2>&1 || true; } &&
  printf 'docs/specs/*/execution/\n' >>.git/info/exclude)
before=$(cd "$p" && git status --porcelain)
orchestrate_in "$p" "$cli" orchestrate "$spec" --worker script --yes
[[ $rc -eq 2 ]] || fail "a merge in progress should exit 2, got $rc: $err"
[[ $err == *"a git merge is in progress in this repository"* && $err == *"git merge --abort"* ]] || fail "merge: $err"
[[ $err == *"git ignores $spec/execution/"* && $err == *"git check-ignore -v"* ]] || fail "ignored execution/: $err"
untouched "$p" "merge in progress"
[[ $(cd "$p" && git status --porcelain) == "$before" ]] || fail "merge: the index or work tree changed: $(cd "$p" && git status --porcelain)"

# 8. Commits git is set to sign and cannot (a key not in the keyring, a locked agent; here a
# gpg.program that fails): found before any task did its work, which would then fail to commit.
p=$tmp/gpgsign
new_project "$p" git
(cd "$p" && git config commit.gpgsign true && git config gpg.program /bin/false)
orchestrate_in "$p" "$cli" orchestrate "$spec" --worker script --yes
[[ $rc -eq 2 ]] || fail "commits that cannot be signed should exit 2, got $rc: $err"
[[ $err == *"git is set to sign every commit here (commit.gpgsign) and cannot sign (gpg failed to sign the data"* ]] ||
  fail "signing: $err"
[[ $err == *"git config commit.gpgsign false"* ]] || fail "signing fix: $err"
untouched "$p" "signing"

# 9. A limit on open files (`ulimit -n`, soft and hard) too low for --slots: the run used to die
# part-way of "eventfd_select_interrupter: Too many open files", without run_finished.
p=$tmp/nofile
new_project "$p" git
orchestrate_in "$p" bash -c 'ulimit -n 40 && exec "$@"' - "$cli" orchestrate "$spec" --worker script --yes --slots 8
[[ $rc -eq 2 ]] || fail "too low a limit on open files should exit 2, got $rc: $err"
[[ $err == *"--slots 8 needs about "*" open files at once, and this process may open 40 (ulimit -n)"* ]] || fail "nofile: $err"
[[ $err == *'fix: raise the limit before harness-cli starts: `ulimit -n '* ]] || fail "nofile fix: $err"
untouched "$p" "open files"
# Only the soft limit that low: harness-cli raises it to the hard one and has nothing to report
# about it (the template's absence stops the run before it starts).
orchestrate_in "$p" bash -c 'ulimit -Sn 40 && exec "$@"' - "$cli" orchestrate "$spec" --worker command --yes --slots 8
[[ $rc -eq 2 && $err == *"has no command template"* ]] || fail "soft nofile: expected only the template problem, got $rc: $err"
[[ $err != *"open files"* ]] || fail "a soft limit below the hard one was not raised: $err"
untouched "$p" "soft open files"

echo "orchestrate preflight: all checks passed"
