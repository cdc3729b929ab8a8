// A planner killed mid-write leaves a PLAN cut short: the resumed run sets it aside when its
// phase's planning mark says the planner never finished, and only then.
#include "harness/orchestrator/planning.hpp"
#include "harness/orchestrator/planning_leftovers.hpp"
#include "harness/store/store.hpp"
#include "spec_test_util.hpp"

#include <catch2/catch.hpp>

using namespace harness;
using namespace harness::orchestrator;
namespace fs = std::filesystem;

namespace {

const std::string spec_dir = "docs/specs/SPC-001-x";
const std::string whole = "---\nplan_id: '01-01'\ndepends_on: []\nfiles_modified: [a.txt]\n---\n# 01-01: a\n\n### Task 1: a\n";

void write_spec(const harness::test::TempDir& dir) {
  dir.write(spec_dir + "/SPEC.md", "# SPC-001: x\n");
  dir.write(spec_dir + "/ROADMAP.md", "# Roadmap\n\n## Phase 1: Core\n**Goal**: a\n\n## Phase 2: Docs\n**Goal**: b\n");
  dir.write(spec_dir + "/planning/plans/01-core/01-01-PLAN.md", whole);
}

spec::Spec load(const harness::test::TempDir& dir) {
  auto s = spec::load_spec(dir.path / spec_dir);
  REQUIRE(s);
  return std::move(*s);
}

const spec::PhaseNumber phase1{1, 0};

} // namespace

TEST_CASE("a PLAN cut short in a phase whose planning was interrupted is a leftover") {
  harness::test::TempDir dir;
  write_spec(dir);
  dir.write(spec_dir + "/planning/plans/01-core/01-02-PLAN.md", "---\nplan_id: '01-02'\ndepends_on: [");
  auto s = load(dir);
  REQUIRE_FALSE(s.valid());
  const auto left = planning_leftovers(s, {phase1});
  REQUIRE(left.size() == 1);
  CHECK(left[0].shown == "planning/plans/01-core/01-02-PLAN.md");
  CHECK(left[0].file == s.layout.spec_dir / "planning/plans/01-core/01-02-PLAN.md");
  CHECK(left[0].why.starts_with("H002: "));
  SECTION("not in a phase whose planning finished, or another phase") {
    CHECK(planning_leftovers(s, {}).empty());
    CHECK(planning_leftovers(s, {spec::PhaseNumber{2, 0}}).empty());
  }
  SECTION("not when any other file has an error too: the user looks at the spec") {
    dir.write(spec_dir + "/planning/plans/01-core/01-03-PLAN.md",
              "---\nplan_id: '01-03'\ndepends_on: ['09-09']\nfiles_modified: [c.txt]\n---\n# 01-03: c\n\n### Task 1: c\n");
    auto again = load(dir);
    CHECK(planning_leftovers(again, {phase1}).empty());
  }
  SECTION("set aside by rename under .orchestration/discarded/, with its path below the spec") {
    auto where = set_aside_leftovers(s.layout, left);
    REQUIRE(where);
    CHECK(where->starts_with(".orchestration/discarded/SPC-001-x/planning-"));
    CHECK_FALSE(fs::exists(left[0].file));
    CHECK(fs::exists(s.layout.project_root / *where / "planning/plans/01-core/01-02-PLAN.md"));
    CHECK(load(dir).valid());
  }
}

TEST_CASE("a PLAN that parsed is never a leftover, even in an interrupted phase") {
  harness::test::TempDir dir;
  write_spec(dir);
  // Whole frontmatter, a dependency on a plan that does not exist: the user's to look at.
  dir.write(spec_dir + "/planning/plans/01-core/01-02-PLAN.md",
            "---\nplan_id: '01-02'\ndepends_on: ['07-01']\nfiles_modified: [b.txt]\n---\n# 01-02: b\n\n### Task 1: b\n");
  auto s = load(dir);
  REQUIRE_FALSE(s.valid());
  CHECK(planning_leftovers(s, {phase1}).empty());
}

TEST_CASE("the interrupted phases are the store's planning marks at stage 'planning' of this spec") {
  harness::test::TempDir dir;
  CHECK(interrupted_planning_phases(dir.path, "SPC-001-x").empty()); // no store: none made
  CHECK_FALSE(fs::exists(store::default_db_path(dir.path)));
  auto db = store::Store::open_project(dir.path);
  REQUIRE(db);
  REQUIRE(db->set_value(planning_mark_key("SPC-001-x", "01"), planning_mark_value(PlanningStage::planning)));
  REQUIRE(db->set_value(planning_mark_key("SPC-001-x", "02"), planning_mark_value(PlanningStage::written)));
  REQUIRE(db->set_value(planning_mark_key("SPC-002-y", "03"), planning_mark_value(PlanningStage::planning)));
  CHECK(interrupted_planning_phases(dir.path, "SPC-001-x") == std::vector<spec::PhaseNumber>{phase1});
}

TEST_CASE("a spec refused for PLAN errors no commit holds says which files and how to go back to the committed plans") {
  // Review SS M1, M2: a planner's failed attempts, or a gap planner killed mid-write, left such
  // files, and every later run was refused without a word about where they came from.
  harness::test::TempDir dir;
  test::set_git_identity();
  write_spec(dir);
  dir.write(spec_dir + "/planning/plans/01-core/01-02-PLAN.md", whole);
  harness::test::sh(dir.path, "sed -i 's/01-01/01-02/g' " + spec_dir + "/planning/plans/01-core/01-02-PLAN.md && git init -q && git add -A && git commit -qm init");
  CHECK(uncommitted_plan_errors_hint(load(dir)).empty()); // valid: nothing to say
  // A committed plan changed (a dependency on a plan that does not exist), a new one cut short.
  dir.write(spec_dir + "/planning/plans/01-core/01-02-PLAN.md",
            "---\nplan_id: '01-02'\ndepends_on: ['09-09']\nfiles_modified: [b.txt]\n---\n# 01-02: b\n\n### Task 1: b\n");
  dir.write(spec_dir + "/planning/plans/01-core/01-03-PLAN.md", "---\nplan_id: '01-03'\ndepends_on: [");
  const auto hint = uncommitted_plan_errors_hint(load(dir));
  CHECK_THAT(hint, Catch::Contains("changed since their commit: " + spec_dir +
                                   "/planning/plans/01-core/01-02-PLAN.md (git restore them to run the committed plans)"));
  CHECK_THAT(hint, Catch::Contains("new: " + spec_dir + "/planning/plans/01-core/01-03-PLAN.md (remove them;"));
  // Errors only in committed files: the user's plans as committed, nothing a run left.
  harness::test::sh(dir.path, "git add -A && git commit -qm broken");
  CHECK(uncommitted_plan_errors_hint(load(dir)).empty());
}
