// What a run makes of PLAN files changed on disk while it goes on (plan_edits.hpp): the spec as
// read again, compared with the plans as the run last read them. Real spec directories.
#include "harness/orchestrator/plan_edits.hpp"
#include "harness/orchestrator/plan_watch.hpp"
#include "spec_test_util.hpp"

#include <catch2/catch.hpp>

using namespace harness;
using orchestrator::find_plan_edits;
using sched::EditFate;

namespace {

std::string plan_text(const std::string& id, const std::string& files, const std::string& deps = "[]") {
  return "---\nplan_id: '" + id + "'\ndepends_on: " + deps + "\nfiles_modified: " + files +
         "\n---\n# " + id + "\n\n### Task 1: write\n\n```bash\necho " + id + "\n```\n";
}

spec::Spec load(const test::TempDir& dir) {
  auto s = spec::load_spec(dir.path);
  REQUIRE(s);
  return std::move(*s);
}

/// The scheduler's word, as a run that knows `known` (none started) would say it.
auto fate_of(std::vector<std::string> known, EditFate other = EditFate::joins) {
  return [known = std::move(known), other](const std::string& id, const spec::PhaseNumber&) {
    return std::ranges::find(known, id) != known.end() ? EditFate::applies : other;
  };
}

auto none_own = [](const std::string&, const spec::PhaseNumber&) { return false; };

std::vector<std::string> ids(const std::vector<sched::WorkPlan>& plans) {
  std::vector<std::string> out;
  for (const auto& p : plans) out.push_back(p.id);
  return out;
}

} // namespace

TEST_CASE("PLAN files changed, removed, added and broken during a run become one event and a note each", "[plan_edits]") {
  test::TempDir dir;
  dir.write("SPEC.md", "# x\n");
  dir.write("planning/plans/01-a/01-01-PLAN.md", plan_text("01-01", "['out/1']"));
  dir.write("planning/plans/01-a/01-02-PLAN.md", plan_text("01-02", "['out/2']"));
  dir.write("planning/plans/01-a/01-03-PLAN.md", plan_text("01-03", "['out/3']"));
  dir.write("planning/plans/01-a/01-04-PLAN.md", plan_text("01-04", "['out/4']"));
  const auto seen = orchestrator::snapshot_plans(load(dir));
  const auto fate = fate_of({"01-01", "01-02", "01-03", "01-04"});

  auto nothing = find_plan_edits(seen, load(dir), fate, none_own);
  CHECK(nothing.empty());
  CHECK(nothing.notes.empty());

  dir.write("planning/plans/01-a/01-01-PLAN.md", plan_text("01-01", "['out/1', 'shared/**']"));
  std::filesystem::remove(dir.path / "planning/plans/01-a/01-02-PLAN.md");
  dir.write("planning/plans/01-a/01-03-PLAN.md", plan_text("01-03", "['out/3']", "['01-99']"));
  dir.write("planning/plans/01-a/01-05-PLAN.md", plan_text("01-05", "['out/5']"));
  auto found = find_plan_edits(seen, load(dir), fate, none_own);
  CHECK(ids(found.event.plans) == std::vector<std::string>{"01-01", "01-05"});
  CHECK(found.event.plans[0].files_modified == std::vector<std::string>{"out/1", "shared/**"});
  CHECK(found.event.removed == std::vector<std::string>{"01-02"});
  CHECK(found.event.held == std::vector<std::string>{"01-03"});
  REQUIRE(found.notes.size() == 4);
  CHECK(found.notes[0].task == "execute:01-01");
  CHECK(found.notes[0].message == "01-01-PLAN.md changed during the run: re-read (now writes out/1, shared/**)");
  CHECK(found.notes[1].message == "01-02 removed during the run: dropped");
  CHECK(found.notes[2].message.starts_with("01-03-PLAN.md changed during the run and does not validate: "
                                           "planning/plans/01-a/01-03-PLAN.md:3:14: error[H007]: depends_on names unknown plan '01-99'"));
  CHECK(found.notes[2].message.ends_with("; 01-03 is held until the file is fixed"));
  CHECK(found.notes[3].message == "01-05 added during the run: joins phase 01");

  // Read again with nothing new: nothing said twice (01-03 is still broken).
  auto again = find_plan_edits(found.seen, load(dir), fate_of({"01-01", "01-03", "01-04", "01-05"}), none_own);
  CHECK(again.empty());
  CHECK(again.notes.empty());

  // Fixed: taken as it is, and said.
  dir.write("planning/plans/01-a/01-03-PLAN.md", plan_text("01-03", "['out/3']"));
  auto fixed = find_plan_edits(found.seen, load(dir), fate_of({"01-01", "01-03", "01-04", "01-05"}), none_own);
  CHECK(ids(fixed.event.plans) == std::vector<std::string>{"01-03"});
  REQUIRE(fixed.notes.size() == 1);
  CHECK(fixed.notes[0].message == "01-03-PLAN.md was fixed during the run: re-read");
}

TEST_CASE("A PLAN file that does not parse holds its plan rather than dropping it", "[plan_edits]") {
  test::TempDir dir;
  dir.write("SPEC.md", "# x\n");
  dir.write("planning/plans/01-a/01-01-PLAN.md", plan_text("01-01", "['out/1']"));
  const auto seen = orchestrator::snapshot_plans(load(dir));
  dir.write("planning/plans/01-a/01-01-PLAN.md", "---\nplan_id: '01-01\ndepends_on: [\n");
  auto found = find_plan_edits(seen, load(dir), fate_of({"01-01"}), none_own);
  CHECK(found.event.removed.empty());
  CHECK(found.event.held == std::vector<std::string>{"01-01"});
}

TEST_CASE("A plan broken by another plan's removal is held without blaming an edit of its own file", "[plan_edits]") {
  test::TempDir dir;
  dir.write("SPEC.md", "# x\n");
  dir.write("planning/plans/01-a/01-01-PLAN.md", plan_text("01-01", "['out/1']"));
  dir.write("planning/plans/01-a/01-02-PLAN.md", plan_text("01-02", "['out/2']", "['01-01']"));
  const auto seen = orchestrator::snapshot_plans(load(dir));
  std::filesystem::remove(dir.path / "planning/plans/01-a/01-01-PLAN.md");
  auto found = find_plan_edits(seen, load(dir), fate_of({"01-01", "01-02"}), none_own);
  CHECK(found.event.removed == std::vector<std::string>{"01-01"});
  CHECK(found.event.held == std::vector<std::string>{"01-02"});
  REQUIRE(found.notes.size() == 2);
  CHECK(found.notes[1].message.starts_with("01-02-PLAN.md no longer validates, though it did not change (a plan it names "
                                           "was removed or changed during the run): "));
  CHECK(found.notes[1].message.find("depends_on names unknown plan '01-01'") != std::string::npos);
}

TEST_CASE("What the run's own planner or reconcile writes is not an edit, and a running plan's edit waits", "[plan_edits]") {
  test::TempDir dir;
  dir.write("SPEC.md", "# x\n");
  dir.write("planning/plans/01-a/01-01-PLAN.md", plan_text("01-01", "['out/1']"));
  dir.write("planning/plans/01-a/01-02-PLAN.md", plan_text("01-02", "['out/2']"));
  const auto seen = orchestrator::snapshot_plans(load(dir));
  dir.write("planning/plans/01-a/01-01-PLAN.md", plan_text("01-01", "['out/1', 'x']"));
  dir.write("planning/plans/01-a/01-03-PLAN.md", plan_text("01-03", "['out/3']"));
  auto own = [](const std::string& id, const spec::PhaseNumber&) { return id != "01-02"; };
  auto found = find_plan_edits(seen, load(dir), fate_of({"01-01", "01-02"}), own);
  CHECK(found.empty());
  CHECK(found.notes.empty());
  CHECK(found.deferred);
  CHECK(found.seen.at("01-01").frontmatter.files_modified == std::vector<std::string>{"out/1"}); // still as read

  auto running = [](const std::string& id, const spec::PhaseNumber&) {
    return id == "01-01" ? EditFate::next_attempt : id == "01-02" ? EditFate::applies : EditFate::phase_verified;
  };
  auto later = find_plan_edits(seen, load(dir), running, none_own);
  CHECK(ids(later.event.plans) == std::vector<std::string>{"01-01"});
  REQUIRE(later.notes.size() == 2);
  CHECK(later.notes[0].message ==
        "01-01-PLAN.md changed during the run: 01-01 is running as it started (and is checked so in this run); the edit applies to its work if it runs again");
  CHECK(later.notes[1].message.starts_with("01-03 added during the run: phase 01 is verified"));
}

TEST_CASE("The plans watch sees a PLAN file written, renamed in or removed, and nothing else", "[plan_edits]") {
  test::TempDir dir;
  dir.write("SPEC.md", "# x\n");
  dir.write("planning/plans/01-a/01-01-PLAN.md", plan_text("01-01", "['out/1']"));
  auto spec = load(dir);
  auto watch = orchestrator::PlanWatch::open(spec.layout);
  REQUIRE(watch);
  CHECK_FALSE(watch->changed());
  dir.write("planning/plans/01-a/01-01-SUMMARY.md", "---\n---\n"); // not a plan (the legacy layout keeps SUMMARYs here)
  CHECK_FALSE(watch->changed());
  dir.write("planning/plans/01-a/01-01-PLAN.md", plan_text("01-01", "['out/1', 'x']"));
  CHECK(watch->changed());
  CHECK_FALSE(watch->changed());
  dir.write("planning/plans/01-a/.tmp", "x");
  std::filesystem::rename(dir.path / "planning/plans/01-a/.tmp", dir.path / "planning/plans/01-a/01-02-PLAN.md");
  CHECK(watch->changed());
  std::filesystem::remove(dir.path / "planning/plans/01-a/01-02-PLAN.md");
  CHECK(watch->changed());
  // A phase directory added during the run is watched from then on.
  std::filesystem::create_directories(dir.path / "planning/plans/02-b");
  CHECK(watch->changed());
  dir.write("planning/plans/02-b/02-01-PLAN.md", plan_text("02-01", "['out/21']"));
  CHECK(watch->changed());
}
