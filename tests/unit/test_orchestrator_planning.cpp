// What a planning task must leave on disk before the scheduler hears it succeeded, and what a
// worker is told to produce (planning.hpp). Specs are real directories loaded by the real parser.
#include "harness/orchestrator/planning.hpp"
#include "harness/orchestrator/preflight.hpp"
#include "spec_test_util.hpp"

#include <catch2/catch.hpp>

using namespace harness;
namespace fs = std::filesystem;
using sched::TaskKind;

namespace {

const char* roadmap = R"(# Roadmap: greet

## Phase 1: Core
**Goal**: print hello
**Depends on**: nothing
**Success criteria**:
1. it prints hello

## Phase 2: Docs
**Goal**: explain it
**Depends on**: Phase 1
)";

std::string plan_text(const std::string& id, const std::string& deps = "[]") {
  return "---\nplan_id: '" + id + "'\ndepends_on: " + deps + "\nfiles_modified: ['f" + id + "']\n---\n# " + id + ": t\n";
}

struct SpecDir {
  test::TempDir dir;
  fs::path spec = dir.path / "docs/specs/SPC-001-greet";
  SpecDir() {
    fs::create_directories(dir.path / ".git");
    dir.write("docs/specs/SPC-001-greet/SPEC.md", "# SPC-001: greet\n");
    dir.write("docs/specs/SPC-001-greet/ROADMAP.md", roadmap);
  }
  void plan(const std::string& id, const std::string& deps = "[]") const {
    dir.write("docs/specs/SPC-001-greet/planning/plans/01-core/" + id + "-PLAN.md", plan_text(id, deps));
  }
  spec::Spec load() const {
    auto s = spec::load_spec(spec, dir.path);
    REQUIRE(s.has_value());
    return *s;
  }
};

sched::Action action(TaskKind kind, std::string subject) {
  sched::Action a;
  a.kind = kind;
  a.subject = std::move(subject);
  a.task = std::string(sched::to_string(kind)) + ":" + a.subject;
  a.attempt = 1;
  return a;
}

const auto none_known = [](const std::string&) { return false; };

} // namespace

TEST_CASE("A plan task that left no PLAN files fails, naming where they belong", "[orchestrator][planning]") {
  SpecDir d;
  auto r = orchestrator::planning_event(d.load(), action(TaskKind::plan, "01"), none_known, {});
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error() == "no PLAN files for phase 01 (expected planning/plans/01-core/01-NN-PLAN.md)");
}

TEST_CASE("A plan task's plans on disk become the phase's plans in the event", "[orchestrator][planning]") {
  SpecDir d;
  d.plan("01-01");
  d.plan("01-02", "['01-01']");
  auto r = orchestrator::planning_event(d.load(), action(TaskKind::plan, "01"), none_known, {});
  REQUIRE(r.has_value());
  CHECK(r->event.type == sched::EventType::succeeded);
  CHECK(r->event.task == "plan:01");
  REQUIRE(r->event.plans.size() == 2);
  CHECK(r->event.plans[1].id == "01-02");
  CHECK(r->event.plans[1].depends_on == std::vector<std::string>{"01-01"});
  CHECK(r->event.plans[1].files_modified == std::vector<std::string>{"f01-02"});
}

TEST_CASE("A plan task whose plans have errors fails with the diagnostics", "[orchestrator][planning]") {
  SpecDir d;
  d.dir.write("docs/specs/SPC-001-greet/planning/plans/01-core/01-01-PLAN.md", "---\nplan_id: [unclosed\n---\n");
  auto r = orchestrator::planning_event(d.load(), action(TaskKind::plan, "01"), none_known, {});
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().starts_with("the plans of phase 01 have errors: planning/plans/01-core/01-01-PLAN.md:"));
}

TEST_CASE("Gap planning hands over only the plans the scheduler does not know", "[orchestrator][planning]") {
  SpecDir d;
  d.plan("01-01");
  auto known = [](const std::string& id) { return id == "01-01"; };
  auto r = orchestrator::planning_event(d.load(), action(TaskKind::plan_gaps, "01"), known, {});
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().starts_with("no new PLAN files for the gaps of phase 01"));
  d.plan("01-02", "['01-01']");
  r = orchestrator::planning_event(d.load(), action(TaskKind::plan_gaps, "01"), known, {});
  REQUIRE(r.has_value());
  REQUIRE(r->event.plans.size() == 1);
  CHECK(r->event.plans[0].id == "01-02");
}

TEST_CASE("The plan checker's verdict, findings and the engine's own checks decide revise", "[orchestrator][planning]") {
  SpecDir d;
  d.plan("01-01");
  // The script worker checks nothing itself: the engine's checks alone decide.
  auto r = orchestrator::planning_event(d.load(), action(TaskKind::check_plans, "01"), none_known, {},
                                        orchestrator::VerdictFrom::engine);
  REQUIRE(r.has_value());
  CHECK(r->event.verdict == sched::Verdict::passed);
  CHECK(r->findings.empty());

  r = orchestrator::planning_event(d.load(), action(TaskKind::check_plans, "01"), none_known, {"revise", {"add a test"}});
  REQUIRE(r.has_value());
  CHECK(r->event.verdict == sched::Verdict::revise);
  CHECK(r->findings == std::vector<std::string>{"add a test"});
  CHECK(r->event.detail == "add a test");

  // A plan that depends on a plan nobody wrote: revise even when the checker passed it.
  d.plan("01-02", "['01-09']");
  r = orchestrator::planning_event(d.load(), action(TaskKind::check_plans, "01"), none_known, {"pass", {}});
  REQUIRE(r.has_value());
  CHECK(r->event.verdict == sched::Verdict::revise);
  REQUIRE(r->findings.size() == 1);
  CHECK(r->findings[0].starts_with("planning/plans/01-core/01-02-PLAN.md:"));
  CHECK(r->findings[0].find("01-09") != std::string::npos);
}

TEST_CASE("A plan checker that gives no verdict, or neither pass nor revise, fails its attempt", "[orchestrator][planning]") {
  SpecDir d;
  d.plan("01-01");
  auto r = orchestrator::planning_event(d.load(), action(TaskKind::check_plans, "01"), none_known, {});
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error() == "the plan checker reported task_completed without a verdict (\"pass\" or \"revise\")");
  r = orchestrator::planning_event(d.load(), action(TaskKind::check_plans, "01"), none_known, {"looks fine", {}});
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error() == "the plan checker's verdict 'looks fine' is neither \"pass\" nor \"revise\"");
  r = orchestrator::planning_event(d.load(), action(TaskKind::check_plans, "01"), none_known, {"pass", {}});
  REQUIRE(r.has_value());
  CHECK(r->event.verdict == sched::Verdict::passed);
  // "revise" naming nothing leaves the planner nothing to act on (review SS M5).
  r = orchestrator::planning_event(d.load(), action(TaskKind::check_plans, "01"), none_known, {"revise", {}});
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().starts_with("the plan checker's verdict is \"revise\" but it named no finding"));
}

TEST_CASE("A research attempt counts only with its research file written", "[orchestrator][planning]") {
  SpecDir d;
  const auto a = action(TaskKind::research, "01");
  CHECK(orchestrator::research_missing(d.load(), a) ==
        "no research file for phase 01 (expected planning/research/phase-01-research.md)");
  d.dir.write("docs/specs/SPC-001-greet/planning/research/phase-01-research.md", " \n");
  CHECK(orchestrator::research_missing(d.load(), a) ==
        "no research file for phase 01 (expected planning/research/phase-01-research.md, which is empty)");
  d.dir.write("docs/specs/SPC-001-greet/planning/research/phase-01-research.md", "# Research: phase 1\n");
  CHECK(orchestrator::research_missing(d.load(), a).empty());
}

TEST_CASE("A planner is told the phase, where its plans go and the template", "[orchestrator][planning]") {
  SpecDir d;
  const auto s = d.load();
  auto b = orchestrator::task_brief(s, action(TaskKind::plan, "02"), "/skills/templates");
  CHECK(b.at("phase").as_string() == "02");
  CHECK(b.at("phase_name").as_string() == "Docs");
  CHECK(b.at("phase_goal").as_string() == "explain it");
  CHECK(b.at("plans_dir").as_string() == (s.layout.spec_dir / "planning/plans/02-docs").string());
  CHECK(b.at("template").as_string() == "/skills/templates/plan.md");
  CHECK(b.at("existing_plans").as_array().empty());
  CHECK_FALSE(b.contains("revision_findings"));

  auto revise = orchestrator::task_brief(s, action(TaskKind::plan, "02"), "/t", {"split 02-01"});
  REQUIRE(revise.contains("revision_findings"));
  CHECK(revise.at("revision_findings").as_array().at(0).as_string() == "split 02-01");
  CHECK(std::string(revise.at("instructions").as_string()).find("revise") != std::string::npos);
}

TEST_CASE("A planner and a checker are told where the spec, the project's decisions and the requirements are", "[orchestrator][planning]") {
  SpecDir d;
  auto b = orchestrator::task_brief(d.load(), action(TaskKind::plan, "01"), "/t");
  CHECK(b.at("spec").as_string() == (d.spec / "SPEC.md").string());
  CHECK_FALSE(b.contains("project")); // none written yet: nothing to read
  CHECK_FALSE(b.contains("requirements"));
  d.dir.write("docs/specs/SPC-001-greet/planning/PROJECT.md", "# Project\n");
  d.dir.write("docs/specs/SPC-001-greet/planning/REQUIREMENTS.md", "# Requirements\n");
  const auto s = d.load();
  for (const auto kind : {TaskKind::plan, TaskKind::check_plans, TaskKind::plan_gaps}) {
    auto brief = orchestrator::task_brief(s, action(kind, "01"), "/t");
    CHECK(brief.at("project").as_string() == (d.spec / "planning/PROJECT.md").string());
    CHECK(brief.at("requirements").as_string() == (d.spec / "planning/REQUIREMENTS.md").string());
  }
  CHECK_FALSE(orchestrator::task_brief(s, action(TaskKind::research, "01"), "/t").contains("requirements"));
}

TEST_CASE("A planner resuming an interrupted pass is shown what it wrote and told to complete it", "[orchestrator][planning]") {
  SpecDir d;
  d.plan("01-01");
  auto b = orchestrator::task_brief(d.load(), action(TaskKind::plan, "01"), "/t");
  REQUIRE(b.at("existing_plans").as_array().size() == 1);
  CHECK(std::string(b.at("instructions").as_string()).find("interrupted") != std::string::npos);
  CHECK_FALSE(b.contains("earlier_attempt_failed"));
  // After a failed attempt it is told why, not that its pass was interrupted (review SS M1).
  const std::string why = "the plans of phase 01 have errors: planning/plans/01-core/01-01-PLAN.md:3: error[H007]: ...";
  auto retry = orchestrator::task_brief(d.load(), action(TaskKind::plan, "01"), "/t", {}, {}, {}, why);
  CHECK(retry.at("earlier_attempt_failed").as_string() == why);
  const std::string text(retry.at("instructions").as_string());
  CHECK(text.find("previous planning attempt failed (earlier_attempt_failed says why)") != std::string::npos);
  CHECK(text.find("interrupted") == std::string::npos);
}

TEST_CASE("Planning marks are per spec and per phase, and say how far planning got", "[orchestrator][planning]") {
  using orchestrator::planning_mark_key;
  using orchestrator::PlanningStage;
  using Marks = std::vector<orchestrator::UnfinishedPlanning>;
  const auto written = orchestrator::planning_mark_value(PlanningStage::written);
  const std::vector<std::pair<std::string, std::string>> kv{
      {planning_mark_key("SPC-001-greet", "01"), orchestrator::planning_mark_value(PlanningStage::planning)},
      {planning_mark_key("SPC-001-greet", "02.1"), written},
      {planning_mark_key("SPC-001-greet", "04"), "true"}, // an older run's mark: still planning
      {planning_mark_key("SPC-001-greet-v2", "03"), written}, // another spec whose name starts alike
      {"phase", "{}"}};
  CHECK(orchestrator::unfinished_planning(kv, "SPC-001-greet") ==
        Marks{{"01", PlanningStage::planning}, {"02.1", PlanningStage::written}, {"04", PlanningStage::planning}});
  CHECK(orchestrator::unfinished_planning(kv, "SPC-001-greet-v2") == Marks{{"03", PlanningStage::written}});
  CHECK(orchestrator::unfinished_planning(kv, "SPC-002-other").empty());
}

TEST_CASE("A researcher, a checker and a reconciler are told what to read and write", "[orchestrator][planning]") {
  SpecDir d;
  d.plan("01-01");
  d.plan("01-02", "['01-01']");
  d.dir.write("docs/specs/SPC-001-greet/execution/phases/01-core/01-01-SUMMARY.md",
              "---\nplan_id: '01-01'\nstatus: complete\ndeviations: ['renamed f01-01']\n---\n# done\n");
  const auto s = d.load();
  auto research = orchestrator::task_brief(s, action(TaskKind::research, "01"), "/t");
  CHECK(research.at("output").as_string() == (s.layout.spec_dir / "planning/research/phase-01-research.md").string());
  auto check = orchestrator::task_brief(s, action(TaskKind::check_plans, "01"), "/t");
  REQUIRE(check.at("plans").as_array().size() == 2);
  CHECK(std::string(check.at("instructions").as_string()).find("verdict") != std::string::npos);
  auto reconcile = orchestrator::task_brief(s, action(TaskKind::reconcile, "01-02"), "/t");
  CHECK(reconcile.at("plan_file").as_string() == (s.layout.spec_dir / "planning/plans/01-core/01-02-PLAN.md").string());
  REQUIRE(reconcile.at("deviating_summaries").as_array().size() == 1);
  CHECK(std::string(reconcile.at("deviating_summaries").as_array()[0].as_string()).ends_with("01-01-SUMMARY.md"));
}

TEST_CASE("An executor is told which of its plan's tasks an earlier attempt committed", "[orchestrator][planning]") {
  SpecDir d;
  d.dir.write("docs/specs/SPC-001-greet/planning/plans/01-core/01-01-PLAN.md",
              plan_text("01-01") + "\n### Task 1: write the greeting\n\n### Task 2: test it\n");
  const auto s = d.load();
  auto first = orchestrator::task_brief(s, action(TaskKind::execute, "01-01"), "/t");
  CHECK_FALSE(first.contains("committed_tasks"));
  // Where its SUMMARY goes: the harness looks there, the agent should not have to guess.
  CHECK(first.at("summary_file").as_string() == (s.layout.spec_dir / "execution/phases/01-core/01-01-SUMMARY.md").string());
  CHECK(first.at("template").as_string() == "/t/summary.md"); // its keys and the values the harness takes
  auto retry = orchestrator::task_brief(s, action(TaskKind::execute, "01-01"), "/t", {}, {{1, "abc123"}});
  REQUIRE(retry.at("committed_tasks").as_array().size() == 1);
  const auto& t = retry.at("committed_tasks").as_array()[0].as_object();
  CHECK(t.at("task").as_int64() == 1);
  CHECK(t.at("commit").as_string() == "abc123");
  CHECK(t.at("name").as_string() == "write the greeting");
  CHECK(std::string(retry.at("instructions").as_string()).find("Do not do them again") != std::string::npos);
}

TEST_CASE("An executor in a GSD project gets GSD's SUMMARY keys and is told what GSD's workflow steps are harness's",
          "[orchestrator][planning]") {
  // Review U, finding 2: harness's SUMMARY template made a real agent drop GSD's keys
  // (requirements-completed, provides, key-decisions), which GSD's later planning reads.
  harness::test::TempDir dir;
  dir.write(".planning/ROADMAP.md", "# Roadmap\n\n## Phase 1: Core\n");
  dir.write(".planning/phases/01-core/01-01-PLAN.md", "---\ndepends_on: []\nfiles_modified: [a]\n---\n# x\n\n### Task 1: t\n");
  fs::create_directory(dir.path / ".git");
  auto s = spec::load_spec(dir.path, dir.path);
  REQUIRE(s);
  auto first = orchestrator::task_brief(*s, action(TaskKind::execute, "01-01"), "/t");
  CHECK(first.at("template").as_string() == "/t/summary-gsd.md");
  const std::string gsd(first.at("instructions").as_string());
  CHECK_THAT(gsd, Catch::StartsWith("A GSD project: write the SUMMARY from the template with GSD's keys filled in"));
  CHECK_THAT(gsd, Catch::Contains("leave STATE.md and ROADMAP.md alone"));
  // A retry is told both.
  auto retry = orchestrator::task_brief(*s, action(TaskKind::execute, "01-01"), "/t", {}, {{1, "abc123"}});
  const std::string both(retry.at("instructions").as_string());
  CHECK_THAT(both, Catch::StartsWith("The tasks in committed_tasks are done"));
  CHECK_THAT(both, Catch::EndsWith(gsd));
}

TEST_CASE("An executor is told where its plan needs a person: checkpoints by kind, autonomous: false", "[orchestrator][planning]") {
  SpecDir d;
  d.plan("01-01");
  d.dir.write("docs/specs/SPC-001-greet/planning/plans/01-core/01-02-PLAN.md",
              "---\nplan_id: '01-02'\ndepends_on: []\nfiles_modified: [f]\ncheckpoints: ['checkpoint:decision', "
              "'human-action', 'review']\nautonomous: false\n---\n# 01-02: t\n\n### Task 1: t\n");
  const auto s = d.load();
  auto plain = orchestrator::task_brief(s, action(TaskKind::execute, "01-01"), "/t");
  CHECK_FALSE(plain.contains("checkpoints"));
  CHECK_FALSE(plain.contains("autonomous"));
  auto asks = orchestrator::task_brief(s, action(TaskKind::execute, "01-02"), "/t");
  REQUIRE(asks.contains("checkpoints"));
  CHECK(asks.at("checkpoints") == boost::json::array{"decision", "action"});
  CHECK(asks.at("autonomous") == false);
}

TEST_CASE("A user's uncommitted edit in a file a pending plan writes is found; executed plans and the spec are not", "[orchestrator][preflight]") {
  SpecDir d;
  d.plan("01-01"); // writes f01-01
  d.plan("01-02"); // writes f01-02
  d.dir.write("docs/specs/SPC-001-greet/execution/phases/01-core/01-02-SUMMARY.md",
              "---\nplan_id: '01-02'\nstatus: complete\n---\n# done\n");
  const auto s = d.load();
  std::vector<worker::GitChange> changes{{false, false, "f01-01"}, {false, false, "f01-02"}, {true, false, "notes.txt"},
                                         {true, false, "docs/specs/SPC-001-greet/STATUS.md"}};
  const auto dirty = orchestrator::dirty_declared_files(s, changes);
  REQUIRE(dirty.size() == 1);
  CHECK(dirty[0].plan_id == "01-01");
  CHECK(dirty[0].path == "f01-01");
}

TEST_CASE("what a blocked plan's attempts left in its declared files is found; the user's earlier changes are not",
          "[orchestrator][preflight]") {
  SpecDir d;
  d.plan("01-01"); // writes f01-01
  d.plan("01-02"); // writes f01-02
  const auto s = d.load();
  const std::vector<worker::GitChange> before{{false, false, "f01-02"}};
  const std::vector<worker::GitChange> now{{false, false, "f01-01"},  // the attempt's
                                           {false, false, "f01-02"},  // changed before the run
                                           {true, false, "notes.txt"}, // not declared
                                           {false, false, "docs/specs/SPC-001-greet/STATUS.md"}};
  CHECK(orchestrator::attempt_leftovers(s, *s.find_plan("01-01"), before, now) == std::vector<std::string>{"f01-01"});
  CHECK(orchestrator::attempt_leftovers(s, *s.find_plan("01-02"), before, now).empty());
}

TEST_CASE("what a run changed that no plan declares is found; what was dirty before, declared or the harness's is not", "[orchestrator][preflight]") {
  SpecDir d;
  d.plan("01-01"); // writes f01-01
  d.plan("01-02"); // writes f01-02
  const auto s = d.load();
  const std::vector<worker::GitChange> before{{true, false, "scratch.txt"}};
  const std::vector<worker::GitChange> after{{true, false, "scratch.txt"},      // the user's, before the run
                                             {false, false, "f01-02"},          // declared by 01-02
                                             {true, false, "stray/out.log"},    // nobody's
                                             {false, false, "README.md"},       // nobody's
                                             {true, false, ".orchestration/sessions/x/output.log"},
                                             {false, false, "docs/specs/SPC-001-greet/STATUS.md"}};
  CHECK(orchestrator::undeclared_changes(s, before, after) == std::vector<std::string>{"stray/out.log", "README.md"});
  CHECK(orchestrator::undeclared_changes(s, after, after).empty());
}

TEST_CASE("a spec whose own files are not committed is named at the start: SPEC.md, ROADMAP.md, the PLAN files counted", "[orchestrator][preflight]") {
  SpecDir d;
  d.plan("01-01");
  d.plan("01-02");
  const auto s = d.load();
  const std::string dir = "docs/specs/SPC-001-greet/";
  // Never committed (as after init and writing the plans): untracked, or only staged.
  const std::vector<worker::GitChange> none_committed{{true, false, dir + "SPEC.md"},
                                                      {true, false, dir + "ROADMAP.md"},
                                                      {false, true, dir + "planning/plans/01-core/01-01-PLAN.md"},
                                                      {true, false, dir + "planning/plans/01-core/01-02-PLAN.md"}};
  CHECK(orchestrator::uncommitted_spec_note(s, none_committed) ==
        "the spec's own files are not committed: SPEC.md, ROADMAP.md and 2 of its 2 PLAN files; a run executes them but "
        "commits only its own outputs (SUMMARY, VERIFICATION, STATUS.md), so history would hold results without the plans "
        "behind them: commit them first (git add docs/specs/SPC-001-greet && git commit)");
  // Committed, with edits: that is no uncommitted spec (dirty files have notes of their own).
  const std::vector<worker::GitChange> edited{{false, false, dir + "SPEC.md"}, {false, false, dir + "planning/plans/01-core/01-01-PLAN.md"}};
  CHECK(orchestrator::uncommitted_spec_note(s, edited).empty());
  const std::vector<worker::GitChange> one_plan{{true, false, dir + "planning/plans/01-core/01-02-PLAN.md"}, {true, false, "notes.txt"}};
  CHECK(orchestrator::uncommitted_spec_note(s, one_plan).starts_with("the spec's own files are not committed: 1 of its 2 PLAN files;"));
  // Committed PLANs with edits: a note of their own (review PP F5); SPEC.md's edit is not a plan.
  CHECK(orchestrator::edited_plans_note(s, edited) ==
        "1 PLAN file has edits no commit holds (docs/specs/SPC-001-greet/planning/plans/01-core/01-01-PLAN.md): the run "
        "executes it as it is now, so history would hold work made from plans no commit has: commit it (git commit "
        "docs/specs/SPC-001-greet/planning/plans/01-core/01-01-PLAN.md)");
  CHECK(orchestrator::edited_plans_note(s, none_committed).empty()); // the note above says those
}

TEST_CASE("A reconcile hands over the plan as reconciled, or fails when it broke or removed it", "[orchestrator][planning]") {
  SpecDir d;
  d.plan("01-01");
  d.plan("01-02", "['01-01']");
  // The reconciler moved 01-02's work to another file.
  d.dir.write("docs/specs/SPC-001-greet/planning/plans/01-core/01-02-PLAN.md",
              "---\nplan_id: '01-02'\ndepends_on: ['01-01']\nfiles_modified: ['moved.txt']\n---\n# 01-02: t\n");
  auto r = orchestrator::reconcile_event(d.load(), action(TaskKind::reconcile, "01-02"));
  REQUIRE(r.has_value());
  CHECK(r->task == "reconcile:01-02");
  REQUIRE(r->plans.size() == 1);
  CHECK(r->plans[0].files_modified == std::vector<std::string>{"moved.txt"});

  d.plan("01-02", "['09-09']"); // a dependency no plan has: an error on the plan
  r = orchestrator::reconcile_event(d.load(), action(TaskKind::reconcile, "01-02"));
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().starts_with("the reconciled plan has errors: planning/plans/01-core/01-02-PLAN.md:"));

  fs::remove(d.spec / "planning/plans/01-core/01-02-PLAN.md");
  r = orchestrator::reconcile_event(d.load(), action(TaskKind::reconcile, "01-02"));
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error() == "the reconcile left no plan 01-02: its PLAN file is gone or its plan_id changed");
}
