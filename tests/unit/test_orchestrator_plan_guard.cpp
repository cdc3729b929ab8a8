// Which PLAN files a planning task may change, and how a forbidden change is put back (review SS
// H1: a gap planner weakened a check of a plan that had run; H2: a plan checker rewrote a plan).
#include "harness/orchestrator/plan_guard.hpp"
#include "harness/util/atomic_file.hpp"
#include "spec_test_util.hpp"

#include <catch2/catch.hpp>

using namespace harness;
using sched::TaskKind;
namespace fs = std::filesystem;

namespace {

std::string plan_text(const std::string& id, const std::string& check) {
  return "---\nplan_id: '" + id + "'\ndepends_on: []\nfiles_modified: ['out/" + id +
         ".txt']\nmust_pass:\n  - id: c\n    type: file_contains\n    path: out/" + id + ".txt\n    pattern: '" + check +
         "'\n---\n# " + id + "\n\n### Task 1: write\n\n```bash\nmkdir -p out && echo A > out/" + id + ".txt\n```\n";
}

struct Project {
  test::TempDir dir;
  fs::path spec_dir = dir.path / "docs/specs/SPC-001-g";
  Project() {
    dir.write("docs/specs/SPC-001-g/SPEC.md", "# G\n");
    dir.write("docs/specs/SPC-001-g/planning/plans/01-core/01-01-PLAN.md", plan_text("01-01", "^A"));
    dir.write("docs/specs/SPC-001-g/planning/plans/02-more/02-01-PLAN.md", plan_text("02-01", "^A"));
  }
  spec::Spec load() const {
    auto s = spec::load_spec(spec_dir);
    REQUIRE(s);
    REQUIRE(s->valid());
    return std::move(*s);
  }
};

const std::string p1 = "docs/specs/SPC-001-g/planning/plans/01-core/01-01-PLAN.md";
const std::string p2 = "docs/specs/SPC-001-g/planning/plans/02-more/02-01-PLAN.md";

} // namespace

TEST_CASE("Each planning kind may change its own plans only", "[orchestrator][plan_guard]") {
  const auto one = *spec::parse_phase_number("01");
  const auto two = *spec::parse_phase_number("02");
  CHECK(orchestrator::may_change_plan(TaskKind::plan, "01", "01-01", one)); // a revision pass
  CHECK_FALSE(orchestrator::may_change_plan(TaskKind::plan, "01", "02-01", two));
  CHECK(orchestrator::may_change_plan(TaskKind::reconcile, "02-01", "02-01", two));
  CHECK_FALSE(orchestrator::may_change_plan(TaskKind::reconcile, "02-01", "01-01", one));
  CHECK_FALSE(orchestrator::may_change_plan(TaskKind::check_plans, "01", "01-01", one));
  CHECK_FALSE(orchestrator::may_change_plan(TaskKind::plan_gaps, "01", "01-01", one)); // it adds plans
  CHECK_FALSE(orchestrator::may_change_plan(TaskKind::research, "01", "01-01", one));
}

TEST_CASE("A forbidden change of a PLAN file is found, and put back with the changed version kept", "[orchestrator][plan_guard]") {
  Project p;
  const auto spec = p.load();
  const auto before = orchestrator::read_plan_files(spec);
  REQUIRE(before.size() == 2);
  CHECK(before.at(p1).plan == "01-01");
  CHECK(orchestrator::forbidden_plan_changes(TaskKind::plan_gaps, "01", before, p.dir.path).empty());

  // A gap planner of phase 01 weakens 01-01's check and removes 02-01; a new plan of its own is fine.
  p.dir.write(p1, plan_text("01-01", ".*"));
  fs::remove(p.dir.path / p2);
  p.dir.write("docs/specs/SPC-001-g/planning/plans/01-core/01-02-PLAN.md", plan_text("01-02", "^A"));
  const auto bad = orchestrator::forbidden_plan_changes(TaskKind::plan_gaps, "01", before, p.dir.path);
  CHECK(bad == std::vector<std::string>{p1, p2});
  // The same changes by phase 01's planner: only the other phase's plan was not its to touch.
  CHECK(orchestrator::forbidden_plan_changes(TaskKind::plan, "01", before, p.dir.path) == std::vector<std::string>{p2});

  auto where = orchestrator::put_back_plans(spec.layout, bad, before);
  REQUIRE(where);
  CHECK(where->starts_with(".orchestration/discarded/SPC-001-g/plan-edit-"));
  CHECK(*util::read_file(p.dir.path / p1) == plan_text("01-01", "^A"));
  CHECK(*util::read_file(p.dir.path / p2) == plan_text("02-01", "^A"));
  CHECK(*util::read_file(p.dir.path / *where / p1) == plan_text("01-01", ".*")); // the worker's version, kept
  CHECK_FALSE(fs::exists(p.dir.path / *where / p2)); // removed: nothing to keep
  CHECK(fs::exists(p.dir.path / "docs/specs/SPC-001-g/planning/plans/01-core/01-02-PLAN.md"));
  CHECK(orchestrator::forbidden_plan_changes(TaskKind::plan_gaps, "01", before, p.dir.path).empty());
  CHECK(orchestrator::plan_change_rule(TaskKind::plan_gaps) == "gap planning adds plans and changes none that exist");
}
