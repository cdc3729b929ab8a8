// git helpers against a real repository: trailer parsing, the incremental trailer index,
// path-limited status, and commits that report their full hash.
#include "harness/util/atomic_file.hpp"
#include "harness/util/proc_stat.hpp"
#include "harness/worker/branch_rewind.hpp"
#include "harness/worker/file_lock.hpp"
#include "harness/worker/git.hpp"
#include "harness/worker/git_head.hpp"
#include "harness/worker/trailers.hpp"
#include "harness/worker/index_lock.hpp"
#include "harness/worker/script_worker.hpp"
#include "harness/worker/run_command.hpp"
#include "harness/worker/spawn.hpp"
#include "git_hook_util.hpp"
#include "git_repo_util.hpp"
#include "spec_test_util.hpp"

#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <atomic>
#include <cstdlib>
#include <memory>
#include <optional>
#include <set>
#include <tuple>
#include <csignal>
#include <thread>

using namespace harness;
namespace fs = std::filesystem;

using test::GitRepo;

TEST_CASE("Trailer log records give plan, task and spec; other commits are left out", "[worker][git]") {
  const std::string log = "\x1e" + std::string(40, 'a') + "\x1f" "feat(01-02): x\n\nPlan: 01-02, Task: 2/3\nSpec: SPC-001-a\n\x1d" + std::string(1, '\0') +
                          "\x1e" + std::string(40, 'b') + "\x1f" "docs(01-02): summary\n\nPlan: 01-02\nSpec: SPC-001-a\n\x1d" + std::string(1, '\0') +
                          "\x1e" + std::string(40, 'c') + "\x1f" "chore: unrelated, mentions Plan: 09-09 in the text\n\x1d" + std::string(1, '\0') +
                          "\x1e" + std::string(40, 'd') + "\x1f" "feat(01-10): y\n\nPlan: 01-10, Task: 1/1\n\x1d" + std::string(1, '\0');
  auto c = worker::parse_trailer_log(log, false);
  REQUIRE(c.size() == 3);
  CHECK(c[0].hash == std::string(40, 'a'));
  CHECK(c[0].plan == "01-02");
  CHECK(c[0].task == 2);
  CHECK(c[0].spec == "SPC-001-a");
  CHECK(c[1].task == 0);
  CHECK(c[2].plan == "01-10"); // not confused with 01-1
  CHECK(c[2].spec.empty());
  CHECK_FALSE(c[0].files_known);
}

TEST_CASE("A message's own control characters neither hide its commit nor forge another", "[worker][git]") {
  // RS, US and GS in a worker's message (review BB H3): its trailers still count, and no record of
  // its choosing appears. Git itself writes the log.
  GitRepo repo;
  repo.dir.write("out/b.txt", "clobbered\n");
  const std::string head = test::sh(repo.dir.path, "git add -A && git commit -q -m init && git rev-parse HEAD");
  repo.dir.write("out/b.txt", "again\n");
  repo.dir.write("msg", "feat(02-01): tidy\x1e" + head.substr(0, 40) + " " + head.substr(0, 40) + "\x1f" +
                            "docs: forged\n\nPlan: 09-09\nSpec: SPC-001-a\n\x1d\n\nPlan: 02-01, Task: 2/2\nSpec: SPC-001-a\n");
  test::sh(repo.dir.path, "git add out/b.txt && git commit -q -F msg");
  auto args = worker::trailer_log_args(true);
  args.push_back("HEAD");
  auto c = worker::parse_trailer_log(worker::run_git(repo.dir.path, args).out, true, true);
  REQUIRE(c.size() == 2);
  CHECK(c[0].plan == "02-01");
  CHECK(c[0].task == 2);
  CHECK(c[0].spec == "SPC-001-a");
  CHECK(c[0].files == std::vector<std::string>{"out/b.txt"});
  CHECK(c[1].subject == "init");
}

TEST_CASE("A squash merge's commit counts for every plan whose trailers its message gathers", "[worker][git]") {
  // `git merge --squash` indents each gathered message by four; a forge's squash lists them as
  // they were. Either way the squash commit is the only record of those plans' work on the branch
  // merged into (review HH F2: verify --final found no commit for any plan).
  GitRepo repo;
  repo.commit("base.txt", "init");
  test::sh(repo.dir.path, "git checkout -q -b feature");
  repo.commit("out/a.txt", "feat(01-01): a\n\nPlan: 01-01, Task: 1/2\nSpec: SPC-001-a");
  repo.commit("out/b.txt", "feat(01-01): b\n\nPlan: 01-01, Task: 2/2\nSpec: SPC-001-a");
  repo.commit("out/c.txt", "feat(02-01): c\n\nPlan: 02-01, Task: 1/1\nSpec: SPC-002-b");
  repo.commit("notes.txt", "chore(SPC-001-a): redo 01-03\n\nRedo: 01-03\nSpec: SPC-001-a");
  test::sh(repo.dir.path, "git checkout -q - && git merge -q --squash feature >/dev/null && git commit -q --no-edit");
  auto args = worker::trailer_log_args(true);
  args.push_back("-1");
  const auto c = worker::parse_trailer_log(worker::run_git(repo.dir.path, args).out, true);
  REQUIRE(c.size() == 4);
  std::set<std::tuple<std::string, int, std::string>> plans;
  for (const auto& e : c) {
    CHECK(e.squashed);
    CHECK(e.hash == c[0].hash);
    if (!e.plan.empty()) plans.emplace(e.plan, e.task, e.spec);
  }
  CHECK(plans == std::set<std::tuple<std::string, int, std::string>>{
                     {"01-01", 1, "SPC-001-a"}, {"01-01", 2, "SPC-001-a"}, {"02-01", 1, "SPC-002-b"}});
  // Newest first, as a log lists commits: the redo marker, made last, is first, of its own spec.
  CHECK(c.front().plan.empty());
  CHECK(c.front().redo == std::vector<std::pair<std::string, int>>{{"01-03", 0}});
  CHECK(c.front().spec == "SPC-001-a");
  CHECK((c.back().plan == "01-01" && c.back().task == 1));
  // The tasks stand: a run on the merged-into branch does not do them again.
  CHECK(worker::committed_tasks(repo.dir.path, "01-01", test::only_spec("SPC-001-a")).size() == 2);
  // Read as commits made during a run (a worker's), the same message is one commit of one plan.
  const auto strict = worker::parse_trailer_log(worker::run_git(repo.dir.path, args).out, true, false, false);
  REQUIRE(strict.size() == 1);
  CHECK_FALSE(strict[0].squashed);
}

TEST_CASE("A squash holding a redo marker and its plan's older work keeps the redo", "[worker][git]") {
  // Review UU H2: the marker was dropped as done, and the plan never ran again on the branch merged into.
  GitRepo repo;
  repo.commit("base.txt", "init");
  test::sh(repo.dir.path, "git checkout -q -b feature");
  repo.commit("out/a.txt", "feat(01-01): a\n\nPlan: 01-01, Task: 1/1\nSpec: SPC-001-a");
  repo.commit("out/s.txt", "docs(01-01): summary\n\nPlan: 01-01\nSpec: SPC-001-a");
  repo.commit("notes.txt", "chore(SPC-001-a): run 01-01 again\n\nRedo: 01-01\nSpec: SPC-001-a");
  test::sh(repo.dir.path, "git checkout -q - && git merge -q --squash feature >/dev/null && git commit -q --no-edit");
  CHECK(worker::committed_tasks(repo.dir.path, "01-01", test::only_spec("SPC-001-a")).empty());
  worker::TrailerIndex index(repo.dir.path);
  index.refresh();
  REQUIRE(index.pending_redo("01-01", test::only_spec("SPC-001-a")));
}

TEST_CASE("A forge's squash message, unindented, is read the same; one plan's commit stays one entry", "[worker][git]") {
  const std::string log = "\x1e" + std::string(40, 'a') + "\x1f" "Feature (#12)\n\n* feat(01-01): a\n\nPlan: 01-01, Task: 1/1\nSpec: SPC-001-a\n\n"
                          "* docs(01-01): summary\n\nPlan: 01-01\nSpec: SPC-001-a\n\x1d" + std::string(1, '\0') +
                          "\x1e" + std::string(40, 'b') + "\x1f" "feat(01-02): x\n\nPlan: 01-02, Task: 1/1\nSpec: SPC-001-a\n\x1d" + std::string(1, '\0');
  const auto c = worker::parse_trailer_log(log, false);
  REQUIRE(c.size() == 3);
  // A forge lists the gathered commits oldest first: read newest first, as a log lists them.
  CHECK((c[0].plan == "01-01" && c[0].task == 0 && c[0].squashed && c[0].spec == "SPC-001-a"));
  CHECK((c[1].plan == "01-01" && c[1].task == 1 && c[1].squashed));
  CHECK((c[2].plan == "01-02" && !c[2].squashed));
  // Bullets in one commit's own text, with two Plan lines under the same one, are no squash
  // (review UU H3: its files then counted for no plan).
  const std::string bullets = "\x1e" + std::string(40, 'd') + "\x1f" "feat(01-01): x\n\n* writes a\n* and b\n\n"
                              "Plan: 01-02, Task: 1/1\nPlan: 01-01, Task: 1/1\nSpec: SPC-001-a\n\x1d" + std::string(1, '\0');
  const auto b = worker::parse_trailer_log(bullets, false);
  REQUIRE(b.size() == 1);
  CHECK((b[0].plan == "01-01" && !b[0].squashed));
  // A worker's commit naming another plan in its text is no squash: its last Plan line counts,
  // and its files stay its own plan's to declare.
  const std::string worker_log = "\x1e" + std::string(40, 'c') + "\x1f" "feat(01-03): x\n\nalso fixes Plan: 01-01 below\n"
                                 "Plan: 01-01\n\nPlan: 01-03, Task: 1/1\nSpec: SPC-001-a\n\x1d" + std::string(1, '\0');
  const auto w = worker::parse_trailer_log(worker_log, false);
  REQUIRE(w.size() == 1);
  CHECK((w[0].plan == "01-03" && w[0].task == 1 && !w[0].squashed));
}

TEST_CASE("Signed commits are read with log.showSignature set", "[worker][git]") {
  // git prints the signature's verdict before each record when log.showSignature is true (review
  // DD H1): the index must still find the commit. SSH signing needs only ssh-keygen.
  if (std::system("command -v ssh-keygen >/dev/null 2>&1") != 0) {
    WARN("ssh-keygen is not installed: the signed-commit case is not run here");
    return;
  }
  GitRepo repo;
  test::sh(repo.dir.path, "ssh-keygen -q -t ed25519 -N '' -f key >/dev/null && git config gpg.format ssh && "
                          "git config user.signingkey \"$PWD/key.pub\" && git config log.showSignature true && "
                          "echo a > a.txt && git add a.txt && git commit -q -S -m x -m 'Plan: 01-01, Task: 1/1' -m 'Spec: SPC-001-a'");
  auto args = worker::trailer_log_args(true);
  args.push_back("HEAD");
  auto c = worker::parse_trailer_log(worker::run_git(repo.dir.path, args).out, true);
  REQUIRE(c.size() == 1);
  CHECK(c[0].plan == "01-01");
  CHECK(c[0].files == std::vector<std::string>{"a.txt"});
  // Every reader, not only the trailer log's (review RR F1): a hash, a message, a file list.
  const auto hash = worker::run_git(repo.dir.path, {"log", "-1", "--format=%H"}).out;
  CHECK(hash == c[0].hash + "\n");
  CHECK(worker::run_git(repo.dir.path, {"show", "-s", "--format=%s"}).out == "x\n");
  CHECK(worker::files_of_commits(repo.dir.path, {c[0].hash}) == std::vector<std::string>{"a.txt"});
}

TEST_CASE("Trailer log read by git itself carries the changed paths, any name included", "[worker][git]") {
  GitRepo repo;
  repo.dir.write("two words.txt", "a\n");
  repo.dir.write("nl\nname.txt", "b\n");
  repo.dir.write("plain.txt", "c\n");
  test::sh(repo.dir.path, "git add -A && git commit -q -m x -m 'Plan: 01-01, Task: 1/1' -m 'Spec: SPC-001-a'");
  test::sh(repo.dir.path, "git commit -q --allow-empty -m 'y' -m 'Plan: 01-02'");
  auto args = worker::trailer_log_args(true);
  args.push_back("HEAD");
  auto c = worker::parse_trailer_log(worker::run_git(repo.dir.path, args).out, true);
  REQUIRE(c.size() == 2);
  CHECK(c[0].plan == "01-02"); // newest first
  CHECK(c[0].files_known);
  CHECK(c[0].files.empty());
  CHECK(c[1].files == std::vector<std::string>{"nl\nname.txt", "plain.txt", "two words.txt"});
}

TEST_CASE("commit_paths runs the repository's hooks when asked, and skips them otherwise", "[worker][git]") {
  GitRepo repo;
  repo.commit("a.txt", "first");
  test::write_hook(repo.dir, ".git/hooks/pre-commit",
                   "#!/bin/sh\nif git diff --cached | grep -q AKIA; then echo 'pre-commit: secret found' >&2; exit 1; fi\n");
  repo.dir.write("config.env", "KEY=AKIAABCDEFGHIJKLMNOP\n");
  const auto lock = repo.dir.path / ".orchestration/git.lock";
  auto refused = worker::commit_paths(repo.dir.path, lock, {"config.env"}, "task", worker::CommitHooks::run);
  REQUIRE_FALSE(refused);
  CHECK(refused.error().find("pre-commit: secret found") != std::string::npos);
  CHECK(refused.error().find("user.name") == std::string::npos); // not an identity problem
  CHECK(test::sh(repo.dir.path, "git log --format=%s -1") == "first\n");
  auto skipped = worker::commit_paths(repo.dir.path, lock, {"config.env"}, "bookkeeping", worker::CommitHooks::skip);
  REQUIRE(skipped);
  CHECK(skipped->size() == 40);
}

TEST_CASE("commit_paths refuses a directory that is a git repository of its own", "[worker][git]") {
  GitRepo repo;
  repo.commit("a.txt", "first");
  test::sh(repo.dir.path, "mkdir -p vendor/x && cd vendor/x && git init -q && echo a > f && git add f && "
                          "git -c user.name=a -c user.email=b@c commit -qm x");
  const auto changed = worker::changed_paths(repo.dir.path, {"vendor/**"});
  REQUIRE(changed.size() == 1);
  std::vector<std::string> names = {changed[0].path};
  auto r = worker::commit_paths(repo.dir.path, repo.dir.path / ".orchestration/git.lock", names, "task");
  REQUIRE_FALSE(r);
  CHECK(r.error().find("vendor/x is a git repository of its own") != std::string::npos);
  CHECK(test::sh(repo.dir.path, "git ls-files -s vendor").empty()); // nothing staged
}

TEST_CASE("commit_paths returns the full hash of the commit it made", "[worker][git]") {
  GitRepo repo;
  const auto hash = repo.commit("a.txt", "first\n\nPlan: 01-01, Task: 1/1\nSpec: SPC-001-a");
  CHECK(hash.size() == 40);
  CHECK(test::sh(repo.dir.path, "git rev-parse HEAD") == hash + "\n");
  repo.commit("b.txt", "second");
  CHECK(worker::commit_paths(repo.dir.path, repo.dir.path / ".orchestration/git.lock", {"b.txt"}, "again").value() == "");
}

TEST_CASE("commit_paths commits only its paths, deletions and new files too, and leaves what others staged staged",
          "[worker][git]") {
  GitRepo repo;
  repo.commit("gone.txt", "first");
  repo.commit("kept.txt", "second");
  repo.dir.write("theirs.txt", "another worker's work\n");
  test::sh(repo.dir.path, "git add theirs.txt");
  fs::remove(repo.dir.path / "gone.txt");
  repo.dir.write("src/new.txt", "n\n");
  repo.dir.write("kept.txt", "changed\n");
  auto h = worker::commit_paths(repo.dir.path, repo.dir.path / ".orchestration/git.lock", {"gone.txt", "src", "kept.txt"}, "mine");
  REQUIRE(h);
  CHECK(test::sh(repo.dir.path, "git show --name-status --format= HEAD") == "D\tgone.txt\nM\tkept.txt\nA\tsrc/new.txt\n");
  CHECK(test::sh(repo.dir.path, "git status --porcelain") == "A  theirs.txt\n");
  repo.dir.write(".gitignore", "*.log\n");
  repo.dir.write("run.log", "x\n");
  auto ignored = worker::commit_paths(repo.dir.path, repo.dir.path / ".orchestration/git.lock", {"run.log"}, "log");
  REQUIRE_FALSE(ignored);
  CHECK(ignored.error().find("one .gitignore ignores") != std::string::npos);
}

TEST_CASE("commit_paths told which paths a status found untracked asks git no second time", "[worker][git]") {
  GitRepo repo;
  repo.commit("old.txt", "old");
  repo.dir.write("old.txt", "changed\n");
  repo.dir.write("out/new.txt", "new\n");
  std::vector<std::string> names, untracked;
  for (const auto& c : worker::changed_paths(repo.dir.path, {"old.txt", "out/**"})) {
    names.push_back(c.path);
    if (c.untracked) untracked.push_back(c.path);
  }
  REQUIRE(untracked == std::vector<std::string>{"out/new.txt"});
  const fs::path trace = repo.dir.path / "trace.log";
  ::setenv("GIT_TRACE", trace.c_str(), 1);
  auto hash = worker::commit_paths(repo.dir.path, repo.dir.path / ".orchestration/git.lock", names, "both",
                                   worker::CommitHooks::skip, untracked);
  const std::string said = util::read_file(trace).value_or("");
  ::unsetenv("GIT_TRACE");
  REQUIRE(hash);
  CHECK(said.find("ls-files") == std::string::npos);
  CHECK(said.find("--intent-to-add") != std::string::npos); // the new file still gets its entry
  CHECK(worker::files_of_commits(repo.dir.path, {*hash}) == std::vector<std::string>{"old.txt", "out/new.txt"});
  CHECK(test::sh(repo.dir.path, "git status --porcelain -- old.txt out").empty()); // nothing left over
}

TEST_CASE("commit_paths stages nothing in the shared index: a bare commit made meanwhile takes none of its files",
          "[worker][git]") {
  GitRepo repo;
  repo.commit("a.txt", "first");
  // The hook sees the shared index as it is just before the commit: what a bare `git commit` an
  // agent ran at that moment would have committed.
  test::write_hook(repo.dir, ".git/hooks/pre-commit", "#!/bin/sh\nunset GIT_INDEX_FILE\ngit --no-optional-locks diff --cached --name-only > .git/seen\n");
  repo.dir.write("STATUS.md", "status\n");
  repo.dir.write("a.txt", "changed\n");
  auto h = worker::commit_paths(repo.dir.path, repo.dir.path / ".orchestration/git.lock", {"STATUS.md", "a.txt"}, "docs",
                                worker::CommitHooks::run);
  REQUIRE(h);
  REQUIRE(fs::exists(repo.dir.path / ".git/seen"));
  CHECK(test::sh(repo.dir.path, "cat .git/seen").empty());
  CHECK(test::sh(repo.dir.path, "git show --name-only --format= HEAD") == "STATUS.md\na.txt\n");
  CHECK(test::sh(repo.dir.path, "git status --porcelain").empty());
}

TEST_CASE("a commit_paths a hook refuses leaves its new files untracked, as they were", "[worker][git]") {
  GitRepo repo;
  repo.commit("a.txt", "first");
  test::write_hook(repo.dir, ".git/hooks/pre-commit", "#!/bin/sh\necho 'lint: no' >&2\nexit 1\n");
  repo.dir.write("new.txt", "n\n");
  auto r = worker::commit_paths(repo.dir.path, repo.dir.path / ".orchestration/git.lock", {"new.txt"}, "task",
                                worker::CommitHooks::run);
  REQUIRE_FALSE(r);
  CHECK(r.error().find("lint: no") != std::string::npos);
  CHECK(test::sh(repo.dir.path, "git status --porcelain") == "?? new.txt\n");
}

/// Commits b.txt while `lock` (under .git/) is held by another git for 300 ms: commit_paths must
/// wait for it rather than fail.
static auto commit_while_locked(GitRepo& repo, const std::string& lock) {
  repo.dir.write(".git/" + lock, "");
  repo.dir.write("b.txt", "b\n");
  std::thread other([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    fs::remove(repo.dir.path / ".git" / lock);
  });
  auto hash = worker::commit_paths(repo.dir.path, repo.dir.path / ".orchestration/git.lock", {"b.txt"}, "second");
  other.join();
  return hash;
}

TEST_CASE("A commit waits while another git holds the index lock, and gives up on a stale one", "[worker][git]") {
  GitRepo repo;
  repo.commit("a.txt", "first");
  // Another git (an agent's `git status`, an editor) holds .git/index.lock for a moment.
  auto hash = commit_while_locked(repo, "index.lock");
  REQUIRE(hash);
  CHECK(hash->size() == 40);
  // A lock nobody releases: git's own complaint after the patience runs out.
  repo.dir.write(".git/index.lock", "");
  repo.dir.write("c.txt", "c\n");
  const auto t0 = std::chrono::steady_clock::now();
  auto r = worker::run_git_writing_index(repo.dir.path, {"add", "--", "c.txt"}, std::chrono::milliseconds(200));
  CHECK(r.exit_code != 0);
  CHECK(r.messages().find("index.lock") != std::string::npos);
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(5)); // generous: not the 10 s default
}

TEST_CASE("A commit waits while another git moves the branch (its ref lock held)", "[worker][git]") {
  GitRepo repo;
  repo.commit("a.txt", "first");
  // A worker's own `git commit` updating the branch at the moment ours does: "cannot lock ref 'HEAD'".
  std::string ref = test::sh(repo.dir.path, "git symbolic-ref HEAD");
  ref.pop_back();
  auto hash = commit_while_locked(repo, ref + ".lock");
  REQUIRE(hash);
  CHECK(test::sh(repo.dir.path, "git log --format=%s") == "second\nfirst\n");
}

TEST_CASE("commit_paths takes each path literally: brackets are no character class", "[worker][git]") {
  GitRepo repo;
  repo.commit("a.txt", "first");
  repo.dir.write("app/posts/[id]/page.tsx", "route\n");
  REQUIRE(worker::commit_paths(repo.dir.path, repo.dir.path / ".orchestration/git.lock", {"app/posts/[id]/page.tsx"},
                               "route")
              .value()
              .size() == 40);
  // Deleting the route: git matches a pathspec that names no existing file as a glob, so
  // `[id]` would also take `i/page.tsx`, which nobody declared.
  fs::remove(repo.dir.path / "app/posts/[id]/page.tsx");
  repo.dir.write("app/posts/i/page.tsx", "not declared\n");
  REQUIRE(worker::commit_paths(repo.dir.path, repo.dir.path / ".orchestration/git.lock", {"app/posts/[id]/page.tsx"},
                               "drop route")
              .value()
              .size() == 40);
  CHECK(test::sh(repo.dir.path, "git show --name-only --format= HEAD") == "app/posts/[id]/page.tsx\n");
  CHECK(test::sh(repo.dir.path, "git status --porcelain --untracked-files=all") == "?? app/posts/i/page.tsx\n");
}

namespace {

/// Sets environment variables for one test and puts the old values back after it.
struct ScopedEnv {
  std::vector<std::pair<std::string, std::optional<std::string>>> saved;
  ScopedEnv(std::initializer_list<std::pair<const char*, const char*>> vars) {
    for (const auto& [k, v] : vars) {
      const char* old = std::getenv(k);
      saved.emplace_back(k, old ? std::optional<std::string>(old) : std::nullopt);
      ::setenv(k, v, 1);
    }
  }
  ~ScopedEnv() {
    for (const auto& [k, v] : saved)
      if (v) ::setenv(k.c_str(), v->c_str(), 1);
      else ::unsetenv(k.c_str());
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;
};

} // namespace

TEST_CASE("nothing to commit is recognised whatever language the user's git speaks", "[worker][git]") {
  GitRepo repo;
  repo.commit("a.txt", "first");
  // LANGUAGE translates git's messages under any locale but plain C: C.UTF-8 is always installed,
  // de_DE.UTF-8 may not be.
  ScopedEnv german{{"LANG", "de_DE.UTF-8"}, {"LC_ALL", "C.UTF-8"}, {"LANGUAGE", "de"}};
  const auto r = worker::commit_paths(repo.dir.path, repo.dir.path / ".orchestration/git.lock", {"a.txt"}, "again");
  INFO((r ? std::string() : r.error()));
  REQUIRE(r.has_value());
  CHECK(r->empty());
  repo.dir.write("b.txt", "b\n");
  CHECK(worker::commit_paths(repo.dir.path, repo.dir.path / ".orchestration/git.lock", {"b.txt"}, "b").value().size() == 40);
}

TEST_CASE("GIT_DIR or GIT_INDEX_FILE in the environment (a git hook, a dotfile manager) reach no git harness runs",
          "[worker][git]") {
  GitRepo repo;
  repo.commit("a.txt", "first");
  GitRepo other;
  other.commit("o.txt", "other root");
  const std::string other_git = (other.dir.path / ".git").string(), other_index = (repo.dir.path / ".git/other-index").string();
  ScopedEnv env{{"GIT_DIR", other_git.c_str()}, {"GIT_INDEX_FILE", other_index.c_str()}, {"GIT_WORK_TREE", "/"}};
  CHECK(worker::repository_env_vars_set() == std::vector<std::string>{"GIT_DIR", "GIT_INDEX_FILE", "GIT_WORK_TREE"});
  CHECK_FALSE(worker::current_environment().contains("GIT_DIR"));
  repo.dir.write("b.txt", "b\n");
  auto hash = worker::commit_paths(repo.dir.path, repo.dir.path / ".orchestration/git.lock", {"b.txt"}, "b");
  REQUIRE(hash);
  const std::string clean = "env -u GIT_DIR -u GIT_INDEX_FILE -u GIT_WORK_TREE ";
  CHECK(test::sh(repo.dir.path, clean + "git log -1 --format=%s") == "b\n"); // in the project's history
  CHECK(test::sh(other.dir.path, clean + "git log --format=%s") == "other root\n");
  CHECK(test::sh(repo.dir.path, clean + "git status --porcelain") == ""); // its real index, not other-index
  CHECK_FALSE(fs::exists(other_index));
  // A worker or check started with the inherited environment does not get them either.
  worker::CommandRequest req;
  req.argv = {"sh", "-c", "echo ${GIT_DIR-unset} ${GIT_INDEX_FILE-unset}"};
  req.cwd = repo.dir.path;
  CHECK(worker::run_command(req).output == "unset unset\n");
}

TEST_CASE("Commits skip git's per-commit auto maintenance; the run asks for it once", "[worker][git]") {
  GitRepo repo;
  repo.commit("a.txt", "first");
  const fs::path trace = repo.dir.path / "trace.log";
  ::setenv("GIT_TRACE", trace.c_str(), 1);
  repo.commit("b.txt", "second");
  const std::string after_commit = util::read_file(trace).value_or("");
  auto r = worker::run_auto_maintenance(repo.dir.path, repo.dir.path / ".orchestration/git.lock");
  const std::string after_run = util::read_file(trace).value_or("");
  ::unsetenv("GIT_TRACE");
  CHECK(after_commit.find("commit") != std::string::npos); // the trace did record the commit
  CHECK(after_commit.find("maintenance run") == std::string::npos);
  CHECK(r.exit_code == 0);
  CHECK(after_run.find("maintenance run --auto") != std::string::npos);
}

TEST_CASE("The trailer index reads the history once, then only what is new, and starts over after a rewrite", "[worker][git]") {
  GitRepo repo;
  worker::TrailerIndex index(repo.dir.path);
  index.refresh(); // no commits yet: nothing, no error
  CHECK(index.commits_for("01-01").empty());
  const auto h1 = repo.commit("a.txt", "a\n\nPlan: 01-01, Task: 1/2\nSpec: SPC-001-a");
  repo.commit("x.txt", "no trailers");
  index.refresh();
  REQUIRE(index.commits_for("01-01").size() == 1);
  CHECK(index.commits_for("01-01")[0].hash == h1);
  const auto h2 = repo.commit("b.txt", "b\n\nPlan: 01-01, Task: 2/2\nSpec: SPC-001-a");
  const auto h3 = repo.commit("c.txt", "c\n\nPlan: 01-02, Task: 1/1\nSpec: SPC-001-a");
  CHECK(index.commits_for("01-01").size() == 1); // not refreshed yet
  index.refresh();
  auto c = index.commits_for("01-01");
  REQUIRE(c.size() == 2);
  CHECK(c[0].hash == h1); // oldest first
  CHECK(c[1].hash == h2);
  CHECK(index.commits_for("01-02").at(0).hash == h3);
  // Paths: read with the new commits, asked of git for the ones the first refresh read.
  CHECK(c[1].files_known);
  CHECK(index.files_of(c) == std::vector<std::string>{"a.txt", "b.txt"});
  worker::TrailerIndex resumed(repo.dir.path);
  resumed.refresh();
  CHECK_FALSE(resumed.commits_for("01-01").at(0).files_known);
  CHECK(resumed.files_of(resumed.commits_for("01-01")) == std::vector<std::string>{"a.txt", "b.txt"});
  // History rewritten: the commit index read last is gone; the index reads everything again.
  test::sh(repo.dir.path, "git reset -q --hard HEAD~3 && git commit -q --allow-empty -m 'z' -m 'Plan: 01-03, Task: 1/1'");
  test::sh(repo.dir.path, "git reflog expire --expire=now --all && git gc -q --prune=now");
  index.refresh();
  CHECK(index.commits_for("01-02").empty());
  CHECK(index.commits_for("01-01").size() == 1);
  CHECK(index.commits_for("01-03").size() == 1);
}

TEST_CASE("The trailer index names the redo marker a plan is being executed again for, until its next SUMMARY", "[worker][git]") {
  GitRepo repo;
  auto ours = [](std::string_view spec) { return spec == "SPC-001-a"; };
  repo.commit("a.txt", "a\n\nPlan: 01-01, Task: 1/1\nSpec: SPC-001-a");
  repo.commit("s.md", "summary\n\nPlan: 01-01\nSpec: SPC-001-a");
  worker::TrailerIndex index(repo.dir.path);
  index.refresh();
  CHECK_FALSE(index.pending_redo("01-01", ours)); // no marker
  const auto marker = repo.commit("m.txt", "chore: run 01-01 again\n\nRedo: 01-01\nSpec: SPC-001-a");
  repo.commit("o.txt", "another spec's\n\nRedo: 01-01\nSpec: SPC-002-b");
  repo.commit("a2.txt", "a again\n\nPlan: 01-01, Task: 1/1\nSpec: SPC-001-a"); // a task of the rerun
  index.refresh();
  const auto pending = index.pending_redo("01-01", ours);
  REQUIRE(pending);
  CHECK(pending->hash == marker); // ours, the newest; a task commit since does not end it
  CHECK_FALSE(index.pending_redo("01-02", ours));
  repo.commit("s2.md", "summary again\n\nPlan: 01-01\nSpec: SPC-001-a");
  index.refresh();
  CHECK_FALSE(index.pending_redo("01-01", ours)); // executed since
}

TEST_CASE("A history git could not read is an error of the trailer index, not a history without commits", "[worker][git]") {
  GitRepo repo;
  worker::TrailerIndex index(repo.dir.path);
  index.refresh();
  CHECK(index.error().empty()); // no commits yet is no error
  const auto h1 = repo.commit("a.txt", "a\n\nPlan: 01-01, Task: 1/1\nSpec: SPC-001-a");
  index.refresh();
  REQUIRE(index.commits_for("01-01").size() == 1);
  // git fails (here: no repository any more; in a run: out of descriptors).
  fs::rename(repo.dir.path / ".git", repo.dir.path / "git.away");
  index.refresh();
  CHECK(index.error().find("git log exited 128: fatal: not a git repository") != std::string::npos);
  CHECK(index.commits_for("01-01").size() == 1); // what was read stays
  fs::rename(repo.dir.path / "git.away", repo.dir.path / ".git");
  repo.commit("b.txt", "b\n\nPlan: 01-02, Task: 1/1\nSpec: SPC-001-a");
  index.refresh();
  CHECK(index.error().empty());
  CHECK(index.commits_for("01-02").size() == 1);
  CHECK(index.commits_for("01-01").at(0).hash == h1);

  test::TempDir plain; // never a repository
  worker::TrailerIndex none(plain.path);
  none.refresh();
  CHECK_FALSE(none.error().empty());
  CHECK(none.commits_for("01-01").empty());
}

TEST_CASE("the trailer index lists commits without trailers made after its first look", "[worker][git]") {
  GitRepo repo;
  repo.commit("before.txt", "made before the run");
  worker::TrailerIndex index(repo.dir.path);
  index.refresh();
  repo.commit("a.txt", "a\n\nPlan: 01-01, Task: 1/1\nSpec: SPC-001-a");
  repo.commit("docs.md", "docs(SPC-001-a): verify phase 01\n\nSpec: SPC-001-a"); // harness's own
  repo.commit("junk.txt", "my own commit");
  index.refresh();
  const auto foreign = index.untrailed();
  REQUIRE(foreign.size() == 1);
  CHECK(foreign[0].subject == "my own commit");
  CHECK(foreign[0].files == std::vector<std::string>{"junk.txt"});
  CHECK(index.commits_for("01-01").size() == 1);
}

TEST_CASE("Redo markers are read from their trailers; a malformed task names nothing", "[worker][git][redo]") {
  const std::string log = "\x1e" + std::string(40, 'a') + "\x1f" "chore(SPC-001-a): run 01-02 again\n\nRedo: 01-02, Task: 2\nRedo: 01-03\n"
                          "Redo: 01-04, Task: x\nSpec: SPC-001-a\n\x1d" + std::string(1, '\0');
  auto c = worker::parse_trailer_log(log, false); // no Plan: trailer, kept for its Redo: lines
  REQUIRE(c.size() == 1);
  CHECK(c[0].plan.empty());
  CHECK(c[0].spec == "SPC-001-a");
  CHECK(c[0].redo == std::vector<std::pair<std::string, int>>{{"01-02", 2}, {"01-03", 0}});
  CHECK(worker::redo_trailer("01-02", 0) == "Redo: 01-02");
  CHECK(worker::redo_trailer("01-02", 3) == "Redo: 01-02, Task: 3");
}

TEST_CASE("A task's commit stands unless a newer redo marker of its spec names it", "[worker][git][redo]") {
  auto task = [](std::string hash, std::string plan, int t, std::string spec) {
    worker::TrailerCommit c;
    c.hash = std::move(hash);
    c.plan = std::move(plan);
    c.task = t;
    c.spec = std::move(spec);
    return c;
  };
  auto marker = [](std::string hash, std::string plan, int t, std::string spec) {
    worker::TrailerCommit c;
    c.hash = std::move(hash);
    c.spec = std::move(spec);
    c.redo = {{std::move(plan), t}};
    return c;
  };
  using Done = std::vector<std::pair<int, std::string>>;
  // Newest first, as git log lists them.
  std::vector<worker::TrailerCommit> log = {task("t2b", "01-02", 2, "S"), marker("m1", "01-02", 2, "S"),
                                            task("t2a", "01-02", 2, "S"), task("t1", "01-02", 1, "S")};
  CHECK(worker::standing_tasks(log, "01-02", test::only_spec("S")) == Done{{1, "t1"}, {2, "t2b"}}); // the re-run stands
  log.erase(log.begin());
  CHECK(worker::standing_tasks(log, "01-02", test::only_spec("S")) == Done{{1, "t1"}}); // marked, not run yet
  log.insert(log.begin(), marker("m2", "01-02", 0, "S"));
  CHECK(worker::standing_tasks(log, "01-02", test::only_spec("S")).empty()); // every task
  // Another spec's marker, or another plan's, changes nothing here.
  std::vector<worker::TrailerCommit> other = {marker("m3", "01-02", 0, "T"), marker("m4", "01-03", 0, "S"),
                                              task("t1", "01-02", 1, "S")};
  CHECK(worker::standing_tasks(other, "01-02", test::only_spec("S")) == Done{{1, "t1"}});
  CHECK(worker::standing_tasks(other, "01-02", test::only_spec("T")).empty());
}

TEST_CASE("commit_marker removes tracked files, records an empty commit otherwise, and leaves staged work alone",
          "[worker][git][redo]") {
  GitRepo repo;
  repo.commit("SUMMARY.md", "summary");
  repo.dir.write("untracked.md", "x\n");
  repo.dir.write("mine.txt", "my staged work\n");
  test::sh(repo.dir.path, "git add mine.txt");
  const fs::path lock = repo.dir.path / ".orchestration/git.lock";
  auto h = worker::commit_marker(repo.dir.path, lock, {"SUMMARY.md", "untracked.md", "absent.md"}, "m\n\nRedo: 01-01");
  REQUIRE(h);
  CHECK(h->size() == 40);
  CHECK_FALSE(fs::exists(repo.dir.path / "SUMMARY.md"));
  CHECK_FALSE(fs::exists(repo.dir.path / "untracked.md"));
  CHECK(test::sh(repo.dir.path, "git show --name-status --format= HEAD") == "D\tSUMMARY.md\n");
  CHECK(test::sh(repo.dir.path, "git diff --cached --name-only") == "mine.txt\n"); // still staged, not committed
  auto empty = worker::commit_marker(repo.dir.path, lock, {}, "m2\n\nRedo: 01-02");
  REQUIRE(empty);
  CHECK(*empty != *h);
  CHECK(test::sh(repo.dir.path, "git show --name-only --format= HEAD").empty());
  CHECK(test::sh(repo.dir.path, "git diff --cached --name-only") == "mine.txt\n");
}

namespace {

ino_t file_inode(const fs::path& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 ? st.st_ino : 0;
}

/// Names of write_file_atomic's and keep_aside's pattern under `dir`, .git aside.
std::vector<std::string> temp_names(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.path().string().find("/.git/") == std::string::npos && e.path().filename().string().find(".tmp-") != std::string::npos)
      out.push_back(e.path().string());
  return out;
}

} // namespace

TEST_CASE("commit_marker puts the removed files back when git refuses the commit", "[worker][git][redo]") {
  GitRepo repo;
  repo.commit("SUMMARY.md", "summary");
  repo.commit("c.txt", "base");
  // A merge stopped on a conflict: git refuses a partial commit until it is concluded.
  test::sh(repo.dir.path, "git checkout -qb other && echo theirs > c.txt && git commit -qam theirs && git checkout -q - "
                          "&& echo ours > c.txt && git commit -qam ours && git merge -q other; true");
  REQUIRE(fs::exists(repo.dir.path / ".git/MERGE_HEAD"));
  const auto head = test::sh(repo.dir.path, "git rev-parse HEAD");
  const auto inode = file_inode(repo.dir.path / "SUMMARY.md");
  auto r = worker::commit_marker(repo.dir.path, repo.dir.path / ".orchestration/git.lock", {"SUMMARY.md"}, "m\n\nRedo: 01-01");
  REQUIRE_FALSE(r);
  CHECK(r.error().find("nothing changed") != std::string::npos);
  CHECK(*util::read_file(repo.dir.path / "SUMMARY.md") == "summary\n");
  // The file itself is back, renamed from its second name: nothing was written, which a full disk
  // would have refused (review II F1); and no second name is left.
  CHECK(file_inode(repo.dir.path / "SUMMARY.md") == inode);
  CHECK(temp_names(repo.dir.path).empty());
  CHECK(test::sh(repo.dir.path, "git rev-parse HEAD") == head);
}

TEST_CASE("commit_marker commits the files it writes with the marker, and puts them back when git refuses",
          "[worker][git][redo]") {
  GitRepo repo;
  repo.commit("STATUS.md", "complete");
  repo.commit("c.txt", "base");
  const fs::path lock = repo.dir.path / ".orchestration/git.lock";
  auto h = worker::commit_marker(repo.dir.path, lock, {}, "m\n\nRedo: 01-01", {{"STATUS.md", "redo\n"}});
  REQUIRE(h);
  CHECK(*util::read_file(repo.dir.path / "STATUS.md") == "redo\n");
  CHECK(test::sh(repo.dir.path, "git show --name-status --format= HEAD") == "M\tSTATUS.md\n");
  CHECK(test::sh(repo.dir.path, "git status --porcelain").empty());
  CHECK(temp_names(repo.dir.path).empty()); // the second names go once the commit is made

  test::sh(repo.dir.path, "git checkout -qb other && echo theirs > c.txt && git commit -qam theirs && git checkout -q - "
                          "&& echo ours > c.txt && git commit -qam ours && git merge -q other; true");
  REQUIRE(fs::exists(repo.dir.path / ".git/MERGE_HEAD"));
  const auto inode = file_inode(repo.dir.path / "STATUS.md");
  auto r = worker::commit_marker(repo.dir.path, lock, {}, "m2\n\nRedo: 01-01",
                                 {{"STATUS.md", "again\n"}, {"new/ROADMAP.md", "made\n"}});
  REQUIRE_FALSE(r);
  CHECK(*util::read_file(repo.dir.path / "STATUS.md") == "redo\n"); // as it was
  CHECK(file_inode(repo.dir.path / "STATUS.md") == inode);          // the file itself, not a copy written back
  CHECK_FALSE(fs::exists(repo.dir.path / "new/ROADMAP.md"));        // it was not there
  CHECK(temp_names(repo.dir.path).empty());
}

TEST_CASE("The trailer index keeps redo markers in history order", "[worker][git][redo]") {
  GitRepo repo;
  worker::TrailerIndex index(repo.dir.path);
  const fs::path lock = repo.dir.path / ".orchestration/git.lock";
  const auto t1 = repo.commit("a.txt", "a\n\nPlan: 01-01, Task: 1/2\nSpec: S");
  const auto t2 = repo.commit("b.txt", "b\n\nPlan: 01-01, Task: 2/2\nSpec: S");
  index.refresh();
  using Done = std::vector<std::pair<int, std::string>>;
  CHECK(index.standing_tasks("01-01", test::only_spec("S")) == Done{{1, t1}, {2, t2}});
  REQUIRE(worker::commit_marker(repo.dir.path, lock, {}, "redo\n\nRedo: 01-01, Task: 2\nSpec: S"));
  index.refresh(); // read incrementally
  CHECK(index.standing_tasks("01-01", test::only_spec("S")) == Done{{1, t1}});
  CHECK(index.commits_for("01-01").size() == 2); // a marker is no commit of the plan
  const auto t2b = repo.commit("b.txt", "b again\n\nPlan: 01-01, Task: 2/2\nSpec: S");
  index.refresh();
  CHECK(index.standing_tasks("01-01", test::only_spec("S")) == Done{{1, t1}, {2, t2b}});
  worker::TrailerIndex fresh(repo.dir.path); // the same history read in one go
  fresh.refresh();
  CHECK(fresh.standing_tasks("01-01", test::only_spec("S")) == Done{{1, t1}, {2, t2b}});
  REQUIRE(worker::commit_marker(repo.dir.path, lock, {}, "redo\n\nRedo: 01-01\nSpec: S"));
  fresh.refresh();
  CHECK(fresh.standing_tasks("01-01", test::only_spec("S")).empty());
  // The script worker's own reading of the history agrees.
  CHECK(worker::committed_tasks(repo.dir.path, "01-01", test::only_spec("S")).empty());
  const auto t1b = repo.commit("a.txt", "a again\n\nPlan: 01-01, Task: 1/2\nSpec: S");
  CHECK(worker::committed_tasks(repo.dir.path, "01-01", test::only_spec("S")) == Done{{1, t1b}});
}

TEST_CASE("changed_paths limited to globs looks only at the matching paths", "[worker][git]") {
  GitRepo repo;
  repo.commit("keep.txt", "k");
  repo.dir.write("out/a.txt", "a\n");
  repo.dir.write("out/deep/b.txt", "b\n");
  repo.dir.write("other/c.txt", "c\n");
  repo.dir.write("keep.txt", "changed\n");
  auto names = [](const std::vector<worker::GitChange>& v) {
    std::vector<std::string> out;
    for (const auto& c : v) out.push_back(c.path);
    std::sort(out.begin(), out.end());
    return out;
  };
  CHECK(names(worker::changed_paths(repo.dir.path)) ==
        std::vector<std::string>{"keep.txt", "other/c.txt", "out/a.txt", "out/deep/b.txt"});
  CHECK(names(worker::changed_paths(repo.dir.path, {"out/**"})) == std::vector<std::string>{"out/a.txt", "out/deep/b.txt"});
  CHECK(names(worker::changed_paths(repo.dir.path, {"out/*.txt"})) == std::vector<std::string>{"out/a.txt"});
  CHECK(names(worker::changed_paths(repo.dir.path, {"other", "keep.txt"})) == std::vector<std::string>{"keep.txt", "other/c.txt"});
}

TEST_CASE("git's warnings on stderr never become part of a path: status, ls-files and commits read stdout only",
          "[worker][git]") {
  GitRepo repo;
  repo.commit("keep.txt", "k");
  // An fsmonitor hook that cannot do its work (git's sample one without watchman): git warns on
  // stderr, falls back to scanning, and succeeds.
  repo.dir.write(".git/fsm.sh", "#!/bin/sh\necho 'fsmonitor: watchman is not installed' >&2\nexit 0\n");
  test::sh(repo.dir.path, "chmod +x .git/fsm.sh && git config core.fsmonitor .git/fsm.sh");
  repo.dir.write("out/a.txt", "a\n");
  const auto changes = worker::changed_paths(repo.dir.path, {"out/**"});
  REQUIRE(changes.size() == 1);
  CHECK(changes[0].path == "out/a.txt");
  auto hash = worker::commit_paths(repo.dir.path, repo.dir.path / ".orchestration/git.lock", {"out/a.txt"}, "a");
  REQUIRE(hash);
  CHECK(hash->size() == 40);
  auto marker = worker::commit_marker(repo.dir.path, repo.dir.path / ".orchestration/git.lock", {"keep.txt"}, "marker");
  REQUIRE(marker);
  CHECK(test::sh(repo.dir.path, "git -c core.fsmonitor= status --porcelain") == "");
  // stderr still reaches the messages of a git that fails.
  const auto r = worker::run_git(repo.dir.path, {"rev-parse", "--verify", "no-such-ref"});
  CHECK(r.exit_code != 0);
  CHECK(r.out.empty());
  CHECK(r.messages().find("fatal: Needed a single revision") != std::string::npos);
  CHECK_FALSE(r.messages().ends_with('\n')); // it ends a message
  CHECK(worker::GitResult{1, "out\n", "err\n"}.messages() == "err\nout");
}

TEST_CASE("changed_paths counts an intent-to-add file as added, as a staged one", "[worker][git]") {
  GitRepo repo;
  repo.commit("a.txt", "first");
  repo.dir.write("ita.txt", "i\n");
  repo.dir.write("staged.txt", "s\n");
  repo.dir.write("loose.txt", "l\n");
  test::sh(repo.dir.path, "git add -N ita.txt && git add staged.txt");
  // What a commit killed between moving the branch and writing the index leaves: the file in
  // HEAD, an intent-to-add entry in the index ("DA"). Not new: HEAD has it.
  repo.dir.write("landed.txt", "l\n");
  test::sh(repo.dir.path, "git add -N landed.txt && cp .git/index .git/index.before && git commit -q -m landed -- landed.txt && "
                          "mv .git/index.before .git/index");
  REQUIRE(test::sh(repo.dir.path, "git status --porcelain landed.txt") == "DA landed.txt\n");
  const auto changes = worker::changed_paths(repo.dir.path);
  CHECK(changes.size() == 4);
  for (const auto& c : changes) {
    CAPTURE(c.path);
    CHECK(c.added == (c.path == "ita.txt" || c.path == "staged.txt"));
    CHECK(c.untracked == (c.path == "loose.txt"));
  }
}

TEST_CASE("porcelain_entries reads a rename or copy as one record with its source, whichever letter says so", "[worker][git]") {
  using namespace std::string_literals;
  const auto out = "R  src/b.txt\0src/a.txt\0"s      // staged rename
                   " R src/new.txt\0src/old.txt\0"s  // work-tree rename of an intent-to-add entry
                   "C  src/c.txt\0src/a.txt\0"s      // copy (status.renames=copies)
                   "RM two words.txt\0one word.txt\0"s
                   " M line\nbreak.txt\0"s
                   "?? new file.txt\0"s
                   "!! build/out.o\0"s;
  const auto entries = worker::porcelain_entries(out);
  REQUIRE(entries.size() == 7);
  auto is = [](const worker::PorcelainEntry& e, char x, char y, const std::string& path, const std::string& source) {
    return e.index == x && e.work_tree == y && e.path == path && e.source == source;
  };
  CHECK(is(entries[0], 'R', ' ', "src/b.txt", "src/a.txt"));
  CHECK(is(entries[1], ' ', 'R', "src/new.txt", "src/old.txt"));
  CHECK(is(entries[2], 'C', ' ', "src/c.txt", "src/a.txt"));
  CHECK(is(entries[3], 'R', 'M', "two words.txt", "one word.txt"));
  CHECK(is(entries[4], ' ', 'M', "line\nbreak.txt", ""));
  CHECK(is(entries[5], '?', '?', "new file.txt", ""));
  CHECK(is(entries[6], '!', '!', "build/out.o", ""));
  CHECK(worker::porcelain_entries("").empty());
  CHECK(worker::porcelain_entries("R  cut\0"s).size() == 1); // a source cut off is no entry of its own
}

namespace {
/// changed_paths as "path:flags" (a added, u untracked, d deleted), sorted.
std::vector<std::string> change_list(const fs::path& root, const std::vector<std::string>& globs = {}) {
  std::vector<std::string> out;
  for (const auto& c : worker::changed_paths(root, globs))
    out.push_back(c.path + ":" + (c.added ? "a" : "") + (c.untracked ? "u" : "") + (c.deleted ? "d" : ""));
  std::sort(out.begin(), out.end());
  return out;
}
} // namespace

TEST_CASE("changed_paths reads a staged rename as its new path added and its old one deleted", "[worker][git]") {
  GitRepo repo;
  repo.commit("src/a.txt", "alpha");
  test::sh(repo.dir.path, "git mv src/a.txt src/b.txt");
  REQUIRE(test::sh(repo.dir.path, "git status --porcelain=v1") == "R  src/a.txt -> src/b.txt\n");
  CHECK(change_list(repo.dir.path) == std::vector<std::string>{"src/a.txt:d", "src/b.txt:a"});
  CHECK(change_list(repo.dir.path, {"src/**"}) == std::vector<std::string>{"src/a.txt:d", "src/b.txt:a"});
}

TEST_CASE("changed_paths reads a work-tree rename of an intent-to-add entry as two changes", "[worker][git]") {
  GitRepo repo;
  repo.commit("src/old.txt", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10");
  // What a commit_paths killed after its `git add -N` leaves when a task moved a file: git 2.39
  // reports the pair as a rename in the work tree.
  test::sh(repo.dir.path, "mv src/old.txt src/new.txt && git add -N src/new.txt");
  REQUIRE(test::sh(repo.dir.path, "git status --porcelain=v1") == " R src/old.txt -> src/new.txt\n");
  CHECK(change_list(repo.dir.path) == std::vector<std::string>{"src/new.txt:a", "src/old.txt:d"});
}

TEST_CASE("changed_paths reads a copy as its new path only: its source is listed on its own", "[worker][git]") {
  GitRepo repo;
  repo.commit("src/a.txt", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10");
  // git looks for copies (status.renames=copies, a user's setting) among the changed paths only.
  test::sh(repo.dir.path, "git config status.renames copies && cp src/a.txt src/c.txt && echo 11 >> src/a.txt && "
                          "git add src/a.txt src/c.txt");
  REQUIRE(test::sh(repo.dir.path, "git status --porcelain=v1") == "M  src/a.txt\nC  src/a.txt -> src/c.txt\n");
  CHECK(change_list(repo.dir.path) == std::vector<std::string>{"src/a.txt:", "src/c.txt:a"});
}

TEST_CASE("changed_paths keeps a renamed path's spaces and newlines", "[worker][git]") {
  GitRepo repo;
  repo.commit("one word.txt", "alpha");
  test::sh(repo.dir.path, "git mv 'one word.txt' \"$(printf 'two\\nlines.txt')\"");
  CHECK(change_list(repo.dir.path) == std::vector<std::string>{"one word.txt:d", "two\nlines.txt:a"});
}

TEST_CASE("HARNESS_DONE_TASKS round-trips and rejects malformed values", "[worker][git]") {
  std::vector<std::pair<int, std::string>> done{{1, "0123abcd"}, {3, "ffff"}};
  CHECK(worker::format_done_tasks(done) == "1=0123abcd,3=ffff");
  CHECK(worker::parse_done_tasks("1=0123abcd,3=ffff") == done);
  CHECK(worker::parse_done_tasks("")->empty());
  CHECK_FALSE(worker::parse_done_tasks("1=").has_value());
  CHECK_FALSE(worker::parse_done_tasks("x=abc").has_value());
  CHECK_FALSE(worker::parse_done_tasks("1=abc;rm -rf").has_value());
}

TEST_CASE("A file lock held elsewhere is waited for, and says so", "[worker][lock]") {
  test::TempDir dir;
  const auto file = dir.path / "locks/01-01.lock";
  {
    worker::FileLock first(file);
    CHECK_FALSE(first.waited());
  }
  std::atomic<bool> released{false};
  auto holder = std::make_unique<worker::FileLock>(file);
  std::thread t([&] {
    worker::FileLock second(file); // a separate open file description: flock excludes it
    CHECK(released.load());
    CHECK(second.waited());
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  released = true;
  holder.reset();
  t.join();
  CHECK(fs::exists(dir.path / "locks/.gitignore"));
}

TEST_CASE("A path git would read as pathspec magic is looked up as the path it is", "[worker][git]") {
  CHECK(worker::glob_pathspec("src/a.txt") == "src/a.txt");
  CHECK(worker::glob_pathspec("src/**") == ":(glob)src/**");
  CHECK(worker::glob_pathspec(":c") == ":(literal):c");
  CHECK(worker::glob_pathspec(":(literal)a[1].txt") == ":(literal)a[1].txt"); // a caller's own pathspec
  GitRepo repo;
  repo.commit("a.txt", "first");
  repo.dir.write(":c/x.txt", "x\n");
  repo.dir.write("c/y.txt", "y\n");
  const auto changes = worker::changed_paths(repo.dir.path, {":c"});
  REQUIRE(changes.size() == 1);
  CHECK(changes[0].path == ":c/x.txt");
}

TEST_CASE("A look at a file lock tells held from free without taking it", "[worker][lock]") {
  test::TempDir dir;
  const auto file = dir.path / "locks/git.lock";
  CHECK_FALSE(worker::FileLock::held(file)); // not there yet
  {
    worker::FileLock mine(file);
    CHECK(worker::FileLock::held(file)); // held, even by this process through another open
  }
  CHECK_FALSE(worker::FileLock::held(file));
  // Held by another process (util-linux's flock, as a worker's commit holds it).
  test::sh(dir.path, "flock '" + file.string() + "' sleep 2 >/dev/null 2>&1 & sleep 0.3");
  CHECK(worker::FileLock::held(file));
  worker::FileLock after(file); // the look took nothing: the lock is the holder's until it ends
  CHECK(after.waited());
  CHECK_FALSE(worker::FileLock::held(dir.path / "locks/none.lock"));
}

TEST_CASE("A killed commit's HEAD.lock and branch ref lock are removed with no git running", "[worker][git][lock]") {
  GitRepo repo;
  repo.commit("a.txt", "first");
  std::string ref = test::sh(repo.dir.path, "git symbolic-ref HEAD");
  ref.pop_back();
  repo.dir.write(".git/HEAD.lock", "");
  repo.dir.write(".git/" + ref + ".lock", "");
  CHECK(worker::remove_orphaned_git_locks(repo.dir.path) ==
        std::vector<fs::path>{repo.dir.path / ".git/HEAD.lock", repo.dir.path / ".git" / (ref + ".lock")});
  repo.dir.write("b.txt", "b\n");
  CHECK(worker::commit_paths(repo.dir.path, repo.dir.path / ".orchestration/git.lock", {"b.txt"}, "second"));
}

TEST_CASE("A commit killed after moving the branch leaves an intent-to-add entry: it is set back to HEAD's", "[worker][git][lock]") {
  GitRepo repo;
  repo.commit("a.txt", "first");
  // What `git commit --only -- new.txt` leaves when killed between moving the branch and writing
  // the index: HEAD has new.txt, the index an intent-to-add entry of it ("DA").
  repo.dir.write("new.txt", "new\n");
  test::sh(repo.dir.path, "git add -N new.txt && GIT_INDEX_FILE=.git/tmp-index git read-tree HEAD && "
                          "GIT_INDEX_FILE=.git/tmp-index git update-index --add new.txt && "
                          "git update-ref HEAD $(git commit-tree $(GIT_INDEX_FILE=.git/tmp-index git write-tree) -p HEAD -m killed) && "
                          "rm .git/tmp-index");
  CHECK(test::sh(repo.dir.path, "git status --porcelain=v1 -- new.txt") == "DA new.txt\n");
  // A staged deletion of a file HEAD has is the user's, and stays.
  test::sh(repo.dir.path, "git rm -q --cached a.txt");
  CHECK(worker::restore_killed_commit_entries(repo.dir.path) == std::vector<std::string>{"new.txt"});
  CHECK(test::sh(repo.dir.path, "git status --porcelain=v1 -- new.txt a.txt") == "D  a.txt\n?? a.txt\n");
  // A plain commit now keeps new.txt in HEAD (before, it committed its deletion).
  test::sh(repo.dir.path, "git commit -qm 'the user commits'");
  CHECK(test::sh(repo.dir.path, "git ls-tree --name-only HEAD") == "new.txt\n");
  CHECK(worker::restore_killed_commit_entries(repo.dir.path) == std::vector<std::string>{}); // nothing left to set back
}

TEST_CASE("A commit stopped after moving the branch leaves a changed file's old entry: it is set back to HEAD's", "[worker][git][lock]") {
  GitRepo repo;
  repo.commit("a.txt", "first");
  repo.commit("b.txt", "b");
  // What `git commit --only -- a.txt` leaves when stopped between moving the branch and writing
  // the index (git rolls its index.lock back on SIGTERM): HEAD and the work tree have the second
  // line, the index still the first alone ("MM"). The crash test met it.
  repo.dir.write("a.txt", "first\nsecond\n");
  test::sh(repo.dir.path, "GIT_INDEX_FILE=.git/tmp-index git read-tree HEAD && GIT_INDEX_FILE=.git/tmp-index git update-index a.txt && "
                          "git update-ref HEAD $(git commit-tree $(GIT_INDEX_FILE=.git/tmp-index git write-tree) -p HEAD -m stopped) && "
                          "rm .git/tmp-index");
  CHECK(test::sh(repo.dir.path, "git status --porcelain=v1 -- a.txt") == "MM a.txt\n");
  // A person's staged change whose work tree differs from HEAD stays staged, and so does the
  // work tree's further change of a staged file.
  repo.dir.write("b.txt", "b staged\n");
  test::sh(repo.dir.path, "git add b.txt");
  repo.dir.write("b.txt", "b staged, then edited\n");
  CHECK(worker::restore_killed_commit_entries(repo.dir.path) == std::vector<std::string>{"a.txt"});
  CHECK(test::sh(repo.dir.path, "git status --porcelain=v1") == "MM b.txt\n");
  CHECK(test::sh(repo.dir.path, "git show :b.txt") == "b staged\n");
  // A plain commit now keeps the second line (before, it took it back out).
  test::sh(repo.dir.path, "git commit -qm 'the user commits'");
  CHECK(test::sh(repo.dir.path, "git show HEAD:a.txt") == "first\nsecond\n");
  CHECK(worker::restore_killed_commit_entries(repo.dir.path) == std::vector<std::string>{}); // nothing left to set back
}

TEST_CASE("An index.lock no git process holds is removed; one a git in the repository may hold is kept", "[worker][git][lock]") {
  GitRepo repo;
  const fs::path lock = repo.dir.path / ".git/index.lock";
  CHECK(worker::index_lock_path(repo.dir.path) == lock);
  CHECK(worker::remove_orphaned_git_locks(repo.dir.path).empty()); // none there
  repo.dir.write(".git/index.lock", "");
  // A process named git working in the repository (a copy of sleep, so that its name is "git").
  test::TempDir bin;
  fs::copy_file("/bin/sleep", bin.path / "git");
  fs::create_directories(repo.dir.path / "sub");
  test::sh(repo.dir.path / "sub", "'" + (bin.path / "git").string() + "' 30 >/dev/null 2>&1 & echo $! > '" +
                                      (bin.path / "pid").string() + "'");
  const int pid = std::stoi(*util::read_file(bin.path / "pid"));
  for (int i = 0; i < 100 && worker::git_processes_in(repo.dir.path).empty(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  CHECK(worker::git_processes_in(repo.dir.path) == std::vector<int>{pid});
  CHECK(worker::remove_orphaned_git_locks(repo.dir.path).empty());
  CHECK(fs::exists(lock));
  ::kill(pid, SIGKILL);
  for (int i = 0; i < 100 && !worker::git_processes_in(repo.dir.path).empty(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  CHECK(worker::remove_orphaned_git_locks(repo.dir.path) == std::vector<fs::path>{lock}); // that git is gone (a zombie holds nothing)
  CHECK_FALSE(fs::exists(lock));
}

TEST_CASE("The two halves of the lock look: a lock rewritten or taken away between them is not nobody's", "[worker][git][lock]") {
  GitRepo repo;
  const fs::path lock = repo.dir.path / ".git/index.lock";
  CHECK(worker::first_lock_look(repo.dir.path).locks.empty()); // none there
  repo.dir.write(".git/index.lock", "");
  const auto seen = worker::first_lock_look(repo.dir.path);
  REQUIRE(seen.locks == std::vector<fs::path>{lock});
  CHECK(worker::second_lock_look(repo.dir.path, seen) == std::vector<fs::path>{lock}); // unchanged: nobody's
  // Another git took the lock anew between the looks: its write time moved.
  fs::last_write_time(lock, seen.written[0] + std::chrono::seconds(1));
  CHECK(worker::second_lock_look(repo.dir.path, seen).empty());
  // Or it ended and took its lock with it.
  const auto again = worker::first_lock_look(repo.dir.path);
  fs::remove(lock);
  CHECK(worker::second_lock_look(repo.dir.path, again).empty());
  // Removing what the second look found.
  repo.dir.write(".git/index.lock", "");
  const auto third = worker::first_lock_look(repo.dir.path);
  CHECK(worker::remove_git_locks(worker::second_lock_look(repo.dir.path, third)) == std::vector<fs::path>{lock});
  CHECK_FALSE(fs::exists(lock));
}

TEST_CASE("A linked worktree's index.lock is in the directory its .git file names", "[worker][git][lock]") {
  GitRepo repo;
  repo.commit("a.txt", "a");
  test::sh(repo.dir.path, "git worktree add -q wt");
  const auto expected = fs::weakly_canonical(repo.dir.path / ".git/worktrees/wt") / "index.lock";
  CHECK(fs::weakly_canonical(worker::index_lock_path(repo.dir.path / "wt").parent_path()) / "index.lock" == expected);
}

TEST_CASE("A linked worktree's branch ref lock a killed commit left is found in the common directory and removed",
          "[worker][git][lock]") {
  GitRepo repo;
  repo.commit("a.txt", "a");
  test::sh(repo.dir.path, "git worktree add -q wt -b side");
  const fs::path wt = repo.dir.path / "wt";
  // What a git killed while it moved the branch leaves: the branch's ref lock, which git keeps in
  // the common directory (.git/refs/heads), not in .git/worktrees/wt.
  repo.dir.write(".git/refs/heads/side.lock", "");
  repo.dir.write("wt/x.txt", "x\n");
  const fs::path lock = wt / ".orchestration/git.lock";
  // Every commit on the branch fails on it (a plain git here: commit_paths would wait 10 s first).
  CHECK_THAT(test::sh(wt, "git commit -q --allow-empty -m y 2>&1 || true"), Catch::Contains("side.lock': File exists"));
  const auto removed = worker::remove_orphaned_git_locks(wt);
  REQUIRE(removed.size() == 1);
  CHECK(fs::equivalent(removed[0].parent_path(), repo.dir.path / ".git/refs/heads"));
  CHECK_FALSE(fs::exists(repo.dir.path / ".git/refs/heads/side.lock"));
  const auto after = worker::commit_paths(wt, lock, {"x.txt"}, "x");
  INFO((after ? *after : after.error()));
  CHECK(after);
  CHECK(worker::common_dir(repo.dir.path / ".git") == repo.dir.path / ".git"); // the main repository's own
}

TEST_CASE("A packed-refs.lock a killed git left is removed once no git runs, a linked worktree's from the common "
          "directory",
          "[worker][git][lock]") {
  GitRepo repo;
  repo.commit("a.txt", "a");
  test::sh(repo.dir.path, "git branch gone && git pack-refs --all && git worktree add -q wt -b side");
  // What a git killed while it rewrote packed-refs (pack-refs, a branch or tag deletion) leaves.
  repo.dir.write(".git/packed-refs.lock", "");
  CHECK_THAT(test::sh(repo.dir.path, "git branch -D gone 2>&1 || true"), Catch::Contains("packed-refs.lock': File exists"));
  const auto removed = worker::remove_orphaned_git_locks(repo.dir.path / "wt");
  REQUIRE(removed.size() == 1);
  CHECK(fs::equivalent(removed[0].parent_path(), repo.dir.path / ".git"));
  CHECK(removed[0].filename() == "packed-refs.lock");
  CHECK_THAT(test::sh(repo.dir.path, "git branch -D gone 2>&1"), Catch::Contains("Deleted branch gone"));
}

namespace {

/// A process named git (a copy of sleep) working in `dir`, killed when the object goes.
struct FakeGit {
  test::TempDir bin;
  int pid = 0;
  explicit FakeGit(const fs::path& dir) {
    fs::copy_file("/bin/sleep", bin.path / "git");
    test::sh(dir, "'" + (bin.path / "git").string() + "' 30 >/dev/null 2>&1 & echo $! > '" + (bin.path / "pid").string() + "'");
    pid = std::stoi(*util::read_file(bin.path / "pid"));
    for (int i = 0; i < 100 && util::read_file(fs::path("/proc") / std::to_string(pid) / "comm") != "git\n"; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ~FakeGit() { stop(); }
  FakeGit(const FakeGit&) = delete;
  FakeGit& operator=(const FakeGit&) = delete;
  void stop() {
    if (pid <= 0) return;
    ::kill(pid, SIGKILL);
    // Its shell is gone, so init reaps it; a zombie until then, which holds nothing.
    for (int i = 0; i < 100; ++i) {
      if (auto stat = util::read_proc_stat(pid); !stat || stat->exited()) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    pid = 0;
  }
};

} // namespace

TEST_CASE("A linked worktree's branch lock is kept while a git works in the main checkout or another worktree",
          "[worker][git][lock]") {
  GitRepo repo;
  repo.commit("a.txt", "a");
  test::TempDir elsewhere;
  const fs::path other = elsewhere.path / "other";
  test::sh(repo.dir.path, "git worktree add -q wt -b side && git worktree add -q '" + other.string() + "' -b third");
  const fs::path wt = repo.dir.path / "wt";
  const fs::path lock = repo.dir.path / ".git/refs/heads/side.lock";
  repo.dir.write(".git/refs/heads/side.lock", "");
  fs::create_directories(repo.dir.path / "sub");
  {
    // `git branch -f side` or `git update-ref refs/heads/side` run in the main checkout holds it.
    FakeGit main_checkout(repo.dir.path / "sub");
    CHECK(worker::git_processes_in(wt).empty()); // not in the worktree's own directory
    CHECK(worker::git_processes_in_repository(wt) == std::vector<int>{main_checkout.pid});
    CHECK(worker::remove_orphaned_git_locks(wt).empty());
    CHECK(fs::exists(lock));
  }
  {
    FakeGit other_worktree(other);
    CHECK(worker::git_processes_in_repository(wt) == std::vector<int>{other_worktree.pid});
    CHECK(worker::remove_orphaned_git_locks(wt).empty());
    CHECK(fs::exists(lock));
  }
  CHECK(worker::git_processes_in_repository(wt).empty());
  const auto removed = worker::remove_orphaned_git_locks(wt);
  REQUIRE(removed.size() == 1);
  CHECK(fs::equivalent(removed[0].parent_path(), repo.dir.path / ".git/refs/heads"));
  CHECK_FALSE(fs::exists(lock));
}

TEST_CASE("HEAD names a branch or, detached, a commit; anything else is no HEAD", "[worker][git]") {
  CHECK(worker::parse_head("ref: refs/heads/main\n") == worker::GitHead{"main", ""});
  CHECK(worker::parse_head("ref: refs/heads/feature/x\r\n") == worker::GitHead{"feature/x", ""});
  const std::string hash(40, 'a');
  CHECK(worker::parse_head(hash + "\n") == worker::GitHead{"", hash});
  CHECK(worker::parse_head(std::string(64, 'b')) == worker::GitHead{"", std::string(64, 'b')});
  CHECK_FALSE(worker::parse_head(""));
  CHECK_FALSE(worker::parse_head("ref: "));
  CHECK_FALSE(worker::parse_head("not a head"));
  CHECK(worker::describe({"main", ""}) == "main");
  CHECK(worker::describe({"", hash}) == "a detached HEAD (at aaaaaaaaaa)");
}

TEST_CASE("read_head follows a switch and a detach in the git directory, a worktree's own too", "[worker][git]") {
  GitRepo repo;
  repo.commit("a.txt", "a");
  test::sh(repo.dir.path, "git branch -M main");
  const auto git_dir = repo.dir.path / ".git";
  CHECK(worker::read_head(git_dir) == worker::GitHead{"main", ""});
  test::sh(repo.dir.path, "git switch -q -c other");
  CHECK(worker::read_head(git_dir) == worker::GitHead{"other", ""});
  test::sh(repo.dir.path, "git switch -q --detach");
  const auto detached = worker::read_head(git_dir);
  REQUIRE(detached);
  CHECK(detached->branch.empty());
  CHECK(detached->commit.size() == 40);
  test::sh(repo.dir.path, "git worktree add -q wt -b side");
  CHECK(worker::read_head(git_dir / "worktrees/wt") == worker::GitHead{"side", ""});
  CHECK_FALSE(worker::read_head(repo.dir.path / "no-git-dir"));
}

TEST_CASE("read_head_commit reads the branch's loose ref, packed-refs, or a worktree's common directory", "[worker][git]") {
  GitRepo repo;
  const auto first = repo.commit("a.txt", "a");
  test::sh(repo.dir.path, "git branch -M main");
  const auto git_dir = repo.dir.path / ".git";
  CHECK(worker::read_head_commit(git_dir, {"main", ""}) == first);
  const auto second = repo.commit("b.txt", "b");
  CHECK(worker::read_head_commit(git_dir, {"main", ""}) == second);
  test::sh(repo.dir.path, "git pack-refs --all --prune");
  REQUIRE_FALSE(fs::exists(git_dir / "refs/heads/main"));
  CHECK(worker::read_head_commit(git_dir, {"main", ""}) == second);
  test::sh(repo.dir.path, "git worktree add -q wt -b side");
  const auto third = [&] {
    test::sh(repo.dir.path / "wt", "echo c > c.txt && git add c.txt && git commit -qm c");
    return test::sh(repo.dir.path / "wt", "git rev-parse HEAD").substr(0, 40);
  }();
  CHECK(worker::read_head_commit(git_dir / "worktrees/wt", {"side", ""}) == third);
  CHECK(worker::read_head_commit(git_dir, {"", first}) == first); // detached: HEAD's own commit
  CHECK_FALSE(worker::read_head_commit(git_dir, {"no-such-branch", ""}));
  CHECK_FALSE(worker::read_head_commit({}, {"main", ""}));
}

TEST_CASE("find_rewind: a fast forward is none; a reset or an amend lists what left the branch and what came", "[worker][git]") {
  GitRepo repo;
  const auto a = repo.commit("a.txt", "feat(01-01): task 1\n\nPlan: 01-01, Task: 1/1\nSpec: SPC-001-x");
  const auto b = repo.commit("b.txt", "feat(01-02): task 1\n\nPlan: 01-02, Task: 1/1\nSpec: SPC-001-x");
  const auto c = repo.commit("c.txt", "docs(SPC-001-x): verify plan 01-02");
  CHECK_FALSE(worker::find_rewind(repo.dir.path, a, c)); // the branch grew
  CHECK_FALSE(worker::find_rewind(repo.dir.path, c, c));
  CHECK_FALSE(worker::find_rewind(repo.dir.path, std::string(40, 'f'), c)); // git cannot tell: no guess

  auto reset = worker::find_rewind(repo.dir.path, c, a); // git reset --hard HEAD~2
  REQUIRE(reset);
  REQUIRE(reset->lost.size() == 2);
  CHECK(reset->lost[0].hash == c);
  CHECK(reset->lost[0].subject == "docs(SPC-001-x): verify plan 01-02");
  CHECK(reset->lost[1].hash == b);
  CHECK(reset->lost[1].plan == "01-02");
  CHECK(reset->added.empty());

  test::sh(repo.dir.path, "git commit -q --amend -m 'amended by a worker'");
  const auto amended = test::sh(repo.dir.path, "git rev-parse HEAD").substr(0, 40);
  auto amend = worker::find_rewind(repo.dir.path, c, amended);
  REQUIRE(amend);
  REQUIRE(amend->lost.size() == 1);
  CHECK(amend->lost[0].hash == c);
  REQUIRE(amend->added.size() == 1);
  CHECK(amend->added[0].subject == "amended by a worker");
}

TEST_CASE("proven_descent: a path of parents to the ancestor proves it; a missing link or a cut proves nothing", "[worker][git]") {
  // k <- a <- b <- m (a merge of b and s) ; s <- r (a side line); c is cut (a shallow clone's graft)
  const std::map<std::string, std::vector<std::string>> parents = {
      {"a", {"k"}}, {"b", {"a"}}, {"m", {"b", "s"}}, {"s", {"r"}}, {"c", {}}, {"d", {"c"}}, {"x", {"y"}}, {"y", {"x"}}};
  CHECK(worker::proven_descent(parents, "b", "b"));  // no move at all
  CHECK(worker::proven_descent(parents, "a", "k"));  // one commit on top: k, outside the map, is its parent
  CHECK(worker::proven_descent(parents, "m", "k"));  // through the merge's first parent
  CHECK(worker::proven_descent(parents, "m", "r"));  // and through its second
  CHECK_FALSE(worker::proven_descent(parents, "k", "b")); // backwards: a reset
  CHECK_FALSE(worker::proven_descent(parents, "b", "s")); // another line
  CHECK_FALSE(worker::proven_descent(parents, "d", "k")); // the cut lists no parents: git must tell
  CHECK_FALSE(worker::proven_descent(parents, "z", "k")); // a commit the map does not hold
  CHECK_FALSE(worker::proven_descent(parents, "x", "k")); // a cycle ends (replace refs can make one)
}

TEST_CASE("The trailer index proves a fast forward from the parents it reads, and leaves a rewind to git", "[worker][git]") {
  GitRepo repo;
  const auto start = repo.commit("s.txt", "before the run");
  worker::TrailerIndex index(repo.dir.path);
  CHECK_FALSE(index.descends(start, std::string(40, 'f'))); // nothing read yet: no proof
  index.refresh();
  const auto a = repo.commit("a.txt", "feat(01-01): task 1\n\nPlan: 01-01, Task: 1/1\nSpec: SPC-001-x");
  const auto b = repo.commit("b.txt", "docs(01-01): summary\n\nPlan: 01-01\nSpec: SPC-001-x");
  CHECK(index.commits_for("01-01").empty());
  CHECK(index.descends(b, start)); // reads start..b: two commits on top of the start
  CHECK(index.commits_for("01-01").size() == 2); // read for good: the next refresh does not read them again
  CHECK(index.descends(b, a));
  CHECK(index.descends(a, start));
  CHECK_FALSE(index.descends(start, b)); // `git reset --hard HEAD~2`
  CHECK_FALSE(worker::find_rewind(repo.dir.path, start, b)); // what git says, agreed
  CHECK(worker::find_rewind(repo.dir.path, b, start));
  test::sh(repo.dir.path, "git reset -q --hard " + a + " && git commit -q --allow-empty -m amended");
  const auto amended = test::sh(repo.dir.path, "git rev-parse HEAD").substr(0, 40);
  CHECK_FALSE(index.descends(amended, b)); // b left the branch
  CHECK(index.descends(amended, a));
  CHECK(worker::find_rewind(repo.dir.path, b, amended));
}

TEST_CASE("A refresh starts no git when HEAD stands on the newest commit the trailer index read", "[worker][git]") {
  GitRepo repo;
  const auto start = repo.commit("s.txt", "before the run");
  worker::TrailerIndex index(repo.dir.path, repo.dir.path / ".git");
  index.refresh();
  const auto a = repo.commit("a.txt", "feat(01-01): task 1\n\nPlan: 01-01, Task: 1/1\nSpec: SPC-001-x");
  REQUIRE(index.descends(a, start)); // a head check read it
  const fs::path trace = repo.dir.path / "trace.log";
  ::setenv("GIT_TRACE", trace.c_str(), 1);
  index.refresh();
  const std::string quiet = util::read_file(trace).value_or("");
  repo.commit("b.txt", "docs(01-01): summary\n\nPlan: 01-01\nSpec: SPC-001-x");
  index.refresh();
  const std::string read = util::read_file(trace).value_or("");
  ::unsetenv("GIT_TRACE");
  CHECK(quiet.find(" log ") == std::string::npos);
  CHECK(read.find(" log ") != std::string::npos);
  CHECK(index.commits_for("01-01").size() == 2);
}

TEST_CASE("In a shallow clone the trailer index proves what the run commits on top of the cut", "[worker][git]") {
  GitRepo origin;
  const auto old = origin.commit("a.txt", "old");
  const auto cut = origin.commit("b.txt", "newest before the clone");
  test::TempDir clone_dir;
  test::sh(clone_dir.path, "git clone -q --depth 1 file://" + origin.dir.path.string() + " c");
  const fs::path clone = clone_dir.path / "c";
  worker::TrailerIndex index(clone);
  index.refresh();
  clone_dir.write("c/x.txt", "x\n");
  const auto x = worker::commit_paths(clone, clone / ".orchestration/git.lock", {"x.txt"}, "on top");
  REQUIRE(x);
  CHECK(index.descends(*x, cut));
  CHECK_FALSE(index.descends(*x, old)); // beyond the cut: the clone does not hold it; git is asked, as before
  CHECK_FALSE(worker::find_rewind(clone, old, *x)); // and git cannot tell either: no rewind is claimed
}

TEST_CASE("ignored_paths lists each ignored file a glob matches, and ignore_rule names the rule", "[worker][git]") {
  GitRepo repo;
  repo.commit("keep.md", "k");
  repo.dir.write("out/x/a.txt", "a\n");
  repo.dir.write("out/x/b.txt", "b\n");
  repo.dir.write("out/x/c.md", "c\n");
  CHECK(worker::ignored_paths(repo.dir.path, {"out/**"}).empty());
  repo.dir.write(".git/info/exclude", "*.txt\n");
  CHECK(worker::ignored_paths(repo.dir.path, {"out/**"}) == std::vector<std::string>{"out/x/a.txt", "out/x/b.txt"});
  CHECK(worker::ignored_paths(repo.dir.path, {"out/x/b.txt"}) == std::vector<std::string>{"out/x/b.txt"});
  CHECK(worker::ignore_rule(repo.dir.path, "out/x/a.txt") == "'*.txt' in .git/info/exclude");
  CHECK(worker::ignore_rule(repo.dir.path, "out/x/c.md").empty());
  repo.dir.write(".gitignore", "out/\n"); // a directory rule: its files one by one still
  CHECK(worker::ignored_paths(repo.dir.path, {"out/x/**"}).size() == 3);
  CHECK(worker::ignore_rule(repo.dir.path, "out/x/c.md") == "'out/' in .gitignore");
}
