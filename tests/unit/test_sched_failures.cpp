#include "test_sched_support.hpp"

#include <catch2/catch.hpp>

using namespace sched_test;

TEST_CASE("A crashed task is retried once and then blocks only its dependents", "[sched]") {
  Driver d(workload(1, {plan("01-01"), plan("01-02", {"01-01"}), plan("01-03")}));
  d.begin();
  d.fail("execute:01-01", FailureClass::crashed);
  CHECK(d.is_running("execute:01-01"));
  CHECK(std::ranges::count_if(d.log, [](const Action& a) { return a.task == "execute:01-01" && a.attempt == 2; }) == 1);
  auto out = d.fail("execute:01-01", FailureClass::timed_out);
  CHECK(d.state("execute:01-01") == "blocked");
  CHECK(d.s.find_task("execute:01-01")->reason.find("timed_out") != std::string::npos);
  d.run_all();
  CHECK(d.state("verify-plan:01-03") == "done");
  CHECK(d.finished_with("blocked"));
  CHECK(d.state("execute:01-02") == "blocked");
  CHECK(d.s.find_task("execute:01-02")->reason.find("verify-plan:01-01") != std::string::npos);
}

TEST_CASE("A task blocked after its only attempt says 1 attempt", "[sched]") {
  Config c;
  c.max_attempts = 1;
  Driver d(workload(1, {plan("01-01")}), c);
  d.begin();
  d.fail("execute:01-01", FailureClass::crashed);
  CHECK(d.s.find_task("execute:01-01")->reason == "crashed (after 1 attempt)");
}

TEST_CASE("Rate-limited work is deferred and retried without spending an attempt", "[sched]") {
  Config c;
  c.max_attempts = 1;
  Driver d(workload(1, {plan("01-01")}), c);
  d.begin();
  auto out = d.fail("execute:01-01", FailureClass::rate_limited);
  REQUIRE(out.size() == 1);
  CHECK(out[0].type == ActionType::defer);
  CHECK(d.state("execute:01-01") == "deferred");
  CHECK_FALSE(d.s.finished());
  out = d.send(make_event(EventType::retry_due, "execute:01-01"));
  REQUIRE(out.size() == 1);
  CHECK(out[0].attempt == 1);
}

TEST_CASE("A refusal blocks at once", "[sched]") {
  Driver d(workload(1, {plan("01-01")}));
  d.begin();
  auto e = make_event(EventType::failed, "execute:01-01");
  e.failure = FailureClass::refused;
  e.detail = "ended by harness_end_session";
  d.send(e);
  CHECK(d.state("execute:01-01") == "blocked");
  CHECK(d.s.find_task("execute:01-01")->reason == "refused by a human: ended by harness_end_session");
  CHECK(d.finished_with("blocked"));
}

TEST_CASE("A failed plan verification executes the plan again", "[sched]") {
  Config c;
  c.slots = 1;
  Driver d(workload(1, {plan("01-01")}), c);
  d.begin();
  d.succeed("execute:01-01");
  d.fail("verify-plan:01-01", FailureClass::verification_failed);
  CHECK(d.is_running("execute:01-01"));
  d.succeed("execute:01-01");
  d.fail("verify-plan:01-01", FailureClass::verification_failed);
  CHECK(d.state("execute:01-01") == "blocked");
  CHECK(d.finished_with("blocked"));
}

TEST_CASE("A checkpoint whose worker died frees the slot and resumes as a continuation", "[sched]") {
  Config c;
  c.slots = 1;
  Driver d(workload(1, {plan("01-01", {}, {"a.txt"}), plan("01-02", {}, {"a.txt"}), plan("01-03")}), c);
  d.begin();
  const auto first = d.running().front();
  auto cp = make_event(EventType::checkpoint, first);
  cp.worker_alive = false;
  auto out = d.send(cp);
  CHECK(out.front().type == ActionType::ask_human);
  // The slot went to another plan; the one writing the same file waits for the checkpoint.
  REQUIRE(d.running().size() == 1);
  CHECK(d.running().front() != first);
  const std::string other = first == "execute:01-01" ? "execute:01-02" : "execute:01-01";
  CHECK_FALSE(d.is_running(other));
  d.send(make_event(EventType::answered, first));
  d.run_until_running(first);
  CHECK(std::ranges::any_of(d.log, [&](const Action& a) { return a.task == first && a.continuation; }));
}

TEST_CASE("A checkpoint with a live worker keeps its slot and gets a resume", "[sched]") {
  Config c;
  c.slots = 1;
  Driver d(workload(1, {plan("01-01"), plan("01-02")}), c);
  d.begin();
  const auto first = d.running().front();
  d.send(make_event(EventType::checkpoint, first));
  CHECK(d.s.busy_slots() == 1);
  auto out = d.send(make_event(EventType::answered, first));
  REQUIRE(out.size() == 1);
  CHECK(out[0].type == ActionType::resume);
}

TEST_CASE("Per-kind caps limit running tasks of that kind", "[sched]") {
  Config c;
  c.caps[TaskKind::execute] = 2;
  Driver d(workload(1, {plan("01-01"), plan("01-02"), plan("01-03")}), c);
  d.begin();
  CHECK(d.running().size() == 2);
}

TEST_CASE("Invalid events are rejected and change nothing", "[sched]") {
  Driver d(workload(1, {plan("01-01")}));
  d.begin();
  const auto before = boost::json::serialize(d.s.snapshot());
  auto out = d.succeed("execute:01-99");
  REQUIRE(out.size() == 1);
  CHECK(out[0].type == ActionType::rejected);
  out = d.succeed("verify-plan:01-01");
  CHECK(out[0].type == ActionType::rejected);
  CHECK(boost::json::serialize(d.s.snapshot()) == before);
}

TEST_CASE("Admin tasks run last and plans already verified are not run again", "[sched]") {
  auto w = workload(1, {plan("01-01"), plan("01-02")});
  w.plans[0].executed = w.plans[0].verified = true;
  Config c;
  c.slots = 1;
  Driver d(w, c);
  d.begin();
  d.send(make_event(EventType::admin_requested, "tests"));
  CHECK(d.is_running("execute:01-02"));
  d.run_all();
  CHECK(d.start_index("admin:tests") > d.start_index("execute:01-02"));
  CHECK(d.start_index("execute:01-01") == d.started().size());
}

TEST_CASE("The scheduler says when only people's answers can move the run on", "[sched]") {
  Config c;
  c.slots = 2;
  // 01-02 writes what 01-01 writes; 01-03 depends on 01-01; 01-04 is free.
  Driver d(workload(1, {plan("01-01", {}, {"a.txt"}), plan("01-02", {}, {"a.txt"}), plan("01-03", {"01-01"}),
                        plan("01-04")}),
           c);
  CHECK_FALSE(d.s.waits_only_for_humans()); // not begun
  d.begin();
  d.succeed("execute:01-01");
  // A plan's verification checkpoint (no worker left): 01-04 and 01-02 still have work.
  d.run_until_running("verify-plan:01-01");
  auto cp = make_event(EventType::checkpoint, "verify-plan:01-01");
  cp.worker_alive = false;
  d.send(cp);
  CHECK_FALSE(d.s.waits_only_for_humans());
  while (!d.running().empty()) d.succeed(d.running().front());
  // Everything else is done or waits on 01-01's verification: only the answer moves it on.
  CHECK(d.state("execute:01-03") == "pending");
  CHECK(d.s.waits_only_for_humans());
  CHECK_FALSE(d.s.finished());
  d.send(make_event(EventType::answered, "verify-plan:01-01"));
  CHECK_FALSE(d.s.waits_only_for_humans());
  d.run_all();
  CHECK(d.finished_with("complete"));
  CHECK_FALSE(d.s.waits_only_for_humans());
}

TEST_CASE("A worker waiting for its answer, or a retry to come, is not waiting only for people", "[sched]") {
  Config c;
  c.slots = 1;
  Driver d(workload(1, {plan("01-01")}), c);
  d.begin();
  d.send(make_event(EventType::checkpoint, "execute:01-01")); // worker_alive: it holds the slot
  CHECK_FALSE(d.s.waits_only_for_humans());
  d.send(make_event(EventType::answered, "execute:01-01"));
  d.fail("execute:01-01", FailureClass::rate_limited);
  CHECK(d.state("execute:01-01") == "deferred");
  CHECK_FALSE(d.s.waits_only_for_humans());
}

TEST_CASE("A worker's word that a retry cannot help blocks at once, with its reason", "[sched]") {
  Driver d(workload(1, {plan("01-01"), plan("01-02")}));
  d.begin();
  auto e = make_event(EventType::failed, "execute:01-01");
  e.failure = FailureClass::no_retry;
  e.detail = "the registry token is missing";
  d.send(e);
  CHECK(d.state("execute:01-01") == "blocked");
  CHECK(d.s.find_task("execute:01-01")->reason == "the registry token is missing (not retried: a retry cannot help)");
  CHECK(std::ranges::none_of(d.log, [](const Action& a) { return a.task == "execute:01-01" && a.attempt == 2; }));
  d.run_all();
  CHECK(d.state("verify-plan:01-02") == "done");
  CHECK(to_string(FailureClass::no_retry) == "no_retry");
  CHECK(parse_failure_class("no_retry") == FailureClass::no_retry);
}

TEST_CASE("A worker that asked and went on without the answer may finish its task", "[sched]") {
  Driver d(workload(1, {plan("01-01")}));
  d.begin();
  auto q = make_event(EventType::checkpoint, "execute:01-01");
  q.worker_alive = true;
  d.send(q);
  CHECK(d.state("execute:01-01") == "waiting");
  auto out = d.send(make_event(EventType::succeeded, "execute:01-01"));
  CHECK(std::ranges::none_of(out, [](const Action& a) { return a.type == ActionType::rejected; }));
  CHECK(d.state("execute:01-01") == "done");
  // Without a worker holding the slot (a verification checkpoint), nothing can finish it but an answer.
  Driver v(workload(1, {plan("01-01")}));
  v.begin();
  auto c = make_event(EventType::checkpoint, "execute:01-01");
  c.worker_alive = false;
  v.send(c);
  out = v.send(make_event(EventType::succeeded, "execute:01-01"));
  CHECK(std::ranges::any_of(out, [](const Action& a) { return a.type == ActionType::rejected; }));
}
