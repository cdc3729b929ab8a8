// workload_from_spec reads what is done as `status` does (spec::read_done_state): the two never
// disagree about what is left.
#include "harness/graph/plan_graph.hpp"
#include "harness/graph/progress.hpp"
#include "harness/sched/json.hpp"
#include "harness/sched/scheduler.hpp"
#include "harness/sched/spec_workload.hpp"
#include "spec_test_util.hpp"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace harness;

namespace {

std::string plan(const std::string& id) {
  return "---\nplan_id: '" + id + "'\ndepends_on: []\nfiles_modified: ['" + id + ".txt']\n---\n# " + id + "\n";
}

/// Phase 01 (01-01, 01-02) and phase 02 (02-01), all executed and verified, final passed; then a
/// plan 01-03 added to phase 01.
void spec_with_added_plan(const test::TempDir& dir) {
  dir.write("SPEC.md", "# x\n");
  for (const auto* id : {"01-01", "01-02", "02-01"}) {
    const std::string slug = id[1] == '1' ? "01-a" : "02-b";
    dir.write("planning/plans/" + slug + "/" + id + "-PLAN.md", plan(id));
    dir.write("execution/phases/" + slug + "/" + id + "-SUMMARY.md",
              std::string("---\nplan_id: '") + id + "'\nstatus: complete\nverification: passed\n---\n");
  }
  dir.write("execution/phases/01-a/VERIFICATION.md", "---\nstatus: passed\nplans: ['01-01', '01-02']\n---\n");
  dir.write("execution/phases/02-b/VERIFICATION.md", "---\nstatus: passed\nplans: ['02-01']\n---\n");
  dir.write("execution/FINAL-VERIFICATION.md", "---\nstatus: passed\nplans: ['01-01', '01-02', '02-01']\n---\n");
  dir.write("planning/plans/01-a/01-03-PLAN.md", plan("01-03"));
}

} // namespace

TEST_CASE("a plan added to a verified phase is work for orchestrate and for status alike", "[sched]") {
  test::TempDir dir;
  spec_with_added_plan(dir);
  auto spec = spec::load_spec(dir.path);
  REQUIRE(spec);
  REQUIRE(spec->valid());
  const auto w = sched::workload_from_spec(*spec);
  const auto phase = [&](int n) { return *std::ranges::find(w.phases, spec::PhaseNumber{n, 0}, &sched::WorkPhase::number); };
  CHECK_FALSE(phase(1).verified);
  CHECK(phase(2).verified);
  CHECK_FALSE(w.final_verified);
  const auto added = *std::ranges::find(w.plans, std::string("01-03"), &sched::WorkPlan::id);
  CHECK_FALSE(added.executed);

  // orchestrate's scheduler starts 01-03 and nothing else; status lists it as ready, and not
  // the spec as complete.
  sched::Scheduler s(w, {});
  std::vector<std::string> started;
  for (const auto& a : s.handle(sched::make_event(sched::EventType::begin)))
    if (a.type == sched::ActionType::start) started.push_back(a.task);
  CHECK(started == std::vector<std::string>{"execute:01-03"});
  const auto p = graph::compute_progress(*spec, graph::build_plan_graph(spec->plans), 1);
  CHECK(p.ready == std::vector<std::string>{"01-03"});
  CHECK_FALSE(p.complete);
  CHECK(p.phases[0].state == "executing");
  CHECK(p.verifications_due == std::vector<std::string>{"phase 01: again, its report no longer holds: 01-03 added since",
                                                        "final: again, its report no longer holds: 01-03 added since"});
}

TEST_CASE("plans all verified but no phase or final verification: status says what is left, orchestrate runs it", "[sched]") {
  test::TempDir dir;
  spec_with_added_plan(dir);
  std::filesystem::remove(dir.path / "planning/plans/01-a/01-03-PLAN.md");
  std::filesystem::remove(dir.path / "execution/phases/02-b/VERIFICATION.md");
  std::filesystem::remove(dir.path / "execution/FINAL-VERIFICATION.md");
  auto spec = spec::load_spec(dir.path);
  REQUIRE(spec);
  const auto p = graph::compute_progress(*spec, graph::build_plan_graph(spec->plans), 1);
  CHECK(p.plans_verified == 3);
  CHECK_FALSE(p.complete);
  CHECK(p.phases[1].state == "executed"); // every plan verified, the phase itself not
  CHECK(p.blockers.empty());
  CHECK(p.verifications_due == std::vector<std::string>{"phase 02: every plan is verified; this verification has not run",
                                                        "final: every plan is verified; this verification has not run"});
  const auto text = graph::progress_text(p);
  CHECK(text.find("Verifications to run (orchestrate runs them):\n  - phase 02: every plan is verified") != std::string::npos);
  sched::Scheduler s(sched::workload_from_spec(*spec), {});
  std::vector<std::string> started;
  for (const auto& a : s.handle(sched::make_event(sched::EventType::begin)))
    if (a.type == sched::ActionType::start) started.push_back(a.task);
  CHECK(started == std::vector<std::string>{"verify-phase:02"});
}

TEST_CASE("the scheduler assumes for a plan without estimate what graph weighs it with", "[sched]") {
  CHECK(sched::Config{}.default_estimate == Approx(graph::default_estimate_minutes));
}

TEST_CASE("a plan edited during the run takes every frontmatter field and keeps its execution", "[sched]") {
  sched::WorkPlan known;
  known.id = "01-02";
  known.phase = *spec::parse_phase_number("01");
  known.depends_on = {"01-01"};
  known.files_modified = {"a.txt"};
  known.estimate = 10;
  known.executed = known.has_deviations = known.verified = true;
  sched::WorkPlan edited;
  edited.id = "01-02";
  edited.phase = known.phase;
  edited.files_modified = {"b.txt"};
  edited.files_read = {"c.txt"};
  edited.checkpoints = {"review"};
  edited.autonomous = false;
  const auto plan = sched::with_frontmatter(known, edited);
  // Compared through the JSON codec, which writes every field: a new one cannot slip by.
  auto expected = edited;
  expected.executed = expected.has_deviations = expected.verified = true;
  CHECK(sched::to_json(plan) == sched::to_json(expected));
}
