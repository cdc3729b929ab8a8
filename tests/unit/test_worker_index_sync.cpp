// The shared index after a commit whose pre-commit hook fixed and re-staged files: it holds what
// the commit holds, as after a commit no hook changed, and what the user staged stays staged.
#include "harness/worker/git.hpp"
#include "harness/worker/index_sync.hpp"
#include "git_hook_util.hpp"
#include "spec_test_util.hpp"

#include <catch2/catch.hpp>

using namespace harness;
namespace fs = std::filesystem;

namespace {

/// A repository with one commit and a lint-staged-style pre-commit hook: every staged .txt file
/// gets a "# formatted" line and is added again; BUILD-STAMP is written and added too.
struct HookedRepo {
  test::TempDir dir;
  HookedRepo() {
    test::set_git_identity();
    test::sh(dir.path, "git init -q && echo base > base.md && git add base.md && git commit -qm base");
    test::write_hook(dir, ".git/hooks/pre-commit",
                     "#!/bin/sh\n"
                     "for f in $(git diff --cached --name-only --diff-filter=AM -- '*.txt'); do\n"
                     "  grep -q '^# formatted$' \"$f\" || echo '# formatted' >> \"$f\"; git add \"$f\"\n"
                     "done\n"
                     "echo stamp > BUILD-STAMP; git add BUILD-STAMP\n");
  }
  std::string status() const { return test::sh(dir.path, "git status --porcelain"); }
};

} // namespace

TEST_CASE("After a commit a formatting hook changed, the index holds the formatted files, not their revert",
          "[worker][git][index]") {
  HookedRepo repo;
  repo.dir.write("out/a.txt", "a\n");
  repo.dir.write("base.md", "changed\n");
  auto hash = worker::commit_paths(repo.dir.path, repo.dir.path / ".orchestration/git.lock", {"out/a.txt", "base.md"},
                                   "task", worker::CommitHooks::run);
  REQUIRE(hash);
  CHECK(test::sh(repo.dir.path, "git show HEAD:out/a.txt") == "a\n# formatted\n");
  CHECK(test::sh(repo.dir.path, "git show --name-only --format= HEAD") == "BUILD-STAMP\nbase.md\nout/a.txt\n");
  CHECK(repo.status().empty()); // not "MM out/a.txt", "D  BUILD-STAMP" + "?? BUILD-STAMP"
}

TEST_CASE("Aligning the index after a hooked commit leaves what the user staged elsewhere staged",
          "[worker][git][index]") {
  HookedRepo repo;
  repo.dir.write("mine.md", "mine\n");
  test::sh(repo.dir.path, "git add mine.md");
  repo.dir.write("dir/a.txt", "a\n");
  auto hash = worker::commit_paths(repo.dir.path, repo.dir.path / ".orchestration/git.lock", {"dir"}, "task",
                                   worker::CommitHooks::run);
  REQUIRE(hash);
  CHECK(test::sh(repo.dir.path, "git show --name-only --format= HEAD") == "BUILD-STAMP\ndir/a.txt\n");
  CHECK(repo.status() == "A  mine.md\n");
}

TEST_CASE("A file the hook adds that the user had staged otherwise keeps the user's entry", "[worker][git][index]") {
  HookedRepo repo;
  repo.dir.write("BUILD-STAMP", "the user's\n");
  test::sh(repo.dir.path, "git add BUILD-STAMP");
  repo.dir.write("a.txt", "a\n");
  auto hash = worker::commit_paths(repo.dir.path, repo.dir.path / ".orchestration/git.lock", {"a.txt"}, "task",
                                   worker::CommitHooks::run);
  REQUIRE(hash);
  CHECK(test::sh(repo.dir.path, "git show :BUILD-STAMP") == "the user's\n");
  CHECK(test::sh(repo.dir.path, "git status --porcelain -- a.txt").empty());
}

TEST_CASE("align_index_with_commit sets nothing when the index already holds the commit", "[worker][git][index]") {
  HookedRepo repo;
  fs::remove(repo.dir.path / ".git/hooks/pre-commit");
  repo.dir.write("a.txt", "a\n");
  auto hash = worker::commit_paths(repo.dir.path, repo.dir.path / ".orchestration/git.lock", {"a.txt"}, "task");
  REQUIRE(hash);
  CHECK(worker::align_index_with_commit(repo.dir.path, *hash, {"a.txt"}).empty());
  CHECK(repo.status().empty());
}
