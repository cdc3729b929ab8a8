// Spec documents that are there but cannot be read are errors (H002), never silently absent, never
// read whole when they lead to a device, never an exception (review FF F3, F4, F7).
#include "harness/spec/spec.hpp"
#include "spec_test_util.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

using namespace harness;
namespace fs = std::filesystem;

namespace {

/// The H002 message for `file`, or "" when there is none.
std::string h002(const spec::Spec& s, const std::string& file) {
  for (const auto& d : s.diagnostics)
    if (d.code == "H002" && d.file == file) return d.message;
  return "";
}

} // namespace

TEST_CASE("a spec document that is a device, a directory or a link loop is an H002 error", "[spec]") {
  test::TempDir dir;
  dir.write("SPEC.md", "# x\n");
  dir.write("planning/plans/01-one/01-01-PLAN.md", "---\nplan_id: '01-01'\ndepends_on: []\nfiles_modified: ['a.txt']\n---\n# a\n");
  dir.write("planning/plans/01-one/01-02-PLAN.md", "---\nplan_id: '01-02'\ndepends_on: []\nfiles_modified: ['b.txt']\n---\n# b\n");
  dir.write("execution/phases/01-one/01-01-SUMMARY.md", "---\nplan_id: '01-01'\nstatus: complete\n---\n");
  fs::create_symlink("/dev/zero", dir.path / "STATUS.md");                              // read whole: memory gone
  fs::create_directory(dir.path / "ROADMAP.md");                                        // taken as no ROADMAP
  fs::create_symlink("01-02-SUMMARY.md", dir.path / "execution/phases/01-one/01-02-SUMMARY.md"); // threw
  fs::create_symlink("nowhere.md", dir.path / "execution/FINAL-VERIFICATION.md");       // dangling
  auto s = spec::load_spec(dir.path);
  REQUIRE(s);
  CHECK_FALSE(s->valid());
  CHECK(h002(*s, "STATUS.md") == "'STATUS.md' cannot be read: it is not a regular file (a device, a pipe or a socket)");
  CHECK(h002(*s, "ROADMAP.md") == "'ROADMAP.md' cannot be read: it is a directory, not a file");
  CHECK(h002(*s, "execution/phases/01-one/01-02-SUMMARY.md").ends_with("cannot be read: it is a symbolic link loop"));
  CHECK(h002(*s, "execution/FINAL-VERIFICATION.md").ends_with("it is a symbolic link to nowhere.md, which does not exist"));
  CHECK(s->summaries.contains("01-01")); // the readable ones are read
  CHECK_FALSE(s->status);
}

TEST_CASE("a plans directory that is a file or a link loop is an error, not 'no plans yet'", "[spec]") {
  test::TempDir dir;
  dir.write("SPEC.md", "# x\n");
  dir.write("planning/plans", "not a directory\n");
  auto s = spec::load_spec(dir.path);
  REQUIRE(s);
  CHECK(h002(*s, "planning/plans") == "'planning/plans' cannot be read: it is not a directory");
  CHECK(std::ranges::none_of(s->diagnostics, [](const auto& d) { return d.code == "H023"; }));
  fs::remove(dir.path / "planning/plans");
  fs::create_symlink("plans", dir.path / "planning/plans");
  s = spec::load_spec(dir.path);
  REQUIRE(s);
  CHECK(h002(*s, "planning/plans") == "'planning/plans' cannot be read: it is a symbolic link loop");
}

TEST_CASE("a spec directory argument that is a link loop is refused, not thrown", "[spec]") {
  test::TempDir dir;
  fs::create_symlink(dir.path / "loop", dir.path / "loop");
  auto s = spec::load_spec(dir.path / "loop");
  REQUIRE_FALSE(s);
  CHECK(s.error().ends_with("loop: not a directory (a symbolic link loop)"));
}
