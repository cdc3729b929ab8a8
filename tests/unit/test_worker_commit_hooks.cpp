// commit_hooks_installed decides whether harness reads a commit back (its index entries, its
// trailers): real repositories, hooks in .git/hooks and under core.hooksPath.
#include "harness/worker/commit_hooks.hpp"
#include "git_hook_util.hpp"
#include "spec_test_util.hpp"

#include <catch2/catch.hpp>

using namespace harness;
namespace fs = std::filesystem;

namespace {
void hook(const test::TempDir& dir, const std::string& rel, fs::perms mode = fs::perms(0755)) {
  test::write_hook(dir, rel, "#!/bin/sh\nexit 0\n", mode);
}
} // namespace

TEST_CASE("commit hooks: none, git's samples, one in .git/hooks, one under core.hooksPath", "[worker][commit_hooks]") {
  test::TempDir dir;
  test::sh(dir.path, "git init -q");
  // git init copies its *.sample hooks: they never run, and do not count.
  CHECK_FALSE(worker::commit_hooks_installed(dir.path));
  SECTION("a commit-msg hook in .git/hooks counts from the moment it is there") {
    hook(dir, ".git/hooks/commit-msg");
    CHECK(worker::commit_hooks_installed(dir.path));
  }
  SECTION("a hook that is not executable does not run, and does not count") {
    hook(dir, ".git/hooks/pre-commit", fs::perms(0644));
    CHECK_FALSE(worker::commit_hooks_installed(dir.path));
  }
  SECTION("a post-commit hook changes no commit") {
    hook(dir, ".git/hooks/post-commit");
    CHECK_FALSE(worker::commit_hooks_installed(dir.path));
  }
}

TEST_CASE("commit hooks: core.hooksPath, relative to the work tree", "[worker][commit_hooks]") {
  test::TempDir dir;
  test::sh(dir.path, "git init -q && git config core.hooksPath .githooks");
  CHECK_FALSE(worker::commit_hooks_installed(dir.path));
  hook(dir, ".githooks/pre-commit");
  CHECK(worker::commit_hooks_installed(dir.path));
}
