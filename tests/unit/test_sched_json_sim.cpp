#include "test_sched_support.hpp"

#include "harness/graph/plan_graph.hpp"
#include "harness/sched/json.hpp"
#include "harness/sched/simulator.hpp"
#include "harness/sched/spec_workload.hpp"

#include <boost/json.hpp>
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <tuple>

using namespace sched_test;

namespace {

/// Every field of a WorkPlan, in declaration order. A field added to WorkPlan stops this from
/// compiling, so the round trip below must set it, and then fails until to_json and
/// work_plan_from_json both carry it.
template <class P> auto fields(P& p) {
  auto& [id, phase, depends_on, files_modified, files_read, estimate, checkpoints, autonomous, executed, has_deviations,
         verified, reconciled] = p;
  return std::tie(id, phase, depends_on, files_modified, files_read, estimate, checkpoints, autonomous, executed,
                  has_deviations, verified, reconciled);
}

} // namespace

TEST_CASE("Every field of a WorkPlan survives a JSON round trip", "[sched][json]") {
  WorkPlan p;
  // Each unlike its default, so a field one side drops comes back different.
  fields(p) = std::make_tuple(std::string("03-02"), PhaseNumber{3, 1}, std::vector<std::string>{"03-01"},
                              std::vector<std::string>{"src/**"}, std::vector<std::string>{"docs/a.md"},
                              std::optional<double>(12.5), std::vector<std::string>{"human-verify"}, false, true, true, true,
                              true);
  auto back = work_plan_from_json(to_json(p));
  REQUIRE(back);
  CHECK(fields(*back) == fields(p));
}

TEST_CASE("Events, actions, workloads and configs survive a JSON round trip", "[sched][json]") {
  auto e = make_event(EventType::succeeded, "plan:02");
  e.verdict = Verdict::gaps_found;
  e.has_deviations = true;
  e.plans = {plan("02-01", {"01-01"}, {"src/**"}, 12.5)};
  auto back = event_from_json(to_json(e));
  REQUIRE(back);
  CHECK(boost::json::serialize(to_json(*back)) == boost::json::serialize(to_json(e)));
  auto edit = make_event(EventType::plans_edited);
  edit.plans = {plan("01-02", {"01-01"}, {"shared/**"})};
  edit.removed = {"01-03"};
  edit.held = {"01-04"};
  auto edit_back = event_from_json(to_json(edit));
  REQUIRE(edit_back);
  CHECK(edit_back->removed == edit.removed);
  CHECK(edit_back->held == edit.held);
  CHECK(boost::json::serialize(to_json(*edit_back)) == boost::json::serialize(to_json(edit)));
  Action a;
  a.type = ActionType::start;
  a.task = "execute:02-01";
  a.kind = TaskKind::execute;
  a.subject = "02-01";
  a.slot = 3;
  a.attempt = 2;
  a.continuation = true;
  CHECK(*action_from_json(to_json(a)) == a);
  Config c;
  c.gate_lookahead.reset();
  c.caps[TaskKind::research] = 1;
  c.policy = Policy::serial;
  CHECK(boost::json::serialize(to_json(*config_from_json(to_json(c)))) == boost::json::serialize(to_json(c)));
  auto w = workload(2, {plan("01-01"), plan("02-01", {"01-01"})});
  w.phases[1].planning_unfinished = true;
  CHECK(boost::json::serialize(to_json(*workload_from_json(to_json(w)))) == boost::json::serialize(to_json(w)));
  CHECK(workload_from_json(to_json(w))->phases[1].planning_unfinished);
  CHECK_FALSE(workload_from_json(to_json(w))->phases[1].plans_unchecked);
  w.phases[1].plans_unchecked = true;
  CHECK(workload_from_json(to_json(w))->phases[1].plans_unchecked);
  // ROADMAP phase dependencies are part of the workload a run is replayed from.
  w.phases[1].depends_on = {PhaseNumber{1, 0}};
  CHECK(boost::json::serialize(to_json(*workload_from_json(to_json(w)))) == boost::json::serialize(to_json(w)));
  CHECK(workload_from_json(to_json(w))->phases[1].depends_on == std::vector<PhaseNumber>{{1, 0}});
  CHECK_FALSE(workload_from_json(boost::json::parse(R"({"phases":[{"phase":"02","depends_on":["x"]}]})")));
}

TEST_CASE("Malformed JSON events are refused with the field named", "[sched][json]") {
  auto bad = event_from_json(boost::json::parse(R"({"type":"exploded","task":"x"})"));
  REQUIRE_FALSE(bad);
  CHECK(bad.error().find("type") != std::string::npos);
  CHECK_FALSE(event_from_json(boost::json::parse(R"({"task":"x"})")));
  CHECK_FALSE(work_plan_from_json(boost::json::parse(R"({"id":"01-01","phase":"x"})")));
}

TEST_CASE("A simulated chain takes exactly its critical path", "[sched][sim]") {
  SimOptions o;
  auto w = workload(1, {plan("01-01", {}, {}, 10), plan("01-02", {"01-01"}, {}, 20)});
  const auto r = simulate(w, o);
  REQUIRE(r.complete);
  // execute 10 + verify 5 + execute 20 + verify 5 + verify-phase 10 + final 15
  CHECK(r.makespan == Approx(65));
  CHECK(r.critical_path == Approx(65));
  CHECK(r.lower_bound == Approx(65));
  CHECK(r.tasks.size() == 6);
}

TEST_CASE("A ROADMAP phase dependency is on the simulated critical path", "[sched][sim]") {
  SimOptions o;
  o.config.gate_lookahead.reset();
  auto w = workload(2, {plan("01-01", {}, {}, 10), plan("02-01", {}, {}, 10)});
  w.phases[1].depends_on = {PhaseNumber{1, 0}};
  const auto r = simulate(w, o);
  REQUIRE(r.complete);
  // execute 10 + verify 5, then phase 2's: execute 10 + verify 5, verify-phase 10, final 15
  CHECK(r.makespan == Approx(55));
  CHECK(r.critical_path == Approx(55));
}

TEST_CASE("Simulated policies: graph beats waves and serial on a wide graph", "[sched][sim]") {
  std::vector<WorkPlan> plans;
  for (int p = 1; p <= 3; ++p)
    for (int k = 1; k <= 4; ++k) {
      auto id = fmt::format("{:02}-{:02}", p, k);
      plans.push_back(plan(id, k > 1 ? std::vector<std::string>{fmt::format("{:02}-{:02}", p, k - 1)} : std::vector<std::string>{}, {}, 10.0 * k));
    }
  auto w = workload(3, plans);
  SimOptions o;
  const auto graph = simulate(w, o);
  o.config.policy = Policy::waves;
  const auto waves = simulate(w, o);
  o.config.policy = Policy::serial;
  const auto serial = simulate(w, o);
  REQUIRE(graph.complete);
  REQUIRE(waves.complete);
  REQUIRE(serial.complete);
  CHECK(graph.makespan <= waves.makespan);
  CHECK(graph.makespan < serial.makespan);
  CHECK(graph.makespan >= graph.lower_bound);
  const auto j = to_json(graph);
  for (auto key : {"policy", "slots", "makespan", "lower_bound", "critical_path", "total_work", "utilization", "tasks"})
    CHECK(j.contains(key));
  CHECK(render_simulation(graph).find("makespan") != std::string::npos);
}

TEST_CASE("The example spec becomes a workload and simulates to completion", "[sched][sim]") {
  auto spec = harness::spec::load_spec(std::string(HARNESS_SOURCE_DIR) + "/examples/specs/SPC-001-task-tracker");
  REQUIRE(spec);
  const auto w = workload_from_spec(*spec);
  CHECK(w.plans.size() == spec->plans.size());
  const auto r = simulate(w, SimOptions{});
  CHECK(r.complete);
  CHECK(r.makespan >= r.lower_bound);
  // Phase 4 "Depends on: Phase 2, Phase 3": 04-01, whose plan names nothing, executes after every
  // plan of both is verified, also without the gate.
  CHECK(std::ranges::find(w.phases, harness::spec::PhaseNumber{4, 0}, &WorkPhase::number)->depends_on ==
        std::vector<harness::spec::PhaseNumber>{{2, 0}, {3, 0}});
  for (const auto& gate : {std::optional<int>(1), std::optional<int>()}) {
    SimOptions o;
    o.config.gate_lookahead = gate;
    const auto g = simulate(w, o);
    REQUIRE(g.complete);
    const auto start = std::ranges::find(g.tasks, std::string("execute:04-01"), &SimTask::id)->start;
    for (const auto& t : g.tasks)
      if (t.id.starts_with("verify-plan:02-") || t.id.starts_with("verify-plan:03-")) CHECK(t.end <= start);
  }
}

TEST_CASE("graph's critical path is the chain that sets the example's simulated run, ROADMAP dependencies included", "[sched][sim]") {
  // `harness-cli graph` and `simulate --policy graph --gate unlimited` must not disagree on what
  // to speed up: each plan of graph's critical path executes as soon as the one before it is
  // plan-verified, the first at minute 0, and the run ends with the last one's verifications.
  auto spec = harness::spec::load_spec(std::string(HARNESS_SOURCE_DIR) + "/examples/specs/SPC-001-task-tracker");
  REQUIRE(spec);
  const auto g = harness::graph::build_plan_graph(spec->plans, &*spec->roadmap);
  std::vector<std::string> path;
  for (int v : g.critical_path) path.push_back(g.ids[static_cast<std::size_t>(v)]);
  CHECK(path == std::vector<std::string>{"01-01", "01-02", "03-01", "03-02", "03-03", "04-01", "04-02"});
  SimOptions o;
  o.config.gate_lookahead = std::nullopt;
  const auto r = simulate(workload_from_spec(*spec), o);
  REQUIRE(r.complete);
  auto task = [&](const std::string& id) {
    const auto it = std::ranges::find(r.tasks, id, &SimTask::id);
    REQUIRE(it != r.tasks.end());
    return *it;
  };
  CHECK(task("execute:" + path.front()).start == 0);
  for (std::size_t k = 1; k < path.size(); ++k) {
    INFO(path[k]);
    CHECK(task("execute:" + path[k]).start == task("verify-plan:" + path[k - 1]).end);
  }
  CHECK(r.critical_path == Approx(task("verify-plan:" + path.back()).end + o.model.verify_phase + o.model.verify_final));
  CHECK(r.makespan == Approx(r.critical_path));
}

TEST_CASE("A simulation names the phases it cannot predict because they have no plans yet", "[sched][sim]") {
  auto w = workload(2, {plan("01-01", {}, {}, 10)});
  w.phases[1].plans_exist = false;
  w.phases.push_back(WorkPhase{.number = {3, 0}, .research_exists = false, .plans_exist = false, .verified = false});
  const auto r = simulate(w, SimOptions{});
  REQUIRE(r.unplanned_phases.size() == 2);
  CHECK(harness::spec::to_string(r.unplanned_phases[0]) == "02");
  CHECK(render_simulation(r).find("note: phases 02, 03 have no plans yet: their execution cannot be predicted") !=
        std::string::npos);
  CHECK(boost::json::serialize(to_json(r)["unplanned_phases"]) == R"(["02","03"])");
  // Plans the caller supplies for a phase (the benchmark does) make it predictable.
  SimOptions given;
  given.unplanned[{2, 0}] = {plan("02-01", {}, {}, 10)};
  given.unplanned[{3, 0}] = {plan("03-01", {}, {}, 10)};
  CHECK(simulate(w, given).unplanned_phases.empty());
  CHECK(render_simulation(simulate(workload(1, {plan("01-01", {}, {}, 10)}), SimOptions{})).find("note:") == std::string::npos);
}

TEST_CASE("A simulation of a spec with nothing left to run says so instead of a bare 0.0 minutes", "[sched][sim]") {
  auto done = plan("01-01", {}, {}, 10);
  done.executed = done.verified = true;
  auto w = workload(1, {done});
  w.phases[0].verified = true;
  w.final_verified = true;
  const auto r = simulate(w, SimOptions{});
  CHECK(r.complete);
  CHECK(r.tasks.empty());
  CHECK(render_simulation(r).find("note: nothing is left to run") != std::string::npos);
  CHECK(render_simulation(simulate(workload(1, {plan("01-01", {}, {}, 10)}), SimOptions{})).find("nothing is left") ==
        std::string::npos);
}

TEST_CASE("A durations file is an object of minutes by known plan id, its mistakes with line and column", "[sched][sim]") {
  const std::vector<std::string> ids = {"01-01", "01-02"};
  auto ok = parse_durations(R"({"01-01": 45, "01-02": 2.5})", "d.json", ids);
  REQUIRE(ok);
  CHECK(ok->at("01-02") == Approx(2.5));
  auto unknown = parse_durations("{\n  \"01-01\": 45,\n  \"09-09\": 5,\n  \"01-1\": 3\n}\n", "d.json", ids);
  REQUIRE_FALSE(unknown);
  REQUIRE(unknown.error().size() == 2);
  CHECK(harness::spec::render(unknown.error()[0]).starts_with("d.json:3:3: error[H302]: no plan '09-09' in the spec\n    \"09-09\": 5,\n    ^"));
  CHECK(unknown.error()[1].line == 4);
  auto negative = parse_durations(R"({"01-01": -1})", "d.json", ids);
  REQUIRE_FALSE(negative);
  CHECK(negative.error()[0].code == "H301");
  auto broken = parse_durations("{\n  \"01-01\": 45,\n  oops\n}", "d.json", ids);
  REQUIRE_FALSE(broken);
  CHECK(broken.error()[0].code == "H301");
  CHECK(broken.error()[0].line == 3);
  CHECK(parse_durations("[1, 2]", "d.json", ids).error()[0].code == "H301");
  // Too large to be minutes (1e309 reads as infinity): refused, not simulated into no number.
  for (const char* huge : {R"({"01-01": 1e309})", R"({"01-01": 1e308})", R"({"01-01": -1e309})"}) {
    INFO(huge);
    auto r = parse_durations(huge, "d.json", ids);
    REQUIRE_FALSE(r);
    CHECK(r.error()[0].code == "H301");
  }
  CHECK(parse_durations(R"({"01-01": 52560000})", "d.json", ids).has_value());
}

TEST_CASE("A plan written twice in a durations file is an error at the second, not last-one-wins", "[sched][sim]") {
  const std::vector<std::string> ids = {"01-01", "01-02"};
  auto twice = parse_durations("{\n  \"01-01\": 7,\n  \"01-02\": {\"01-01\": 1},\n  \"01-01\" : 50\n}\n", "d.json", ids);
  REQUIRE_FALSE(twice);
  // The "01-01" inside 01-02's object is no top-level key; that object is no number (H301).
  REQUIRE(twice.error().size() == 2);
  CHECK(harness::spec::render(twice.error()[0])
            .starts_with("d.json:4:3: error[H303]: duplicate key '01-01' (first on line 2); JSON keys must be unique\n"
                         "    \"01-01\" : 50\n    ^"));
  CHECK(twice.error()[1].code == "H301");
  // Spelled with an escape, it is still the same key.
  auto escaped = parse_durations(R"({"01-01": 7, "01\u002d01": 50})", "d.json", ids);
  REQUIRE_FALSE(escaped);
  CHECK(escaped.error()[0].code == "H303");
  CHECK(escaped.error()[0].col == 14);
}

TEST_CASE("A run with PLAN edits replays from its JSON log to the same actions and snapshot", "[sched][json][edits]") {
  Config c;
  c.slots = 2;
  auto w = workload(1, {plan("01-01", {}, {"a"}, 30), plan("01-02", {}, {"b"}, 20), plan("01-03", {}, {"c"}, 10)});
  Driver d(w, c);
  d.begin();
  auto edit = make_event(EventType::plans_edited);
  edit.plans = {plan("01-03", {"01-01"}, {"a"}, 10), plan("01-04", {}, {"d"}, 5), plan("01-01", {}, {"a", "e"}, 30)};
  edit.removed = {"01-02"};
  d.send(edit);
  d.fail("execute:01-01", FailureClass::crashed); // its retry takes the edit
  auto hold = make_event(EventType::plans_edited);
  hold.held = {"01-04"};
  d.send(hold);
  d.run_all();
  Scheduler replay(*workload_from_json(to_json(w)), *config_from_json(to_json(c)));
  std::vector<Action> replayed;
  for (const auto& e : d.events) {
    auto parsed = event_from_json(boost::json::parse(boost::json::serialize(to_json(e))));
    REQUIRE(parsed);
    auto a = replay.handle(*parsed);
    replayed.insert(replayed.end(), a.begin(), a.end());
  }
  CHECK(replayed == d.log);
  CHECK(boost::json::serialize(replay.snapshot()) == boost::json::serialize(d.s.snapshot()));
  CHECK(d.state("execute:01-02") == "done"); // removed while it ran, and it succeeded: it stays as it ran
  CHECK(d.s.plans()[0].files_modified == std::vector<std::string>{"a", "e"});
}

TEST_CASE("--seed is a whole number from 0 to 2^64-1, nothing else", "[sched][sim]") {
  CHECK(parse_seed("0") == 0u);
  CHECK(parse_seed("42") == 42u);
  CHECK(parse_seed("18446744073709551615") == UINT64_MAX);
  for (const char* bad : {"-1", "18446744073709551616", "99999999999999999999", "1.5", "abc", "", " 7", "7 ", "+7"}) {
    INFO(bad);
    const auto r = parse_seed(bad);
    REQUIRE_FALSE(r);
    CHECK(r.error().find("is no seed: a whole number from 0 to 18446744073709551615") != std::string::npos);
  }
}
