#include "harness/util/project_root.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace fs = std::filesystem;
using harness::util::find_project_root;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "harness-root-XXXXXX").string();
    path = fs::canonical(::mkdtemp(tmpl.data()));
  }
  ~TempDir() { fs::remove_all(path); }
};

/// Runs `f` with the working directory set to `dir`, then restores it.
template <class F> auto in_dir(const fs::path& dir, F f) {
  const auto old = fs::current_path();
  fs::current_path(dir);
  auto r = f();
  fs::current_path(old);
  return r;
}

} // namespace

TEST_CASE("the project root is the nearest directory up holding .git, as git finds a repository") {
  TempDir t;
  fs::create_directories(t.path / "repo" / ".git");
  fs::create_directories(t.path / "repo" / "src" / "deep");
  CHECK(find_project_root(t.path / "repo" / "src" / "deep") == t.path / "repo");
  CHECK(find_project_root(t.path / "repo") == t.path / "repo");
  // Relative starts stay relative: a path built on the answer reads from where the user is.
  CHECK(in_dir(t.path / "repo" / "src" / "deep", [] { return find_project_root("."); }) == fs::path("../.."));
  CHECK(in_dir(t.path / "repo", [] { return find_project_root("."); }) == fs::path("."));
  // A worktree's or submodule's .git is a file.
  fs::create_directories(t.path / "repo" / "sub" / "x");
  std::ofstream(t.path / "repo" / "sub" / ".git") << "gitdir: ../.git/modules/sub\n";
  CHECK(find_project_root(t.path / "repo" / "sub" / "x") == t.path / "repo" / "sub");
  // harness's state directory does not mark a project: a stray one (a script worker run by hand
  // in a subdirectory, or in /tmp) would capture everything below it.
  fs::create_directories(t.path / "repo" / "src" / ".orchestration");
  CHECK(find_project_root(t.path / "repo" / "src" / "deep") == t.path / "repo");
}

TEST_CASE("outside a repository there is no project root, whatever .orchestration directories exist") {
  TempDir t;
  fs::create_directories(t.path / "proj" / ".orchestration");
  fs::create_directories(t.path / "proj" / "docs" / "specs");
  const auto found = find_project_root(t.path / "proj" / "docs" / "specs");
  // Nothing in the temporary tree marks a project (an ancestor of it, like /, might hold .git).
  CHECK((!found || found->string().find("proj") == std::string::npos));
}
