#include "harness/util/private_directory.hpp"
#include "harness/util/state_path.hpp"
#include "spec_test_util.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;
using harness::util::create_private_directories;

namespace {

using harness::test::TempDir;

/// Sets the process umask for a scope: the test is about what a permissive umask leaves.
struct Umask {
  mode_t old;
  explicit Umask(mode_t m) : old(::umask(m)) {}
  ~Umask() { ::umask(old); }
};

mode_t mode_of(const fs::path& p) {
  struct stat st {};
  REQUIRE(::stat(p.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

} // namespace

TEST_CASE("create_private_directories makes each missing directory 0700 under umask 022", "[private_directory]") {
  TempDir dir;
  Umask mask(022);
  const auto sessions = dir.path / ".orchestration" / "sessions" / "s1";
  REQUIRE_FALSE(create_private_directories(sessions));
  CHECK(mode_of(dir.path / ".orchestration") == 0700);
  CHECK(mode_of(dir.path / ".orchestration" / "sessions") == 0700);
  CHECK(mode_of(sessions) == 0700);
  CHECK(mode_of(dir.path) == 0700); // mkdtemp's, untouched
}

TEST_CASE("create_private_directories leaves the mode of a directory that exists", "[private_directory]") {
  TempDir dir;
  Umask mask(022);
  const auto state = dir.path / ".orchestration";
  fs::create_directory(state);
  fs::permissions(state, fs::perms(0755));
  REQUIRE_FALSE(create_private_directories(state / "sessions" / "s1"));
  CHECK(mode_of(state) == 0755); // the user's (or an older harness's): theirs to change
  CHECK(mode_of(state / "sessions") == 0700);
  CHECK(mode_of(state / "sessions" / "s1") == 0700);
  REQUIRE_FALSE(create_private_directories(state)); // exists: nothing to do, no error
  CHECK(mode_of(state) == 0755);
}

TEST_CASE("create_private_directories says when a file stands where a directory must be", "[private_directory]") {
  TempDir dir;
  std::ofstream(dir.path / "state") << "x";
  CHECK(create_private_directories(dir.path / "state") == std::errc::not_a_directory);
  CHECK(create_private_directories(dir.path / "state" / "sessions") == std::errc::not_a_directory);
}

TEST_CASE("in_state_directory: .orchestration itself and paths under it, not names that begin the same", "[private_directory]") {
  CHECK(harness::util::in_state_directory(".orchestration"));
  CHECK(harness::util::in_state_directory(".orchestration/harness.db"));
  CHECK_FALSE(harness::util::in_state_directory(".orchestration-notes.md"));
  CHECK_FALSE(harness::util::in_state_directory("src/.orchestration"));
  CHECK_FALSE(harness::util::in_state_directory(".orchestratio"));
}

TEST_CASE("blocking_part names the part of a path in the way: a file, or a link to nothing", "[private_directory]") {
  TempDir dir;
  std::ofstream(dir.path / "state") << "x";
  std::filesystem::create_directory_symlink(dir.path / "gone", dir.path / "link");
  CHECK(harness::util::blocking_part(dir.path / "state" / "locks" / "s") == (dir.path / "state").string() + " is not a directory");
  CHECK(harness::util::blocking_part(dir.path / "link" / "locks") ==
        (dir.path / "link").string() + " is a symbolic link to " + (dir.path / "gone").string() + ", which does not exist");
  CHECK(harness::util::blocking_part(dir.path / "new" / "locks").empty()); // missing: it can be made
  CHECK(harness::util::blocking_part(dir.path).empty());
}
