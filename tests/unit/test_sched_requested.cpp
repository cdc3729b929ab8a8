// The `requested` event (harness_start_session): a task asked for by a person goes first within
// its kind, a blocked one is reopened with fresh attempts, anything else is refused unchanged.
#include "harness/sched/json.hpp"
#include "test_sched_support.hpp"

#include <catch2/catch.hpp>

#include <boost/json/serialize.hpp>

using namespace sched_test;

TEST_CASE("A requested execute starts before the other executes but after verification", "[sched][requested]") {
  Config c;
  c.slots = 1;
  Driver d(workload(1, {plan("01-01"), plan("01-02"), plan("01-03")}), c);
  d.begin();
  REQUIRE(d.running() == std::vector<std::string>{"execute:01-01"});
  auto out = d.send(make_event(EventType::requested, "execute:01-03"));
  CHECK(out.empty());                     // no slot is free: nothing starts yet
  CHECK(d.state("execute:01-03") == "ready");
  d.succeed("execute:01-01");
  CHECK(d.running() == std::vector<std::string>{"verify-plan:01-01"}); // verification keeps its priority
  d.succeed("verify-plan:01-01");
  CHECK(d.running() == std::vector<std::string>{"execute:01-03"});    // before 01-02, whose id sorts first
}

TEST_CASE("A requested task that still waits on a dependency says what it waits on", "[sched][requested]") {
  Driver d(workload(1, {plan("01-01"), plan("01-02", {"01-01"})}));
  d.begin();
  CHECK(d.send(make_event(EventType::requested, "execute:01-02")).empty());
  CHECK(d.state("execute:01-02") == "pending");
  CHECK(d.s.why_waiting("execute:01-02") == "waits on verify-plan:01-01 (pending)"); // its dependency must be executed and verified
  CHECK(d.s.why_waiting("execute:09-09").empty());
  d.run_until_running("execute:01-02");
  CHECK(d.is_running("execute:01-02"));
}

TEST_CASE("A request reopens a blocked task with fresh attempts", "[sched][requested]") {
  Config c;
  c.slots = 2;
  Driver d(workload(1, {plan("01-01", {}, {}, 5), plan("01-02", {}, {}, 50)}), c);
  d.begin();
  d.fail("execute:01-01", FailureClass::crashed);
  d.fail("execute:01-01", FailureClass::crashed);
  REQUIRE(d.state("execute:01-01") == "blocked");
  REQUIRE(d.is_running("execute:01-02")); // the run goes on: the request can still be made
  auto out = d.send(make_event(EventType::requested, "execute:01-01"));
  REQUIRE(out.size() == 1);
  CHECK(out[0].type == ActionType::start);
  CHECK(out[0].task == "execute:01-01");
  CHECK(out[0].attempt == 1);
  CHECK(d.s.find_task("execute:01-01")->reason.empty());
  d.run_all();
  CHECK(d.finished_with("complete"));
}

TEST_CASE("A request for a running or finished task is refused and changes nothing", "[sched][requested]") {
  Driver d(workload(1, {plan("01-01")}));
  d.begin();
  const auto before = boost::json::serialize(d.s.snapshot());
  auto out = d.send(make_event(EventType::requested, "execute:01-01"));
  REQUIRE(out.size() == 1);
  CHECK(out[0].type == ActionType::rejected);
  CHECK(out[0].reason.find("running") != std::string::npos);
  CHECK(boost::json::serialize(d.s.snapshot()) == before);
  out = d.send(make_event(EventType::requested, "execute:07-07"));
  REQUIRE(out.size() == 1);
  CHECK(out[0].type == ActionType::rejected);
}

TEST_CASE("A requested event survives the JSON event log and replays to the same state", "[sched][requested]") {
  Config c;
  c.slots = 1;
  Driver d(workload(1, {plan("01-01"), plan("01-02"), plan("01-03")}), c);
  d.begin();
  d.send(make_event(EventType::requested, "execute:01-03"));
  d.run_all();
  Driver replay(workload(1, {plan("01-01"), plan("01-02"), plan("01-03")}), c);
  for (const auto& e : d.events) {
    auto back = harness::sched::event_from_json(harness::sched::to_json(e));
    REQUIRE(back);
    replay.send(*back);
  }
  CHECK(boost::json::serialize(replay.s.snapshot()) == boost::json::serialize(d.s.snapshot()));
  CHECK(replay.start_index("execute:01-03") < replay.start_index("execute:01-02"));
}
