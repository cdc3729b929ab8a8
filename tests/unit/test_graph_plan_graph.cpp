#include "harness/graph/plan_graph.hpp"
#include "harness/graph/progress.hpp"
#include "harness/graph/render.hpp"
#include "harness/spec/spec.hpp"
#include "harness/util/text.hpp"
#include "spec_test_util.hpp"

#include <boost/json.hpp>
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <set>
#include <sstream>

using namespace harness;

namespace {

spec::Plan make(std::string id, std::vector<std::string> deps, std::vector<std::string> writes, double est = 1) {
  spec::Plan p;
  p.id = std::move(id);
  p.phase = *spec::parse_phase_number(p.id.substr(0, 2));
  p.depends_on = std::move(deps);
  p.files_modified = std::move(writes);
  p.estimate_minutes = est;
  return p;
}

} // namespace

TEST_CASE("the graph orders plans topologically, stable by plan order, with levels") {
  auto g = graph::build_plan_graph({make("01-01", {}, {"a"}), make("01-02", {"01-01"}, {"b"}), make("01-03", {}, {"c"}),
                                    make("02-01", {"01-02", "01-03"}, {"d"})});
  CHECK(g.acyclic());
  CHECK(g.topo_order == std::vector<int>{0, 1, 2, 3});
  CHECK(g.level == std::vector<int>{0, 1, 0, 2});
}

TEST_CASE("the critical path follows estimates, not plan counts") {
  auto g = graph::build_plan_graph({make("01-01", {}, {"a"}, 1), make("01-02", {"01-01"}, {"b"}, 1),
                                    make("01-03", {}, {"c"}, 10), make("02-01", {"01-02", "01-03"}, {"d"}, 2)});
  CHECK(g.critical_length == Approx(12));
  CHECK(g.critical_path == std::vector<int>{2, 3});
  CHECK(g.total_work == Approx(14));
  CHECK(g.rank[0] == Approx(4));
}

TEST_CASE("a plan without estimate weighs what the scheduler assumes for it, 30 minutes") {
  // graph's `*` path must be the one the scheduler prioritises: 1 minute here and 30 there would
  // mark a chain of two estimated 10-minute plans as critical, not the plan left without one.
  auto unestimated = make("01-01", {}, {"a"});
  unestimated.estimate_minutes.reset();
  auto g = graph::build_plan_graph({unestimated, make("01-02", {}, {"b"}, 10), make("01-03", {"01-02"}, {"c"}, 10)});
  CHECK(g.weight[0] == Approx(graph::default_estimate_minutes));
  CHECK(graph::default_estimate_minutes == Approx(30));
  CHECK(g.critical_path == std::vector<int>{0});
  CHECK(g.critical_length == Approx(30));
}

TEST_CASE("cycles are reported whole and do not hang ordering") {
  auto g = graph::build_plan_graph({make("01-01", {"01-03"}, {}), make("01-02", {"01-01"}, {}), make("01-03", {"01-02"}, {})});
  REQUIRE(g.cycles.size() == 1);
  CHECK(g.cycles[0].size() == 4);
  CHECK(g.cycles[0].front() == g.cycles[0].back());
  CHECK(g.topo_order.empty());
}

TEST_CASE("write/write conflicts are glob-aware and read sets never conflict") {
  auto a = make("01-01", {}, {"src/auth/**"});
  auto b = make("01-02", {}, {"src/auth/login.ts"});
  auto c = make("01-03", {}, {"src/profile/page.ts"});
  c.files_read = {"src/auth/login.ts"};
  auto d = make("01-04", {}, {"src/profile/page.ts"});
  auto g = graph::build_plan_graph({a, b, c, d});
  CHECK(g.conflicts == std::vector<std::pair<int, int>>{{0, 1}, {2, 3}});
}

TEST_CASE("a directory a plan declares conflicts with what lies below it, as the scheduler holds them") {
  const std::vector<spec::Plan> plans = {make("01-01", {}, {"app/api"}),       make("01-02", {}, {"app/api/routes.py"}),
                                         make("01-03", {}, {"app/api/"}),      make("01-04", {}, {"app/apis/x.py"}),
                                         make("01-05", {}, {"app/api/v2/*.py"}), make("01-06", {}, {"lib/*"}),
                                         make("01-07", {}, {"lib"})};
  const auto g = graph::build_plan_graph(plans);
  // 01-04's app/apis is another directory; lib/* and lib name one place.
  CHECK(g.conflicts == std::vector<std::pair<int, int>>{{0, 1}, {0, 2}, {0, 4}, {1, 2}, {2, 4}, {5, 6}});
  // Exactly the pairs the scheduler keeps apart.
  for (size_t i = 0; i < plans.size(); ++i)
    for (size_t j = i + 1; j < plans.size(); ++j)
      CHECK(graph::writes_overlap(plans[i], plans[j]) ==
            (std::ranges::find(g.conflicts, std::pair<int, int>(static_cast<int>(i), static_cast<int>(j))) != g.conflicts.end()));
}

TEST_CASE("the example graph has the documented conflict and critical path; renderers agree") {
  auto spec = spec::load_spec(HARNESS_SOURCE_DIR "/examples/specs/SPC-001-task-tracker");
  REQUIRE(spec);
  auto g = graph::build_plan_graph(spec->plans);
  auto j = boost::json::parse(graph::render_graph(g, graph::GraphFormat::json));
  CHECK(j.at("plans").as_array().size() == 12);
  CHECK(j.at("critical_path").as_array().front().as_string() == "01-01");
  bool cli_conflict = false;
  for (const auto& c : j.at("conflicts").as_array())
    if (c.as_array()[0].as_string() == "02-01" && c.as_array()[1].as_string() == "02-02") cli_conflict = true;
  CHECK(cli_conflict);
  CHECK(graph::render_graph(g, graph::GraphFormat::dot).starts_with("digraph plans {"));
  CHECK(graph::render_graph(g, graph::GraphFormat::mermaid).find("p02_01 --> p02_03") != std::string::npos);
  CHECK(graph::render_graph(g, graph::GraphFormat::text).find("02-01 <-> 02-02") != std::string::npos);
}

TEST_CASE("a ROADMAP phase dependency orders the later phase's plans after every plan of the earlier one") {
  spec::Roadmap rm;
  auto phase = [&](int n, std::vector<spec::PhaseNumber> deps) {
    spec::RoadmapPhase p;
    p.number = {n, 0};
    p.depends_on = std::move(deps);
    rm.phases.push_back(p);
  };
  // Phase 3 waits for 1 and 2; its own number, a later phase and phase 5 (no plans) count for nothing.
  phase(1, {});
  phase(2, {{3, 0}});
  phase(3, {{1, 0}, {2, 0}, {3, 0}, {5, 0}, {1, 0}});
  const std::vector<spec::Plan> plans{make("01-01", {}, {"a"}, 10), make("01-02", {"01-01"}, {"b"}, 10),
                                      make("02-01", {}, {"c"}, 30), make("03-01", {}, {"d"}, 5)};
  const auto g = graph::build_plan_graph(plans, &rm);
  CHECK(g.phase_edges == std::vector<std::pair<spec::PhaseNumber, spec::PhaseNumber>>{{{1, 0}, {3, 0}}, {{2, 0}, {3, 0}}});
  CHECK(g.deps[3].empty()); // drawn as phase edges, not as plan edges
  CHECK(g.level == std::vector<int>{0, 1, 0, 2});
  CHECK(g.critical_path == std::vector<int>{2, 3});
  CHECK(g.critical_length == Approx(35));
  CHECK(g.rank[0] == Approx(25));
  // Without the roadmap, 03-01 is a root of its own.
  const auto plain = graph::build_plan_graph(plans);
  CHECK(plain.phase_edges.empty());
  CHECK(plain.level[3] == 0);
  CHECK(plain.critical_path == std::vector<int>{2});
}

TEST_CASE("the example graph draws phase 4's ROADMAP dependencies in every format and counts them in its critical path") {
  auto spec = spec::load_spec(HARNESS_SOURCE_DIR "/examples/specs/SPC-001-task-tracker");
  REQUIRE(spec);
  auto g = graph::build_plan_graph(spec->plans, &*spec->roadmap);
  const auto text = graph::render_graph(g, graph::GraphFormat::text);
  CHECK(text.starts_with("12 plans, 14 edges, 4 phase edges, 7 levels, critical path 110 of 180 total\n"));
  CHECK(text.find("  phase 02 -> phase 04\n  phase 03 -> phase 04\n") != std::string::npos);
  CHECK(text.find("critical path: 01-01 -> 01-02 -> 03-01 -> 03-02 -> 03-03 -> 04-01 -> 04-02\n") != std::string::npos);
  CHECK(text.find("level 0: 01-01* 01-04\n") != std::string::npos);
  auto j = boost::json::parse(graph::render_graph(g, graph::GraphFormat::json));
  CHECK(j.at("phase_edges").as_array().size() == 4);
  CHECK(j.at("phase_edges").as_array()[3] == boost::json::parse(R"({"from": "03", "to": "04"})"));
  CHECK(j.at("critical_path").as_array().back().as_string() == "04-02");
  const auto dot = graph::render_graph(g, graph::GraphFormat::dot);
  CHECK(dot.find("  subgraph \"cluster_04\" {\n    label=\"phase 04\";\n") != std::string::npos);
  CHECK(dot.find("  \"03-01\" -> \"04-01\" [ltail=\"cluster_03\",lhead=\"cluster_04\",") != std::string::npos);
  const auto mermaid = graph::render_graph(g, graph::GraphFormat::mermaid);
  CHECK(mermaid.find("  subgraph phase04[\"phase 04\"]\n    p04_01[\"04-01\"]\n") != std::string::npos);
  CHECK(mermaid.find("  phase03 ==> phase04\n") != std::string::npos);
}

TEST_CASE("progress comes from the files: summaries execute, a passed verification verifies, the gate holds") {
  harness::test::TempDir dir;
  auto plan = [](std::string id, std::string deps) {
    return "---\nplan_id: '" + id + "'\ndepends_on: " + deps + "\nfiles_modified: ['" + id + ".txt']\n---\n# " + id + "\n";
  };
  dir.write("SPEC.md", "# x\n");
  dir.write("planning/plans/01-a/01-01-PLAN.md", plan("01-01", "[]"));
  dir.write("planning/plans/01-a/01-02-PLAN.md", plan("01-02", "['01-01']"));
  dir.write("planning/plans/02-b/02-01-PLAN.md", plan("02-01", "[]"));
  dir.write("planning/plans/03-c/03-01-PLAN.md", plan("03-01", "[]"));
  dir.write("execution/phases/01-a/01-01-SUMMARY.md", "---\nplan_id: '01-01'\nstatus: complete\nverification: passed\n---\n");
  auto spec = spec::load_spec(dir.path);
  REQUIRE(spec);
  REQUIRE(spec->valid());
  auto p = graph::compute_progress(*spec, graph::build_plan_graph(spec->plans), 1);
  CHECK(p.plans_total == 4);
  CHECK(p.plans_executed == 1);
  CHECK(p.plans_verified == 1);
  CHECK(p.ready == std::vector<std::string>{"01-02", "02-01"}); // 03-01 waits for phase 1's verification
  // No gate at all (lookahead 'unlimited'): only dependencies count.
  CHECK(graph::compute_progress(*spec, graph::build_plan_graph(spec->plans), std::nullopt).ready ==
        std::vector<std::string>{"01-02", "02-01", "03-01"});
  CHECK(graph::compute_progress(*spec, graph::build_plan_graph(spec->plans), 0).ready == std::vector<std::string>{"01-02"});
  CHECK(p.verifications_due.empty());
  // Executed by hand (a SUMMARY, no verification): 01-02 waits on its checks, and status says so.
  dir.write("execution/phases/01-a/01-01-SUMMARY.md", "---\nplan_id: '01-01'\nstatus: complete\n---\n");
  spec = spec::load_spec(dir.path);
  p = graph::compute_progress(*spec, graph::build_plan_graph(spec->plans), 1);
  CHECK(p.ready == std::vector<std::string>{"02-01"});
  CHECK(p.verifications_due == std::vector<std::string>{"plan 01-01: executed, its checks not run"});
  CHECK(graph::progress_text(p).find("Verifications to run (orchestrate runs them):\n  - plan 01-01: executed, its checks not run\n") !=
        std::string::npos);
  dir.write("execution/phases/01-a/01-01-SUMMARY.md", "---\nplan_id: '01-01'\nstatus: complete\nverification: passed\n---\n");
  // A failed SUMMARY is no execution: its phase's verification would not hold (02-01's phase has
  // none); phase 01's, whose plans both have a SUMMARY, does.
  dir.write("execution/phases/01-a/01-02-SUMMARY.md", "---\nplan_id: '01-02'\nstatus: complete\n---\n");
  dir.write("execution/phases/02-b/02-01-SUMMARY.md", "---\nplan_id: '02-01'\nstatus: failed\n---\n");
  dir.write("execution/phases/01-a/VERIFICATION.md", "---\nstatus: gaps_found\n---\n");
  spec = spec::load_spec(dir.path);
  p = graph::compute_progress(*spec, graph::build_plan_graph(spec->plans), 1);
  CHECK(p.blockers.size() == 2);
  CHECK(graph::progress_text(p).find("phase 01 verification: gaps_found") != std::string::npos);
  auto j = boost::json::parse(graph::progress_json(p));
  CHECK(j.at("plans_total").as_int64() == 4);
  // A whole percentage is an integer in the JSON (Boost.JSON writes 100.0 as 1E2).
  auto whole = p;
  whole.percent = 100.0;
  CHECK(graph::progress_json(whole).find("\"percent\":100,") != std::string::npos);
  whole.percent = 100.0 / 3;
  CHECK(boost::json::parse(graph::progress_json(whole)).at("percent").as_double() == Approx(33.3));
  // Tasks the last orchestrate run blocked are read back from STATUS.md's frontmatter.
  dir.write("STATUS.md", "---\nrun: blocked\nblocked:\n  - task: execute:02-01\n    reason: \"worker crashed (exit 139)\"\n"
                         "  - task: verify-plan:02-01\n    reason: its execute is blocked\n"
                         "  - task: verify-phase:02\n    reason: waits on verify-plan:02-01 (blocked)\n---\n# Status\n");
  spec = spec::load_spec(dir.path);
  REQUIRE(spec->valid());
  p = graph::compute_progress(*spec, graph::build_plan_graph(spec->plans), 1);
  REQUIRE(p.blockers.size() == 3); // the two above and the cause; what waits on it is counted
  CHECK(graph::progress_text(p).find("execute:02-01 blocked by the last run: worker crashed (exit 139)\n"
                                     "  - 2 more tasks wait on these\n") != std::string::npos);
  CHECK(p.tasks_waiting_on_blockers == 2);
  {
    // As data: the list holds causes only, and the plan says it is blocked.
    const auto data = boost::json::parse(graph::progress_json(p));
    CHECK(data.at("blockers").as_array().size() == 3);
    CHECK(data.at("tasks_waiting_on_blockers").as_int64() == 2);
    for (const auto& pl : data.at("plans").as_array())
      if (pl.at("id") == "02-01") CHECK(pl.at("blocked") == "execute:02-01: worker crashed (exit 139)");
      else CHECK(pl.at("blocked").is_null());
  }
  dir.write("STATUS.md", "---\nrun: blocked\nblocked:\n  - task: execute:02-01\n    reason: \"worker crashed (exit 139)\"\n"
                         "  - task: verify-plan:02-01\n    reason: its execute is blocked\n---\n# Status\n");
  spec = spec::load_spec(dir.path);
  CHECK(graph::compute_progress(*spec, graph::build_plan_graph(spec->plans), 1).tasks_waiting_on_blockers == 1);
  dir.write("STATUS.md", "---\nrun: blocked\nblocked:\n  - task: execute:02-01\n    reason: \"worker crashed (exit 139)\"\n"
                         "  - task: verify-plan:02-01\n    reason: its execute is blocked\n"
                         "  - task: verify-phase:02\n    reason: waits on verify-plan:02-01 (blocked)\n---\n# Status\n");
  spec = spec::load_spec(dir.path);
  p = graph::compute_progress(*spec, graph::build_plan_graph(spec->plans), 1);
  CHECK(graph::progress_text(p).find("orchestrate running") == std::string::npos);
  CHECK(boost::json::parse(graph::progress_json(p)).at("running").is_null());
  CHECK(boost::json::parse(graph::progress_json(p)).at("running_orchestrate").is_null());
  p.running = "pid 42, docs/specs/SPC-001-x, since 2026-11-23T05:00:00.000Z";
  // The same as data: a program reads the pid without parsing the text.
  p.running_orchestrate = graph::Progress::RunningOrchestrate{42, "docs/specs/SPC-001-x", "2026-11-23T05:00:00.000Z"};
  const auto orchestrate = boost::json::parse(graph::progress_json(p)).at("running_orchestrate");
  CHECK(orchestrate.at("pid").as_int64() == 42);
  CHECK(orchestrate.at("spec").as_string() == "docs/specs/SPC-001-x");
  CHECK(orchestrate.at("started_at").as_string() == "2026-11-23T05:00:00.000Z");
  const auto text = graph::progress_text(p);
  CHECK(text.find("orchestrate running: pid 42, docs/specs/SPC-001-x") < text.find("Phase 01")); // under the headline
  CHECK(boost::json::parse(graph::progress_json(p)).at("running").as_string() == p.running);
  CHECK(text.find("Waiting for your answer") == std::string::npos);
  p.waiting = {"verify-plan:02-01: verification of 02-01 -- answer with: harness-cli respond cp-1 approve|refuse"};
  CHECK(graph::progress_text(p).ends_with("Waiting for your answer:\n  - " + p.waiting[0] + "\n"));
  CHECK(boost::json::parse(graph::progress_json(p)).at("waiting").at(0).as_string() == p.waiting[0]);
}

TEST_CASE("a plan the last run gave up on is a blocker, not ready now") {
  harness::test::TempDir dir;
  dir.write("SPEC.md", "# x\n");
  dir.write("planning/plans/01-a/01-01-PLAN.md", "---\nplan_id: '01-01'\ndepends_on: []\nfiles_modified: ['a.txt']\n---\n# a\n");
  dir.write("planning/plans/01-a/01-02-PLAN.md", "---\nplan_id: '01-02'\ndepends_on: []\nfiles_modified: ['b.txt']\n---\n# b\n");
  auto spec = spec::load_spec(dir.path);
  REQUIRE(spec);
  CHECK(graph::compute_progress(*spec, graph::build_plan_graph(spec->plans), 1).ready == std::vector<std::string>{"01-01", "01-02"});
  dir.write("STATUS.md", "---\nrun: blocked\nblocked:\n  - task: execute:01-02\n    reason: \"crashed: exited 1\"\n---\n# Status\n");
  spec = spec::load_spec(dir.path);
  REQUIRE(spec);
  const auto p = graph::compute_progress(*spec, graph::build_plan_graph(spec->plans), 1);
  CHECK(p.ready == std::vector<std::string>{"01-01"});
  CHECK(p.blockers == std::vector<std::string>{"execute:01-02 blocked by the last run: crashed: exited 1"});
  CHECK(graph::progress_text(p).find("01-02    b                                planned\n") != std::string::npos);

  // Executed, and its checks failed each attempt: not "its checks not run" (review PP F4).
  dir.write("execution/phases/01-a/01-02-SUMMARY.md", "---\nplan_id: '01-02'\nstatus: complete\n---\n");
  spec = spec::load_spec(dir.path);
  REQUIRE(spec);
  const auto failed = graph::compute_progress(*spec, graph::build_plan_graph(spec->plans), 1);
  CHECK(failed.verifications_due ==
        std::vector<std::string>{"plan 01-02: executed, but the last run gave it up (Blockers say why): fix it, then orchestrate again"});
  std::filesystem::remove(dir.path / "execution/phases/01-a/01-02-SUMMARY.md");

  // Verified since (a manual `verify` marks the SUMMARY): the old blocker, and what waited on it, go.
  dir.write("STATUS.md", "---\nrun: blocked\nblocked:\n  - task: execute:01-02\n    reason: \"verification failed\"\n"
                         "  - task: verify-plan:01-02\n    reason: \"its execute is blocked\"\n"
                         "  - task: final\n    reason: \"waits on verify-phase:01 (blocked)\"\n---\n# Status\n");
  dir.write("execution/phases/01-a/01-02-SUMMARY.md", "---\nplan_id: '01-02'\nstatus: complete\nverification: passed\n---\n# b\n");
  spec = spec::load_spec(dir.path);
  REQUIRE(spec);
  const auto later = graph::compute_progress(*spec, graph::build_plan_graph(spec->plans), 1);
  CHECK(later.blockers.empty());
}

TEST_CASE("a blocker of the last run for a plan removed since is not a blocker any more") {
  harness::test::TempDir dir;
  dir.write("SPEC.md", "# x\n");
  dir.write("planning/plans/01-a/01-01-PLAN.md", "---\nplan_id: '01-01'\ndepends_on: []\nfiles_modified: ['a.txt']\n---\n# a\n");
  // 01-02 was deleted while the run went on, which tried it anyway and gave up on it.
  dir.write("STATUS.md", "---\nrun: blocked\nblocked:\n  - task: execute:01-02\n    reason: \"plan 01-02 not found\"\n"
                         "  - task: verify-plan:01-02\n    reason: its execute is blocked\n"
                         "  - task: verify-phase:01\n    reason: waits on verify-plan:01-02 (blocked)\n"
                         "  - task: final\n    reason: waits on verify-phase:01 (blocked)\n---\n# Status\n");
  auto spec = spec::load_spec(dir.path);
  REQUIRE(spec);
  const auto p = graph::compute_progress(*spec, graph::build_plan_graph(spec->plans), 1);
  CHECK(p.blockers.empty());
  CHECK(p.ready == std::vector<std::string>{"01-01"});
  // A blocker of a plan that is still there stays, with what waits on it.
  dir.write("STATUS.md", "---\nrun: blocked\nblocked:\n  - task: execute:01-02\n    reason: \"plan 01-02 not found\"\n"
                         "  - task: execute:01-01\n    reason: \"crashed: exited 1\"\n"
                         "  - task: final\n    reason: waits on verify-phase:01 (blocked)\n---\n# Status\n");
  spec = spec::load_spec(dir.path);
  REQUIRE(spec);
  const auto left = graph::compute_progress(*spec, graph::build_plan_graph(spec->plans), 1);
  CHECK(left.blockers == std::vector<std::string>{"execute:01-01 blocked by the last run: crashed: exited 1"});
  CHECK(left.tasks_waiting_on_blockers == 1);
}

TEST_CASE("the final is not due while a phase has gaps or is not planned yet, though every plan is verified") {
  harness::test::TempDir dir;
  dir.write("SPEC.md", "# x\n");
  dir.write("ROADMAP.md", "# Roadmap\n\n## Phase 1: One\n**Goal**: a\n\n## Phase 2: Two\n**Goal**: b\n");
  dir.write("planning/plans/01-one/01-01-PLAN.md", "---\nplan_id: '01-01'\ndepends_on: []\nfiles_modified: ['a.txt']\n---\n# a\n");
  dir.write("execution/phases/01-one/01-01-SUMMARY.md", "---\nplan_id: '01-01'\nstatus: complete\nverification: passed\n---\n");
  dir.write("execution/phases/01-one/VERIFICATION.md", "---\nstatus: gaps_found\n---\n");
  auto due = [&] {
    auto spec = spec::load_spec(dir.path);
    REQUIRE(spec);
    return graph::compute_progress(*spec, graph::build_plan_graph(spec->plans), 1).verifications_due;
  };
  CHECK(due().empty()); // phase 01 has gaps; phase 02 has no plans
  dir.write("execution/phases/01-one/VERIFICATION.md", "---\nstatus: passed\n---\n");
  CHECK(due().empty()); // phase 02 has no plans
  {
    // Nothing ready, due or blocked: the next step is said (review PP F11).
    auto spec = spec::load_spec(dir.path);
    REQUIRE(spec);
    const auto text = graph::progress_text(graph::compute_progress(*spec, graph::build_plan_graph(spec->plans), 1));
    CHECK(text.find("Ready now: nothing\nNext: plan phase 02 (/harness:plan-phase in Claude Code") != std::string::npos);
  }
  dir.write("ROADMAP.md", "# Roadmap\n\n## Phase 1: One\n**Goal**: a\n");
  CHECK(due() == std::vector<std::string>{"final: every plan is verified; this verification has not run"});
  // A phase verification not run yet is one of the verifications left: the final follows it.
  std::filesystem::remove(dir.path / "execution/phases/01-one/VERIFICATION.md");
  CHECK(due() == std::vector<std::string>{"phase 01: every plan is verified; this verification has not run",
                                          "final: every plan is verified; this verification has not run"});
}

TEST_CASE("plans a running orchestrate works on are running, not ready now") {
  graph::Progress p;
  p.phases.push_back({*spec::parse_phase_number("01"), "One", "executing", 3, 1, 0});
  p.plans = {{"01-01", "a", graph::PlanState::planned, true, false}, {"01-02", "b", graph::PlanState::planned, true, false},
             {"01-03", "c", graph::PlanState::executed, false, false}};
  p.ready = {"01-01", "01-02"};
  graph::mark_running(p, {"execute:01-01", "verify-plan:01-03", "plan:02", "final"});
  CHECK(p.ready == std::vector<std::string>{"01-02"});
  CHECK(p.plans[0].running);
  CHECK_FALSE(p.plans[1].running);
  CHECK(p.plans[2].running);
  const auto text = graph::progress_text(p);
  CHECK(text.find("  01-01    a                                planned  (running)\n") != std::string::npos);
  CHECK(text.find("  01-02    b                                planned  (ready)\n") != std::string::npos);
  CHECK(boost::json::parse(graph::progress_json(p)).at("plans").at(0).at("running").as_bool());
}

TEST_CASE("status's columns line up whatever the phase ids: 02, 02.1, 10") {
  harness::test::TempDir dir;
  dir.write("SPEC.md", "# x\n");
  auto plan = [&](const std::string& phase_dir, const std::string& id, const std::string& title) {
    dir.write("planning/plans/" + phase_dir + "/" + id + "-PLAN.md",
              "---\nplan_id: '" + id + "'\ndepends_on: []\nfiles_modified: ['" + id + ".txt']\n---\n# " + title + "\n");
  };
  plan("02-api", "02-01", "API endpoint");
  plan("02.1-hotfix", "02.1-01", "Hotfix the API");
  plan("02.1-hotfix", "02.1-02", "Second hotfix");
  plan("02.10-late-fix", "02.10-01", "Late fix");
  plan("10-later", "10-01", "Later");
  auto spec = spec::load_spec(dir.path);
  REQUIRE(spec);
  const auto text = graph::progress_text(graph::compute_progress(*spec, graph::build_plan_graph(spec->plans), 1));
  INFO(text);
  // Where the state column starts, on phase lines and on plan lines, is the same on every line.
  std::set<std::size_t> phase_state, plan_state;
  std::istringstream lines(text);
  int phases = 0, plans = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("Phase ")) ++phases, phase_state.insert(line.find("planned"));
    else if (line.starts_with("  0") || line.starts_with("  1")) ++plans, plan_state.insert(line.find("planned"));
  }
  CHECK(phases == 4);
  CHECK(plans == 5);
  CHECK(phase_state.size() == 1);
  CHECK(plan_state.size() == 1);
  // The phase id column is as wide as the widest id; the name follows it after one blank.
  CHECK(text.find("Phase 02    api ") != std::string::npos);
  CHECK(text.find("Phase 02.10 late-fix ") != std::string::npos);
}

TEST_CASE("status cuts long and non-ASCII plan titles at a character and keeps its columns") {
  harness::test::TempDir dir;
  dir.write("SPEC.md", "# x\n");
  auto plan = [&](const std::string& id, const std::string& title) {
    dir.write("planning/plans/01-caf\xc3\xa9/" + id + "-PLAN.md",
              "---\nplan_id: '" + id + "'\ndepends_on: []\nfiles_modified: ['" + id + ".txt']\n---\n# " + title + "\n");
  };
  plan("01-01", "Short");
  plan("01-02", "R\xc3\xa9sum\xc3\xa9 of every caf\xc3\xa9 ordered by the na\xc3\xafve clerk"); // é at byte 31-32 of a cut
  plan("01-03", "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe3\x81\xae\xe8\xa8\x88\xe7\x94\xbb"); // 日本語の計画: wide characters
  plan("01-04", std::string(31, 'a') + "\xc3\xa9\xc3\xa9");
  auto spec = spec::load_spec(dir.path);
  REQUIRE(spec);
  const auto text = graph::progress_text(graph::compute_progress(*spec, graph::build_plan_graph(spec->plans), 1));
  INFO(text);
  CHECK(harness::util::printable(text, true) == text); // no character split
  std::set<std::size_t> state_column;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);)
    if (line.starts_with("  01-"))
      state_column.insert(harness::util::display_width(line.substr(0, line.find("planned"))));
  CHECK(state_column.size() == 1);
  CHECK(text.find("R\xc3\xa9sum\xc3\xa9 of every caf\xc3\xa9 ordered by\xe2\x80\xa6 planned") != std::string::npos);
}

TEST_CASE("status holds a plan whose phase depends in ROADMAP on a phase not done, as the scheduler does, and says why") {
  harness::test::TempDir dir;
  dir.write("SPEC.md", "# x\n");
  // Phase 3 has no plans yet: phase 4, which depends on it, waits though its plan names nothing.
  dir.write("ROADMAP.md", "# Roadmap\n\n## Phase 1: One\n**Depends on**: nothing\n\n## Phase 2: Two\n**Depends on**: Phase 1\n\n"
                          "## Phase 3: Three\n**Depends on**: Phase 1\n\n## Phase 4: Four\n**Depends on**: Phase 3, Phase 9\n");
  auto plan = [&](const std::string& id, const std::string& slug) {
    dir.write("planning/plans/" + slug + "/" + id + "-PLAN.md",
              "---\nplan_id: '" + id + "'\ndepends_on: []\nfiles_modified: ['" + id + ".txt']\n---\n# " + id + "\n");
  };
  plan("01-01", "01-one");
  plan("02-01", "02-two");
  plan("04-01", "04-four");
  auto progress = [&] {
    auto spec = spec::load_spec(dir.path);
    REQUIRE(spec);
    return graph::compute_progress(*spec, graph::build_plan_graph(spec->plans), std::nullopt);
  };
  auto p = progress();
  CHECK(p.ready == std::vector<std::string>{"01-01"});
  CHECK(p.plans[1].waits_for == "phase 01's plans");
  CHECK(p.plans[2].waits_for == "phase 03's plans"); // phase 09 is not there: ignored, as validate says (H034)
  CHECK(graph::progress_text(p).find(" planned  (waits for phase 01's plans, ROADMAP Depends on)\n") != std::string::npos);
  CHECK(boost::json::parse(graph::progress_json(p)).at("plans").at(1).at("waits_for").as_string() == "phase 01's plans");
  CHECK(boost::json::parse(graph::progress_json(p)).at("plans").at(0).at("waits_for").is_null());

  dir.write("execution/phases/01-one/01-01-SUMMARY.md", "---\nplan_id: '01-01'\nstatus: complete\nverification: passed\n---\n");
  p = progress();
  CHECK(p.ready == std::vector<std::string>{"02-01"}); // phase 01's verification is not waited for
  CHECK(p.plans[1].waits_for.empty());
  CHECK(p.plans[2].waits_for == "phase 03's plans");
  // Plans of phase 01 a checker has not passed (orchestrate's planning marks): not done either.
  graph::mark_unchecked(p, {spec::PhaseNumber{1, 0}});
  CHECK(p.ready.empty());
  CHECK(p.plans[1].waits_for == "phase 01's plans");
}

TEST_CASE("status says when a phase was verified before a phase its ROADMAP entry depends on", "[graph]") {
  // Review EE F4: an older harness verified phase 04 while phase 03, which it depends on, was
  // blocked; status showed it verified beside an unexecuted phase 03, and nothing said so.
  harness::test::TempDir dir;
  dir.write("SPEC.md", "# x\n");
  dir.write("ROADMAP.md", "# Roadmap\n\n## Phase 1: One\n**Depends on**: nothing\n\n## Phase 2: Two\n**Depends on**: Phase 1\n");
  for (const auto& [id, slug] : {std::pair{"01-01", "01-one"}, std::pair{"02-01", "02-two"}})
    dir.write(std::string("planning/plans/") + slug + "/" + id + "-PLAN.md",
              std::string("---\nplan_id: '") + id + "'\ndepends_on: []\nfiles_modified: ['" + id + ".txt']\n---\n# " + id + "\n");
  dir.write("execution/phases/02-two/02-01-SUMMARY.md", "---\nplan_id: '02-01'\nstatus: complete\nverification: passed\n---\n");
  dir.write("execution/phases/02-two/VERIFICATION.md", "---\nstatus: passed\nplans: ['02-01']\n---\n");
  auto progress = [&] {
    auto spec = spec::load_spec(dir.path);
    REQUIRE(spec);
    return graph::compute_progress(*spec, graph::build_plan_graph(spec->plans), std::nullopt);
  };
  auto p = progress();
  REQUIRE(p.phases.size() == 2);
  CHECK(p.phases[1].state == "verified");
  CHECK(p.phases[1].verified_before == std::vector<spec::PhaseNumber>{spec::PhaseNumber{1, 0}});
  CHECK(graph::progress_text(p).find("1/1 verified  (before phase 01, which it depends on: not run again)\n") != std::string::npos);
  CHECK(boost::json::parse(graph::progress_json(p)).at("phases").at(1).at("verified_before").as_array().at(0).as_string() == "01");
  CHECK(p.phases[0].verified_before.empty());
  // Once phase 01's plans are verified too, nothing is said.
  dir.write("execution/phases/01-one/01-01-SUMMARY.md", "---\nplan_id: '01-01'\nstatus: complete\nverification: passed\n---\n");
  p = progress();
  CHECK(p.phases[1].verified_before.empty());
  CHECK(graph::progress_text(p).find("which it depends on") == std::string::npos);
}

TEST_CASE("status and graph say which order GSD's inserted phases impose, not a ROADMAP line", "[graph]") {
  // Review V, finding 3: the implied order (02 after 01.1) was called "ROADMAP Depends on".
  test::TempDir dir;
  std::filesystem::create_directory(dir.path / ".git");
  dir.write(".planning/ROADMAP.md", "# Roadmap\n\n### Phase 1: Base\n**Depends on**: Nothing\n\n"
                                    "### Phase 1.1: Hotfix (INSERTED)\n**Depends on**: Nothing\n\n"
                                    "### Phase 1.2: More (INSERTED)\n**Depends on**: Nothing\n\n"
                                    "### Phase 2: Next\n**Depends on**: Phase 1\n");
  for (const char* p : {"01-base/01-01", "01.1-hotfix/01.1-01", "01.2-more/01.2-01", "02-next/02-01"})
    dir.write(std::string(".planning/phases/") + p + "-PLAN.md", "---\ndepends_on: []\nfiles_modified: [a]\n---\n# x\n\n### Task 1: t\n");
  auto spec = spec::load_spec(dir.path, "/");
  REQUIRE(spec);
  auto g = graph::build_plan_graph(spec->plans, &*spec->roadmap);
  const auto text = graph::progress_text(graph::compute_progress(*spec, g, std::nullopt));
  CHECK(text.find("(waits for the plans of phases 01, 01.1, 01.2, ROADMAP Depends on, and inserted before its phase)") !=
        std::string::npos); // 02-01
  CHECK(text.find("(waits for phase 01.1's plans, inserted before its phase)") != std::string::npos); // 01.2-01
  const auto drawn = graph::render_graph(g, graph::GraphFormat::text);
  CHECK(drawn.find("  phase 01 -> phase 02\n") != std::string::npos); // its Depends on line
  CHECK(drawn.find("  phase 01.1 -> phase 02 (inserted before it, not a Depends on line)\n") != std::string::npos);
  CHECK(drawn.find("  phase 01.1 -> phase 01.2 (inserted before it, not a Depends on line)\n") != std::string::npos);
}

TEST_CASE("a plan whose verification checkpoint waits is due an answer, not its checks", "[graph]") {
  test::TempDir dir;
  const auto spec_dir = dir.path / "docs/specs/SPC-001-w";
  dir.write("docs/specs/SPC-001-w/SPEC.md", "# W\n");
  for (const char* id : {"01-01", "01-02"}) {
    dir.write(fmt::format("docs/specs/SPC-001-w/planning/plans/01-core/{}-PLAN.md", id),
              fmt::format("---\nplan_id: '{}'\ndepends_on: []\nfiles_modified: ['{}.txt']\n---\n# {}\n", id, id, id));
    dir.write(fmt::format("docs/specs/SPC-001-w/execution/phases/01-core/{}-SUMMARY.md", id),
              fmt::format("---\nplan_id: '{}'\nstatus: complete\n---\n", id));
  }
  auto spec = spec::load_spec(spec_dir, dir.path);
  REQUIRE(spec);
  auto p = graph::compute_progress(*spec, graph::build_plan_graph(spec->plans));
  graph::mark_awaiting_answer(p, {"verify-plan:01-01", "verify-phase:01"});
  const auto text = graph::progress_text(p);
  CHECK(text.find("  - plan 01-01: its checks passed; it waits for a person's answer (harness-cli respond --list)\n") !=
        std::string::npos);
  CHECK(text.find("  - plan 01-02: executed, its checks not run\n") != std::string::npos);
}

TEST_CASE("a plan whose SUMMARY says its verification needs a person is due an answer, and a refusal is named",
          "[graph]") {
  test::TempDir dir;
  const auto spec_dir = dir.path / "docs/specs/SPC-001-w";
  dir.write("docs/specs/SPC-001-w/SPEC.md", "# W\n");
  const std::vector<std::pair<const char*, const char*>> plans = {
      {"01-01", "verification: human_needed\n"},
      {"01-02", "verification: human_needed\nrefused_by: bob\nrefused_at: '2026-01-02T03:04:05Z'\nrefusal_note: too dark\n"}};
  for (const auto& [id, keys] : plans) {
    dir.write(fmt::format("docs/specs/SPC-001-w/planning/plans/01-core/{}-PLAN.md", id),
              fmt::format("---\nplan_id: '{}'\ndepends_on: []\nfiles_modified: ['{}.txt']\n---\n# {}\n", id, id, id));
    dir.write(fmt::format("docs/specs/SPC-001-w/execution/phases/01-core/{}-SUMMARY.md", id),
              fmt::format("---\nplan_id: '{}'\nstatus: complete\n{}---\n", id, keys));
  }
  auto spec = spec::load_spec(spec_dir, dir.path);
  REQUIRE(spec);
  const auto p = graph::compute_progress(*spec, graph::build_plan_graph(spec->plans));
  CHECK(p.plans_executed == 2);
  CHECK(p.plans_verified == 0);
  CHECK(p.verifications_due ==
        std::vector<std::string>{"plan 01-01: its checks passed; it needs a person's approval, which the next orchestrate asks for",
                                 "plan 01-02: its checks passed; refused by bob at 2026-01-02T03:04:05Z: too dark: the next "
                                 "orchestrate asks again (or harness-cli redo)"});
  // With its checkpoint open (status and STATUS.md know), the line says where to answer it.
  auto open = p;
  graph::mark_awaiting_answer(open, {"verify-plan:01-01"});
  CHECK(open.verifications_due.front() ==
        "plan 01-01: its checks passed; it waits for a person's answer (harness-cli respond --list)");
  // The heading does not say orchestrate runs what waits for a person.
  CHECK(graph::progress_text(open).find("Verifications to run (orchestrate runs them; a person answers those that say "
                                        "so):\n  - plan 01-01: its checks passed; it waits") != std::string::npos);
}

TEST_CASE("status says when what a running orchestrate has under way could not be read", "[graph]") {
  // Review GG F5: an older harness's run, whose store this build does not upgrade, showed its
  // plans as ready without a word.
  harness::test::TempDir dir;
  dir.write("SPEC.md", "# x\n");
  dir.write("planning/plans/01-one/01-01-PLAN.md", "---\nplan_id: '01-01'\ndepends_on: []\nfiles_modified: ['a.txt']\n---\n# a\n");
  auto spec = spec::load_spec(dir.path);
  REQUIRE(spec);
  auto p = graph::compute_progress(*spec, graph::build_plan_graph(spec->plans), std::nullopt);
  CHECK(boost::json::parse(graph::progress_json(p)).at("running_tasks_unread").is_null());
  CHECK(graph::progress_text(p).find("not shown") == std::string::npos);
  p.running = "pid 42, docs/specs/SPC-001-x, since t";
  p.running_tasks_unread = "harness.db has schema version 6, ...";
  CHECK(graph::progress_text(p).find("orchestrate running: pid 42, docs/specs/SPC-001-x, since t\nwhat it runs is not shown, and a "
                                     "plan shown ready may be running: harness.db has schema version 6, ...\n") != std::string::npos);
  CHECK(boost::json::parse(graph::progress_json(p)).at("running_tasks_unread").as_string() == "harness.db has schema version 6, ...");
}
