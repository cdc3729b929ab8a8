// submodule_paths and submodule_holding: where no commit of this repository can hold a file (the
// preflight refuses plans that write there, harness_worker_commit names the submodule).
#include "harness/worker/submodules.hpp"
#include "spec_test_util.hpp"

#include <catch2/catch.hpp>

using namespace harness;

TEST_CASE("the submodules of a repository: the gitlinks .gitmodules names", "[worker][submodules]") {
  test::TempDir dir;
  test::sh(dir.path, "git init -q -b main lib && cd lib && echo x > x && git add x"
                     " && git -c user.name=t -c user.email=t@example.com commit -qm x");
  test::sh(dir.path, "git init -q -b main project");
  const auto project = dir.path / "project";
  CHECK(worker::submodule_paths(project).empty());
  test::sh(project, "git -c protocol.file.allow=always submodule add -q ../lib 'vendor/the lib'");
  CHECK(worker::submodule_paths(project) == std::vector<std::string>{"vendor/the lib"});
  // Removed from the index, the path is no submodule any more, whatever .gitmodules still says.
  test::sh(project, "git rm -q --cached 'vendor/the lib'");
  CHECK(worker::submodule_paths(project).empty());
}

TEST_CASE("a path inside a submodule is held by it; the submodule's own path and its namesakes are not",
          "[worker][submodules]") {
  const std::vector<std::string> subs = {"out", "vendor/lib"};
  CHECK(worker::submodule_holding(subs, "out/01-01/a.txt") == "out");
  CHECK(worker::submodule_holding(subs, "vendor/lib/src/a.c") == "vendor/lib");
  CHECK_FALSE(worker::submodule_holding(subs, "out")); // the gitlink, this repository's
  CHECK_FALSE(worker::submodule_holding(subs, "output/a.txt"));
  CHECK_FALSE(worker::submodule_holding(subs, "vendor/a.c"));
  CHECK_FALSE(worker::submodule_holding({}, "out/a.txt"));
}
