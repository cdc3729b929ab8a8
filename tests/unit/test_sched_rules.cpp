#include "test_sched_support.hpp"
#include "harness/sched/json.hpp"

#include <catch2/catch.hpp>

using namespace sched_test;

TEST_CASE("Independent plans fill every slot and never more", "[sched]") {
  Driver d(workload(1, {plan("01-01"), plan("01-02"), plan("01-03"), plan("01-04"), plan("01-05")}));
  d.begin();
  CHECK(d.running().size() == 4);
  CHECK(d.s.busy_slots() == 4);
  CHECK(d.state("execute:01-05") == "ready");
}

TEST_CASE("A dependent plan waits until its dependency is executed and plan-verified", "[sched]") {
  Driver d(workload(1, {plan("01-01"), plan("01-02", {"01-01"})}));
  d.begin();
  CHECK(d.running() == std::vector<std::string>{"execute:01-01"});
  d.succeed("execute:01-01");
  CHECK(d.running() == std::vector<std::string>{"verify-plan:01-01"});
  d.succeed("verify-plan:01-01");
  CHECK(d.is_running("execute:01-02"));
}

TEST_CASE("A freed slot goes to verification before execution", "[sched]") {
  Config c;
  c.slots = 1;
  Driver d(workload(1, {plan("01-01"), plan("01-02"), plan("01-03")}), c);
  d.begin();
  const auto first = d.running().front();
  d.succeed(first);
  CHECK(d.running() == std::vector<std::string>{"verify-plan:" + first.substr(8)});
}

TEST_CASE("Within a kind the longest remaining critical path starts first, ties by id", "[sched]") {
  Config c;
  c.slots = 1;
  // 01-03 heads a chain of two; 01-01 and 01-02 are single short plans.
  Driver d(workload(1, {plan("01-01", {}, {}, 5), plan("01-02", {}, {}, 5), plan("01-03", {}, {}, 5),
                        plan("01-04", {"01-03"}, {}, 20)}),
           c);
  d.begin();
  CHECK(d.running() == std::vector<std::string>{"execute:01-03"});
  d.run_all();
  CHECK(d.start_index("execute:01-01") < d.start_index("execute:01-02"));
}

TEST_CASE("Plans writing overlapping paths never run together; readers do", "[sched]") {
  auto a = plan("01-01", {}, {"src/auth/**"});
  auto b = plan("01-02", {}, {"src/auth/login.ts"});
  auto c = plan("01-03", {}, {"src/other.ts"});
  a.files_read = b.files_read = c.files_read = {"src/shared.ts"};
  Driver d(workload(1, {a, b, c}));
  d.begin();
  CHECK(d.is_running("execute:01-01") != d.is_running("execute:01-02"));
  CHECK(d.is_running("execute:01-03"));
  const auto holder = d.is_running("execute:01-01") ? std::string("execute:01-01") : std::string("execute:01-02");
  const auto waiter = holder == "execute:01-01" ? std::string("execute:01-02") : std::string("execute:01-01");
  CHECK(d.state(waiter) == "ready");
  d.succeed(holder);
  CHECK(d.is_running(waiter));
}

TEST_CASE("Phase gate K=1 lets phase 2 run beside phase 1 but holds phase 3 until phase 1 is verified", "[sched]") {
  Driver d(workload(3, {plan("01-01", {}, {}, 50), plan("02-01"), plan("03-01")}));
  d.begin();
  CHECK(d.is_running("execute:01-01"));
  CHECK(d.is_running("execute:02-01"));
  CHECK(d.state("execute:03-01") == "pending");
  d.run_until_running("execute:03-01");
  CHECK(d.state("verify-phase:01") == "done");
}

TEST_CASE("Phase gate K=0 is strict and unlimited follows the graph only", "[sched]") {
  Config strict;
  strict.gate_lookahead = 0;
  Driver d(workload(2, {plan("01-01"), plan("02-01")}), strict);
  d.begin();
  CHECK(d.running() == std::vector<std::string>{"execute:01-01"});
  Config open;
  open.gate_lookahead.reset();
  open.slots = 8; // the empty phases 2-4 verify at once and take slots too
  Driver e(workload(5, {plan("01-01"), plan("05-01")}), open);
  e.begin();
  CHECK(e.is_running("execute:05-01"));
}

TEST_CASE("Verification is never skipped: phase after its plans, final after every phase", "[sched]") {
  Driver d(workload(2, {plan("01-01"), plan("02-01")}));
  d.begin();
  d.run_all();
  REQUIRE(d.finished_with("complete"));
  CHECK(d.start_index("verify-plan:01-01") < d.start_index("verify-phase:01"));
  CHECK(d.start_index("verify-phase:01") < d.start_index("final"));
  CHECK(d.start_index("verify-phase:02") < d.start_index("final"));
}

TEST_CASE("Research runs ahead up to depth phases and is skipped when the file exists", "[sched]") {
  Workload w;
  for (int i = 1; i <= 5; ++i) w.phases.push_back(WorkPhase{.number = {i, 0}});
  w.phases[1].research_exists = true;
  Config c;
  c.slots = 8;
  Driver d(w, c);
  d.begin();
  CHECK(d.is_running("research:01"));
  CHECK(d.s.find_task("research:02") == nullptr);
  CHECK(d.is_running("plan:02"));
  CHECK(d.is_running("research:03"));
  CHECK(d.state("research:04") == "pending");
  CHECK(d.state("plan:04") == "pending");
}

TEST_CASE("A plan task's plans join the graph and are checked before they execute", "[sched]") {
  Workload w;
  w.phases.push_back(WorkPhase{.number = {1, 0}, .research_exists = true});
  Driver d(w);
  d.begin();
  REQUIRE(d.is_running("plan:01"));
  auto e = make_event(EventType::succeeded, "plan:01");
  e.plans = {plan("01-01"), plan("01-02", {"01-01"})};
  d.send(e);
  CHECK(d.running() == std::vector<std::string>{"check-plans:01"});
  d.succeed("check-plans:01");
  CHECK(d.is_running("execute:01-01"));
  d.run_all();
  CHECK(d.finished_with("complete"));
}

TEST_CASE("Plans of an interrupted planning pass are planned again and checked before any executes", "[sched]") {
  auto w = workload(1, {plan("01-01"), plan("01-02")});
  w.phases[0].planning_unfinished = true;
  Driver d(w);
  d.begin();
  // The plans are known (a dependency on them resolves), but nothing of the phase executes yet.
  CHECK(d.running() == std::vector<std::string>{"plan:01"});
  CHECK(d.state("execute:01-01") == "pending");
  auto e = make_event(EventType::succeeded, "plan:01");
  e.plans = {plan("01-01"), plan("01-03", {"01-01"})}; // the planner finished: 01-02 dropped, 01-03 new
  d.send(e);
  CHECK(d.running() == std::vector<std::string>{"check-plans:01"});
  d.succeed("check-plans:01");
  CHECK(d.is_running("execute:01-01"));
  d.run_all();
  CHECK(d.finished_with("complete"));
  CHECK(d.state("execute:01-02") == "dropped");
  CHECK(d.state("execute:01-03") == "done");
}

TEST_CASE("Plans a finished planner wrote but no checker passed are checked, not planned again", "[sched]") {
  auto w = workload(1, {plan("01-01"), plan("01-02")});
  w.phases[0].plans_unchecked = true;
  {
    Driver d(w);
    d.begin();
    CHECK(d.running() == std::vector<std::string>{"check-plans:01"});
    CHECK(d.state("plan:01") == "done");
    CHECK(d.state("execute:01-01") == "pending");
    d.succeed("check-plans:01");
    CHECK(d.is_running("execute:01-01"));
    d.run_all();
    CHECK(d.finished_with("complete"));
  }
  // The checker sends them back: now the planner runs, then the checker again.
  Driver d(w);
  d.begin();
  d.succeed("check-plans:01", Verdict::revise);
  CHECK(d.running() == std::vector<std::string>{"plan:01"});
  auto e = make_event(EventType::succeeded, "plan:01");
  e.plans = {plan("01-01"), plan("01-02"), plan("01-03")};
  d.send(e);
  CHECK(d.running() == std::vector<std::string>{"check-plans:01"});
  d.succeed("check-plans:01");
  d.run_all();
  CHECK(d.finished_with("complete"));
  CHECK(d.state("execute:01-03") == "done");
}

TEST_CASE("check-plans sends plans back at most three times, then asks a human", "[sched]") {
  Workload w;
  w.phases.push_back(WorkPhase{.number = {1, 0}, .research_exists = true});
  Driver d(w);
  d.begin();
  for (int round = 0; round < 3; ++round) {
    d.succeed("plan:01");
    auto out = d.succeed("check-plans:01", Verdict::revise);
    REQUIRE(d.is_running("plan:01"));
  }
  d.succeed("plan:01");
  auto out = d.succeed("check-plans:01", Verdict::revise);
  REQUIRE(std::ranges::any_of(out, [](const Action& a) { return a.type == ActionType::ask_human; }));
  CHECK(d.state("check-plans:01") == "human");
  CHECK(d.s.busy_slots() == 0);
  auto ans = make_event(EventType::answered, "check-plans:01");
  d.send(ans);
  CHECK(d.state("check-plans:01") == "done");
}

TEST_CASE("An escalation an earlier run left is asked as soon as its task is ready, its loop not run again", "[sched]") {
  // The plan checker of the earlier run sent the plans back too often; the person's question is
  // carried over: check-plans asks at once, runs nothing, and the answer lets the plans execute.
  auto w = workload(1, {plan("01-01")});
  w.phases[0].plans_unchecked = true;
  Driver d(w);
  auto e = make_event(EventType::escalated, "check-plans:01");
  e.detail = "checkpoint: plans of phase 01: sent back 3 times";
  CHECK(d.send(e).empty()); // nothing happens before begin
  auto out = d.begin();
  REQUIRE(std::ranges::any_of(out, [](const Action& a) { return a.type == ActionType::ask_human && a.task == "check-plans:01" &&
                                                                 a.reason == "checkpoint: plans of phase 01: sent back 3 times"; }));
  CHECK(d.state("check-plans:01") == "human");
  CHECK(std::ranges::count(d.started(), std::string("check-plans:01")) == 0); // never started
  CHECK(d.running().empty());
  d.send(make_event(EventType::answered, "check-plans:01"));
  CHECK(d.is_running("execute:01-01"));
  d.run_all();
  CHECK(d.finished_with("complete"));
  CHECK(std::ranges::count(d.started(), std::string("plan:01")) == 0);
  // Once the task has run in this run, its own outcome decides: the event is refused.
  Driver later(w);
  later.begin();
  REQUIRE(later.is_running("check-plans:01"));
  auto refused = later.send(make_event(EventType::escalated, "check-plans:01"));
  REQUIRE(refused.size() == 1);
  CHECK(refused[0].type == ActionType::rejected);
}

TEST_CASE("A gap escalation left by an earlier run is asked once the phase's plans are verified", "[sched]") {
  Driver d(workload(1, {plan("01-01")}));
  d.send(make_event(EventType::escalated, "verify-phase:01"));
  d.begin();
  d.run_all();
  CHECK(d.state("verify-phase:01") == "human");
  CHECK(std::ranges::count(d.started(), std::string("verify-phase:01")) == 0);
  CHECK(d.state("verify-plan:01-01") == "done");
  CHECK(d.s.find_task("plan-gaps:01") == nullptr);
  d.send(make_event(EventType::answered, "verify-phase:01"));
  d.run_all();
  CHECK(d.finished_with("complete"));
}

TEST_CASE("A predecessor's deviations put a reconcile before the next execute", "[sched]") {
  Config c;
  c.slots = 1;
  Driver d(workload(1, {plan("01-01"), plan("01-02"), plan("01-03", {"01-01"})}), c);
  d.begin();
  REQUIRE(d.is_running("execute:01-01"));
  auto e = make_event(EventType::succeeded, "execute:01-01");
  e.has_deviations = true;
  d.send(e);
  REQUIRE(d.s.find_task("reconcile:01-02") != nullptr);
  REQUIRE(d.s.find_task("reconcile:01-03") != nullptr);
  d.run_all();
  CHECK(d.start_index("reconcile:01-02") < d.start_index("execute:01-02"));
  CHECK(d.start_index("reconcile:01-03") < d.start_index("execute:01-03"));
  CHECK(d.finished_with("complete"));
}

TEST_CASE("gaps_found adds gap plans to the live graph, runs them and verifies again, twice at most", "[sched]") {
  Driver d(workload(1, {plan("01-01")}));
  d.begin();
  d.run_until_running("verify-phase:01");
  d.succeed("verify-phase:01", Verdict::gaps_found);
  REQUIRE(d.is_running("plan-gaps:01"));
  auto e = make_event(EventType::succeeded, "plan-gaps:01");
  e.plans = {plan("01-02", {"01-01"})};
  d.send(e);
  CHECK(d.is_running("execute:01-02"));
  d.run_until_running("verify-phase:01");
  CHECK(d.state("verify-plan:01-02") == "done");
  d.succeed("verify-phase:01", Verdict::gaps_found);
  d.succeed("plan-gaps:01");
  d.run_until_running("verify-phase:01");
  auto out = d.succeed("verify-phase:01", Verdict::gaps_found);
  CHECK(std::ranges::any_of(out, [](const Action& a) { return a.type == ActionType::ask_human; }));
  CHECK(d.state("verify-phase:01") == "human");
}

TEST_CASE("The loops' bounds count the rounds earlier runs spent on the phase", "[sched]") {
  // A killed or blocked run must not buy the next one a fresh budget of agent rounds (review SS H3).
  SECTION("revisions") {
    Workload w;
    w.phases.push_back(WorkPhase{.number = {1, 0}, .research_exists = true, .revisions = 2});
    Driver d(w);
    d.begin();
    d.succeed("plan:01");
    d.succeed("check-plans:01", Verdict::revise); // the third of three
    CHECK(d.s.loop_rounds({1, 0}) == std::pair{3, 0});
    d.succeed("plan:01");
    auto out = d.succeed("check-plans:01", Verdict::revise);
    CHECK(std::ranges::any_of(out, [](const Action& a) { return a.type == ActionType::ask_human; }));
  }
  SECTION("more spent than the bound: the question says how many times in all") {
    Workload w;
    w.phases.push_back(WorkPhase{.number = {1, 0}, .research_exists = true, .revisions = 4});
    Driver d(w);
    d.begin();
    d.succeed("plan:01");
    auto out = d.succeed("check-plans:01", Verdict::revise);
    const auto ask = std::ranges::find(out, ActionType::ask_human, &Action::type);
    REQUIRE(ask != out.end());
    CHECK(ask->reason.starts_with("plans sent back for revision 4 times"));
    SECTION("a person's approval at the bound ends the cycle: its count starts again") {
      d.send(make_event(EventType::answered, "check-plans:01"));
      CHECK(d.s.loop_rounds({1, 0}) == std::pair{0, 0});
    }
  }
  SECTION("a pass ends the cycle: its count starts again") {
    Workload w;
    w.phases.push_back(WorkPhase{.number = {1, 0}, .research_exists = true, .revisions = 2});
    Driver d(w);
    d.begin();
    d.succeed("plan:01");
    d.succeed("check-plans:01");
    CHECK(d.s.loop_rounds({1, 0}) == std::pair{0, 0});
  }
  SECTION("gap rounds, until the phase passes") {
    auto w = workload(1, {plan("01-01")});
    w.phases[0].gap_rounds = 1;
    Driver d(w);
    d.begin();
    d.run_until_running("verify-phase:01");
    d.succeed("verify-phase:01", Verdict::gaps_found); // the second of two
    CHECK(d.s.loop_rounds({1, 0}) == std::pair{0, 2});
    d.succeed("plan-gaps:01");
    d.run_until_running("verify-phase:01");
    auto out = d.succeed("verify-phase:01", Verdict::gaps_found);
    CHECK(std::ranges::any_of(out, [](const Action& a) { return a.type == ActionType::ask_human; }));
  }
  SECTION("a passed phase verification clears them") {
    auto w = workload(1, {plan("01-01")});
    w.phases[0].gap_rounds = 2;
    Driver d(w);
    d.begin();
    d.run_until_running("verify-phase:01");
    d.succeed("verify-phase:01");
    CHECK(d.s.loop_rounds({1, 0}) == std::pair{0, 0});
  }
  // Carried through the workload's JSON, as a replay reads it.
  WorkPhase p{.number = {2, 0}, .plans_exist = true, .revisions = 1, .gap_rounds = 2};
  auto back = work_phase_from_json(to_json(p));
  REQUIRE(back);
  CHECK(back->revisions == 1);
  CHECK(back->gap_rounds == 2);
}

TEST_CASE("human_needed waits for an answer without holding a slot", "[sched]") {
  Driver d(workload(2, {plan("01-01"), plan("02-01"), plan("02-02"), plan("02-03")}));
  d.begin();
  d.run_until_running("verify-phase:01");
  d.succeed("verify-phase:01", Verdict::human_needed);
  CHECK(d.state("verify-phase:01") == "human");
  CHECK(d.s.find_task("verify-phase:01")->slot == -1);
  d.run_all();
  CHECK_FALSE(d.s.finished());
  d.send(make_event(EventType::answered, "verify-phase:01"));
  d.run_all();
  CHECK(d.finished_with("complete"));
}

TEST_CASE("The waves baseline holds a wave until the previous wave of its phase is verified", "[sched]") {
  auto plans = std::vector<WorkPlan>{plan("01-01"), plan("01-02", {"01-01"}), plan("01-03", {}, {}, 100)};
  for (auto policy : {Policy::graph, Policy::waves}) {
    Config c;
    c.policy = policy;
    Driver d(workload(1, plans), c);
    d.begin();
    d.succeed("execute:01-01");
    d.succeed("verify-plan:01-01");
    REQUIRE(d.is_running("execute:01-03"));
    CHECK(d.is_running("execute:01-02") == (policy == Policy::graph));
  }
}

TEST_CASE("Deviations already in a SUMMARY at load time reconcile the next plan first", "[sched]") {
  auto w = workload(1, {plan("01-01"), plan("01-02")});
  w.plans[0].executed = w.plans[0].verified = w.plans[0].has_deviations = true;
  Driver d(w);
  d.begin();
  CHECK(d.is_running("reconcile:01-02"));
  CHECK(d.state("execute:01-02") == "pending");
  d.succeed("reconcile:01-02");
  CHECK(d.is_running("execute:01-02"));
}

TEST_CASE("A plan an earlier run reconciled is not reconciled again for the same deviations", "[sched]") {
  // The earlier run reconciled 01-02 and stopped before executing it (review SS M3: the edit ran twice).
  auto w = workload(1, {plan("01-01"), plan("01-02"), plan("01-03", {"01-01"})});
  w.plans[0].executed = w.plans[0].verified = w.plans[0].has_deviations = true;
  w.plans[1].reconciled = true;
  Driver d(w);
  d.begin();
  CHECK(d.s.find_task("reconcile:01-02") == nullptr);
  CHECK(d.is_running("execute:01-02"));
  CHECK(d.is_running("reconcile:01-03")); // not reconciled by that run
}

TEST_CASE("A reconciled plan's new frontmatter holds its execute on the files it now writes", "[sched]") {
  auto w = workload(1, {plan("01-01", {}, {"a.txt"}), plan("01-02", {"01-01"}, {"b.txt"}), plan("01-03", {}, {"c.txt"})});
  w.plans[0].executed = w.plans[0].verified = w.plans[0].has_deviations = true;
  Config c;
  c.slots = 2;
  Driver d(w, c);
  d.begin();
  REQUIRE(d.is_running("reconcile:01-02"));
  REQUIRE(d.is_running("execute:01-03"));
  // The deviation moved 01-02's work into c.txt, which the running 01-03 writes.
  auto e = make_event(EventType::succeeded, "reconcile:01-02");
  e.plans = {plan("01-02", {"01-01"}, {"c.txt"})};
  d.send(e);
  CHECK(d.state("execute:01-02") == "ready"); // a slot is free: only the write conflict holds it
  d.succeed("execute:01-03");
  CHECK(d.is_running("execute:01-02"));
  d.run_all();
  CHECK(d.finished_with("complete"));
}

TEST_CASE("The serial baseline runs one execute at a time", "[sched]") {
  Config c;
  c.policy = Policy::serial;
  Driver d(workload(1, {plan("01-01"), plan("01-02"), plan("01-03")}), c);
  d.begin();
  CHECK(d.running().size() == 1);
}

TEST_CASE("A plan without a SUMMARY runs even in a verified phase, and the phase and the final are verified again", "[sched]") {
  auto w = workload(2, {plan("01-01"), plan("01-02"), plan("02-01")});
  w.phases[0].verified = w.phases[1].verified = true; // an old phase 01 report, before 01-02 was added
  w.final_verified = true;
  w.plans[0].executed = w.plans[0].verified = true;
  w.plans[2].executed = w.plans[2].verified = true;
  Driver d(w);
  d.begin();
  CHECK(d.is_running("execute:01-02"));
  CHECK(d.state("verify-phase:02") == "done"); // every plan of phase 02 is executed: its report holds
  d.run_all();
  REQUIRE(d.finished_with("complete"));
  CHECK(d.start_index("verify-plan:01-02") < d.start_index("verify-phase:01"));
  CHECK(d.start_index("verify-phase:01") < d.start_index("final"));
  CHECK(d.start_index("verify-phase:02") == d.started().size()); // never started
}

namespace {

/// Phases 1..n as workload(), phase i depending (ROADMAP) on the phases listed in deps[i-1].
Workload with_phase_depends(Workload w, std::vector<std::vector<int>> deps) {
  for (std::size_t i = 0; i < deps.size(); ++i)
    for (int d : deps[i]) w.phases[i].depends_on.push_back(PhaseNumber{d, 0});
  return w;
}

} // namespace

TEST_CASE("A phase's plans wait for every plan of the phases it depends on in ROADMAP, not for their verification", "[sched][phase-depends]") {
  // Phase 3 depends on phase 2 only; its plan names no plan of phase 2 (a planner that plans one
  // phase at a time writes it so). Without the gate, 03-01 could start at once.
  Config c;
  c.gate_lookahead.reset();
  Driver d(with_phase_depends(workload(3, {plan("01-01"), plan("02-01", {"01-01"}), plan("03-01")}), {{}, {1}, {2}}), c);
  d.begin();
  CHECK(d.running() == std::vector<std::string>{"execute:01-01"});
  CHECK(d.state("execute:03-01") == "pending");
  CHECK(d.s.why_waiting("execute:03-01") == "waits on phase 02's plans (ROADMAP: Depends on): execute:02-01 (pending)");
  d.succeed("execute:01-01");
  d.succeed("verify-plan:01-01");
  CHECK(d.is_running("execute:02-01"));
  CHECK(d.state("execute:03-01") == "pending");
  d.succeed("execute:02-01");
  CHECK(d.s.why_waiting("execute:03-01") == "waits on phase 02's plans (ROADMAP: Depends on): verify-plan:02-01 (running)");
  d.succeed("verify-plan:02-01");
  // Phase 02's own verification is not waited for (the gate is what orders verifications).
  CHECK(d.is_running("execute:03-01"));
  CHECK(d.is_running("verify-phase:02"));
  d.run_all();
  CHECK(d.finished_with("complete"));
}

TEST_CASE("A phase depending only on phase 1 does not wait for phase 2's plans", "[sched][phase-depends]") {
  // H2's shape: 2 and 4 depend on 1, 3 on 2 (no gate, to see the ROADMAP rule alone).
  Config c;
  c.gate_lookahead.reset();
  Driver d(with_phase_depends(workload(4, {plan("01-01"), plan("02-01", {"01-01"}), plan("03-01"), plan("04-01", {"01-01"})}),
                              {{}, {1}, {2}, {1}}),
           c);
  d.begin();
  d.succeed("execute:01-01");
  d.succeed("verify-plan:01-01");
  CHECK(d.is_running("execute:02-01"));
  CHECK(d.is_running("execute:04-01"));
  CHECK(d.state("execute:03-01") == "pending");
  d.run_all();
  CHECK(d.finished_with("complete"));
  CHECK(d.start_index("verify-plan:02-01") < d.start_index("execute:03-01"));
}

TEST_CASE("A phase depending on one not planned yet waits for its plans to be written, checked and verified", "[sched][phase-depends]") {
  Workload w;
  w.phases.push_back(WorkPhase{.number = {1, 0}, .research_exists = true});
  w.phases.push_back(WorkPhase{.number = {2, 0}, .research_exists = true, .plans_exist = true, .depends_on = {{1, 0}}});
  w.plans = {plan("02-01")};
  Config c;
  c.gate_lookahead.reset();
  Driver d(w, c);
  d.begin();
  CHECK(d.running() == std::vector<std::string>{"plan:01"});
  CHECK(d.s.why_waiting("execute:02-01") == "waits on phase 01's plans (ROADMAP: Depends on): plan:01 (running)");
  auto e = make_event(EventType::succeeded, "plan:01");
  e.plans = {plan("01-01")};
  d.send(e);
  CHECK(d.state("execute:02-01") == "pending");
  d.succeed("check-plans:01");
  d.succeed("execute:01-01");
  CHECK(d.state("execute:02-01") == "pending");
  d.succeed("verify-plan:01-01");
  CHECK(d.is_running("execute:02-01"));
}

TEST_CASE("Gaps found in a depended phase hold the dependents that have not started until the gap plans are verified", "[sched][phase-depends]") {
  Config c;
  c.slots = 1;
  c.gate_lookahead.reset();
  // 02-02 waits on 02-01 as well, so it has not started when phase 01's gaps are found.
  Driver d(with_phase_depends(workload(2, {plan("01-01"), plan("02-01"), plan("02-02", {"02-01"})}), {{}, {1}}), c);
  d.begin();
  d.succeed("execute:01-01");
  d.succeed("verify-plan:01-01");
  // Verification goes first; 02-01 is ready behind it.
  REQUIRE(d.is_running("verify-phase:01"));
  CHECK(d.state("execute:02-01") == "ready");
  d.succeed("verify-phase:01", Verdict::gaps_found);
  CHECK(d.state("execute:02-01") == "pending"); // held again: the phase has work once more
  CHECK(d.is_running("plan-gaps:01"));
  auto e = make_event(EventType::succeeded, "plan-gaps:01");
  e.plans = {plan("01-02", {"01-01"})};
  d.send(e);
  CHECK(d.is_running("execute:01-02"));
  d.run_all();
  CHECK(d.finished_with("complete"));
  CHECK(d.start_index("verify-plan:01-02") < d.start_index("execute:02-01"));
}

TEST_CASE("A gap plan written while a dependent runs leaves that one running and holds the rest", "[sched][phase-depends]") {
  Config c;
  c.gate_lookahead.reset();
  Driver d(with_phase_depends(workload(2, {plan("01-01"), plan("02-01"), plan("02-02", {"02-01"})}), {{}, {1}}), c);
  d.begin();
  d.succeed("execute:01-01");
  d.succeed("verify-plan:01-01");
  REQUIRE(d.is_running("execute:02-01"));
  REQUIRE(d.is_running("verify-phase:01"));
  d.succeed("verify-phase:01", Verdict::gaps_found);
  auto e = make_event(EventType::succeeded, "plan-gaps:01");
  e.plans = {plan("01-02", {"01-01"})};
  d.send(e);
  CHECK(d.is_running("execute:02-01"));
  d.succeed("execute:02-01");
  d.succeed("verify-plan:02-01");
  CHECK(d.state("execute:02-02") == "pending");
  CHECK(d.s.why_waiting("execute:02-02").starts_with("waits on phase 01's plans"));
  d.run_all();
  CHECK(d.finished_with("complete"));
  CHECK(d.start_index("verify-plan:01-02") < d.start_index("execute:02-02"));
}

TEST_CASE("A ROADMAP dependency on the phase itself, a later phase or an unknown one is ignored", "[sched][phase-depends]") {
  Config c;
  c.gate_lookahead.reset();
  Driver d(with_phase_depends(workload(2, {plan("01-01"), plan("02-01")}), {{1, 2, 9}, {2}}), c);
  d.begin();
  CHECK(d.is_running("execute:01-01"));
  CHECK(d.is_running("execute:02-01"));
  d.run_all();
  CHECK(d.finished_with("complete"));
}

TEST_CASE("A plan that phases depend on ranks with their work", "[sched][phase-depends]") {
  // 03-01 (100 min) follows every plan of phase 2 (ROADMAP), none of phase 1: 02-01 leads the
  // longer path and starts first though its own estimate is smaller than 01-01's.
  Config c;
  c.slots = 1;
  c.gate_lookahead.reset();
  Driver d(with_phase_depends(workload(3, {plan("01-01", {}, {}, 10), plan("02-01", {}, {}, 5), plan("03-01", {}, {}, 100)}),
                              {{}, {}, {2}}),
           c);
  CHECK(d.s.plan_rank(1) == Approx(5 + 5 + 100 + 5));
  CHECK(d.s.plan_rank(0) == Approx(10 + 5));
  d.begin();
  CHECK(d.running() == std::vector<std::string>{"execute:02-01"});
}

namespace {

Event edited(std::vector<WorkPlan> plans, std::vector<std::string> removed = {}, std::vector<std::string> held = {}) {
  auto e = make_event(EventType::plans_edited);
  e.plans = std::move(plans);
  e.removed = std::move(removed);
  e.held = std::move(held);
  return e;
}

} // namespace

TEST_CASE("A pending plan edited to write what a running plan writes waits for it", "[sched][edits]") {
  Config c;
  c.slots = 2;
  Driver d(workload(1, {plan("01-01", {}, {"out/1"}, 5), plan("01-02", {}, {"shared/**"}, 50),
                        plan("01-03", {}, {"out/3"}, 40)}),
           c);
  d.begin();
  REQUIRE(d.running() == std::vector<std::string>{"execute:01-02", "execute:01-03"});
  d.send(edited({plan("01-01", {}, {"out/1", "shared/x.txt"}, 5)}));
  d.succeed("execute:01-03");
  d.succeed("verify-plan:01-03");
  CHECK(d.state("execute:01-01") == "ready"); // a slot is free, but 01-02 writes shared/
  CHECK(d.s.busy_slots() == 1);
  d.succeed("execute:01-02");
  CHECK(d.is_running("execute:01-01"));
  CHECK(d.s.plans()[0].files_modified == std::vector<std::string>{"out/1", "shared/x.txt"});
}

TEST_CASE("A dependency added during the run is waited for; a removed plan is dropped; an added one joins", "[sched][edits]") {
  Config c;
  c.slots = 1;
  Driver d(workload(1, {plan("01-01", {}, {}, 5), plan("01-02", {}, {}, 50), plan("01-03", {}, {}, 40),
                        plan("01-04", {}, {}, 30)}),
           c);
  d.begin();
  REQUIRE(d.running() == std::vector<std::string>{"execute:01-02"});
  CHECK(d.s.edit_fate("01-05", {1, 0}) == EditFate::joins);
  CHECK(d.s.edit_fate("01-02", {1, 0}) == EditFate::next_attempt);
  CHECK(d.s.edit_fate("01-04", {1, 0}) == EditFate::applies);
  d.send(edited({plan("01-03", {"01-01"}, {}, 40), plan("01-05", {}, {}, 1)}, {"01-04"}));
  CHECK(d.state("execute:01-04") == "dropped");
  CHECK(d.state("verify-plan:01-04") == "dropped");
  CHECK(d.state("execute:01-05") == "ready");
  d.run_all();
  CHECK(d.finished_with("complete"));
  CHECK(d.start_index("execute:01-01") < d.start_index("execute:01-03"));
  CHECK(d.start_index("verify-plan:01-01") < d.start_index("execute:01-03"));
  CHECK(d.state("execute:01-05") == "done");
  CHECK(d.start_index("execute:01-04") == d.started().size()); // never started
}

TEST_CASE("A running plan goes on as it started; its retry runs as its PLAN file is now written", "[sched][edits]") {
  Config c;
  c.slots = 2;
  Driver d(workload(1, {plan("01-01", {}, {"out/1"}, 50), plan("01-02", {}, {"shared/**"}, 5)}), c);
  d.begin();
  REQUIRE(d.running() == std::vector<std::string>{"execute:01-01", "execute:01-02"});
  d.send(edited({plan("01-01", {}, {"out/1", "shared/**"}, 50)}));
  CHECK(d.s.plans()[0].files_modified == std::vector<std::string>{"out/1"}); // as its worker read it
  d.fail("execute:01-01", FailureClass::crashed);
  CHECK(d.s.plans()[0].files_modified == std::vector<std::string>{"out/1", "shared/**"});
  CHECK(d.state("execute:01-01") == "ready"); // the retry waits for 01-02, which writes shared/ now
  d.succeed("execute:01-02");
  CHECK(d.is_running("execute:01-01"));
}

TEST_CASE("A plan removed while it runs is not run again when it fails", "[sched][edits]") {
  Driver d(workload(1, {plan("01-01"), plan("01-02", {}, {}, 5)}));
  d.begin();
  d.send(edited({}, {"01-01"}));
  CHECK(d.is_running("execute:01-01"));
  d.fail("execute:01-01", FailureClass::crashed);
  CHECK(d.state("execute:01-01") == "dropped");
  d.run_all();
  CHECK(d.finished_with("complete"));
}

TEST_CASE("A plan whose edited file does not validate is held until fixed, and blocked as held at the end", "[sched][edits]") {
  Config c;
  c.slots = 1;
  Driver d(workload(1, {plan("01-01", {}, {}, 50), plan("01-02", {}, {}, 5)}), c);
  d.begin();
  d.send(edited({}, {}, {"01-02"}));
  d.run_all();
  CHECK(d.start_index("execute:01-02") == d.started().size());
  CHECK(d.finished_with("blocked"));
  CHECK(d.s.find_task("execute:01-02")->reason.find("held") != std::string::npos);

  Driver fixed(workload(1, {plan("01-01", {}, {}, 50), plan("01-02", {}, {}, 5)}), c);
  fixed.begin();
  fixed.send(edited({}, {}, {"01-02"}));
  fixed.succeed("execute:01-01");
  CHECK(fixed.state("execute:01-02") == "pending"); // the slot is free for verify-plan:01-01 only
  fixed.send(edited({plan("01-02", {}, {"out/2"}, 5)}));
  CHECK(fixed.state("execute:01-02") == "ready");
  fixed.succeed("verify-plan:01-01");
  CHECK(fixed.is_running("execute:01-02"));
  fixed.run_all();
  CHECK(fixed.finished_with("complete"));
}

TEST_CASE("A plan added to a verified phase or to one being planned is not taken", "[sched][edits]") {
  auto w = workload(2, {plan("01-01"), plan("02-01")});
  w.phases[1].plans_exist = false;
  w.plans.pop_back();
  Config c;
  c.gate_lookahead.reset();
  Driver d(w, c);
  d.begin();
  CHECK(d.s.edit_fate("02-01", {2, 0}) == EditFate::phase_not_open);
  CHECK(d.s.edit_fate("03-01", {3, 0}) == EditFate::phase_not_open);
  d.succeed("execute:01-01");
  d.succeed("verify-plan:01-01");
  d.succeed("verify-phase:01");
  CHECK(d.s.edit_fate("01-02", {1, 0}) == EditFate::phase_verified);
  CHECK(d.s.edit_fate("01-01", {1, 0}) == EditFate::has_run);
  d.send(edited({plan("01-02")}));
  CHECK(d.s.find_task("execute:01-02") == nullptr);
}
