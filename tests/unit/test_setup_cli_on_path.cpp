// install-skills' check that the skills' bare `harness-cli` is this program.
#include "harness/setup/cli_on_path.hpp"
#include "harness/util/atomic_file.hpp"
#include "spec_test_util.hpp"

#include <catch2/catch.hpp>

using namespace harness;
namespace fs = std::filesystem;

namespace {

fs::path fake_cli(const fs::path& dir) {
  const auto p = dir / "harness-cli";
  REQUIRE(util::write_file_atomic(p, "#!/bin/sh\n"));
  fs::permissions(p, fs::perms::owner_all);
  return p;
}

} // namespace

TEST_CASE("install-skills warns when harness-cli is not on PATH, naming the directory to add", "[setup]") {
  test::TempDir dir;
  const auto self = fake_cli(dir.path / "build/bin");
  fs::create_directories(dir.path / "other");
  const auto w = setup::cli_path_warning(self, (dir.path / "other").string() + ":/nonexistent");
  CHECK(w.starts_with("`harness-cli` is not on PATH"));
  CHECK(w.find("export PATH=\"" + (dir.path / "build/bin").string() + ":$PATH\"") != std::string::npos);
}

TEST_CASE("install-skills says nothing when PATH finds this harness-cli first", "[setup]") {
  test::TempDir dir;
  const auto self = fake_cli(dir.path / "bin");
  CHECK(setup::cli_path_warning(self, "/nonexistent::" + (dir.path / "bin").string()).empty());
  CHECK(setup::cli_on_path((dir.path / "bin").string()) == self);
}

TEST_CASE("install-skills warns when another harness-cli comes first on PATH", "[setup]") {
  test::TempDir dir;
  const auto self = fake_cli(dir.path / "new");
  const auto old = fake_cli(dir.path / "old");
  const auto w = setup::cli_path_warning(self, (dir.path / "old").string() + ":" + (dir.path / "new").string());
  CHECK(w.starts_with("the `harness-cli` on PATH is " + old.string() + ", not this one"));
  // A directory named harness-cli, or a file that is not executable, is not a program.
  fs::create_directories(dir.path / "d/harness-cli");
  REQUIRE(util::write_file_atomic(dir.path / "x/harness-cli", "text"));
  fs::permissions(dir.path / "x/harness-cli", fs::perms::owner_read | fs::perms::owner_write);
  CHECK(setup::cli_on_path((dir.path / "d").string() + ":" + (dir.path / "x").string()).empty());
}
