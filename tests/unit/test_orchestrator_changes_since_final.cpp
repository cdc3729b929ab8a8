// changes_since_final: a finished spec's run says what git holds that its final report did not see.
#include "harness/orchestrator/changes_since_final.hpp"
#include "harness/verify/work_hash.hpp"
#include "spec_test_util.hpp"

#include <catch2/catch.hpp>

#include <fmt/format.h>

using namespace harness;

namespace {

constexpr const char* spec_dir = "docs/specs/SPC-001-done";

spec::Spec load(const test::TempDir& dir) {
  auto s = spec::load_spec(dir.path / spec_dir);
  REQUIRE(s);
  return std::move(*s);
}

/// One plan writing `glob`, its work `file`, executed and verified: the reports (and what a run
/// writes with them: the SUMMARY's mark, STATUS.md) committed with the work_hash taken before them.
/// Returns that hash.
std::string finished(const test::TempDir& dir, const std::string& glob = "out/a.txt", const std::string& file = "out/a.txt") {
  test::set_git_identity();
  const std::string s = spec_dir;
  dir.write(s + "/SPEC.md", "# Done\n");
  dir.write(s + "/planning/plans/01-core/01-01-PLAN.md",
            fmt::format("---\nplan_id: '01-01'\ndepends_on: []\nfiles_modified: ['{}']\n---\n# 01-01\n", glob));
  dir.write(s + "/execution/phases/01-core/01-01-SUMMARY.md", "---\nplan_id: '01-01'\nstatus: complete\n---\n");
  dir.write(file, "a\n");
  test::sh(dir.path, "git init -q && git add -A && git commit -qm work");
  const auto hash = verify::work_hash(load(dir), {"01-01"});
  REQUIRE_FALSE(hash.empty());
  const auto report = fmt::format("---\nstatus: passed\nplans: ['01-01']\nwork_hash: '{}'\n---\n", hash);
  dir.write(s + "/execution/phases/01-core/VERIFICATION.md", report);
  dir.write(s + "/execution/FINAL-VERIFICATION.md", report);
  dir.write(s + "/execution/phases/01-core/01-01-SUMMARY.md", "---\nplan_id: '01-01'\nstatus: complete\nverification: passed\n---\n");
  dir.write(s + "/STATUS.md", "---\nrun: \"complete\"\nblocked: []\n---\n# Status\n");
  test::sh(dir.path, "git add -A && git commit -qm 'final verification'");
  return hash;
}

} // namespace

TEST_CASE("a finished spec whose work and PLANs are as verified has nothing to say", "[orchestrator]") {
  test::TempDir dir;
  finished(dir);
  CHECK(orchestrator::changes_since_final(load(dir)).empty());
}

TEST_CASE("a finished spec says when its plans' files or PLAN files changed since the final verification", "[orchestrator]") {
  test::TempDir dir;
  finished(dir);
  dir.write("out/a.txt", "edited by hand\n");
  test::sh(dir.path, "git commit -qam 'hand edit'");
  CHECK(orchestrator::changes_since_final(load(dir)) ==
        std::vector<std::string>{"the files its plans write changed (its work_hash no longer matches them)"});
  // A PLAN edited, not committed yet: git's view of the work tree counts.
  dir.write(std::string(spec_dir) + "/planning/plans/01-core/01-01-PLAN.md",
            "---\nplan_id: '01-01'\ndepends_on: []\nfiles_modified: ['out/a.txt']\n---\n# 01-01, changed\n");
  const auto changed = orchestrator::changes_since_final(load(dir));
  REQUIRE(changed.size() == 2);
  CHECK(changed[1] == "01-01-PLAN.md changed since it was committed");
}

TEST_CASE("a spec whose final verification does not hold is the run's to verify: nothing is said", "[orchestrator]") {
  test::TempDir dir;
  finished(dir);
  dir.write(std::string(spec_dir) + "/planning/plans/01-core/01-02-PLAN.md",
            "---\nplan_id: '01-02'\ndepends_on: []\nfiles_modified: ['out/b.txt']\n---\n# 01-02\n");
  dir.write("out/a.txt", "edited by hand\n");
  CHECK(orchestrator::changes_since_final(load(dir)).empty());
}

TEST_CASE("a plan writing docs/** does not count harness's own reports and STATUS.md as changed work", "[orchestrator]") {
  // Review X, finding 3: the work_hash covered FINAL-VERIFICATION.md and STATUS.md, written after
  // it was taken, so every run of the finished spec said the work had changed.
  test::TempDir dir;
  const auto hash = finished(dir, "docs/**", "docs/guide.md");
  CHECK(verify::work_hash(load(dir), {"01-01"}) == hash);
  CHECK(orchestrator::changes_since_final(load(dir)).empty());
  dir.write("docs/guide.md", "guide, edited\n"); // the plan's own work does count
  CHECK(orchestrator::changes_since_final(load(dir)).size() == 1);
}
