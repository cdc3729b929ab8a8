// Property tests: thousands of seeded random workloads driven with random outcomes (failures,
// rate limits, checkpoints, deviations, revisions, gaps, human answers). After every event the
// invariants hold; at the end every task is done, dropped or blocked with a reason; and replaying
// the event log into a fresh scheduler gives the identical snapshot.
#include "test_sched_support.hpp"

#include "harness/sched/json.hpp"
#include "harness/sched/random_workload.hpp"
#include "harness/util/glob.hpp"

#include <boost/json.hpp>
#include <catch2/catch.hpp>

#include <map>

using namespace sched_test;

namespace {

struct Rand {
  std::uint64_t s;
  std::uint64_t next() {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
  }
  bool chance(int percent) { return static_cast<int>(next() % 100) < percent; }
  std::size_t below(std::size_t n) { return static_cast<std::size_t>(next() % n); }
};

bool writes_overlap(const WorkPlan& a, const WorkPlan& b) {
  for (const auto& x : a.files_modified)
    for (const auto& y : b.files_modified)
      if (harness::util::globs_overlap(x, y)) return true;
  return false;
}

/// Checks the invariants that must hold after every event; returns a description of the first
/// violation or an empty string.
std::string violation(const Scheduler& s, const std::vector<Action>& out) {
  const auto& tasks = s.tasks();
  int holding = 0;
  std::vector<const Task*> writers;
  for (const auto& t : tasks) {
    if (t.slot >= 0) ++holding;
    if (t.kind == TaskKind::execute && (t.state == TaskState::running || t.state == TaskState::waiting)) writers.push_back(&t);
  }
  if (holding > s.config().slots) return "more tasks hold slots than there are slots";
  for (std::size_t i = 0; i < writers.size(); ++i)
    for (std::size_t j = i + 1; j < writers.size(); ++j)
      if (writes_overlap(s.plans()[static_cast<std::size_t>(writers[i]->plan)], s.plans()[static_cast<std::size_t>(writers[j]->plan)]))
        return "write/write conflict between " + writers[i]->id + " and " + writers[j]->id;
  auto done = [&](std::string_view id) {
    const auto* t = s.find_task(id);
    return !t || t->state == TaskState::done || t->state == TaskState::dropped;
  };
  for (const auto& a : out) {
    if (a.type != ActionType::start) continue;
    const Task& t = *s.find_task(a.task);
    if (t.kind == TaskKind::execute) {
      const auto& p = s.plans()[static_cast<std::size_t>(t.plan)];
      for (const auto& d : p.depends_on)
        if (!done("verify-plan:" + d)) return a.task + " started before verify-plan:" + d;
      if (s.config().gate_lookahead && t.phase - *s.config().gate_lookahead > s.current_phase())
        return a.task + " started past the phase gate";
    }
    if (t.kind == TaskKind::verify_plan && !done("execute:" + t.subject)) return a.task + " before its execute";
    if (t.kind == TaskKind::verify_phase)
      for (const auto& x : tasks)
        if (x.kind == TaskKind::verify_plan && x.phase == t.phase && !done(x.id)) return a.task + " before " + x.id;
    if (t.kind == TaskKind::verify_final)
      for (const auto& x : tasks)
        if (x.kind == TaskKind::verify_phase && !done(x.id)) return "final before " + x.id;
  }
  return {};
}

/// A random outcome for a running task.
Event outcome(const Scheduler& s, const Task& t, Rand& r, const RandomWorkload& rw) {
  if (r.chance(4)) {
    auto e = make_event(EventType::failed, t.id);
    const FailureClass classes[] = {FailureClass::crashed, FailureClass::timed_out, FailureClass::rate_limited,
                                    FailureClass::verification_failed};
    e.failure = classes[r.below(4)];
    return e;
  }
  if (r.chance(3)) {
    auto e = make_event(EventType::checkpoint, t.id);
    e.worker_alive = r.chance(50);
    return e;
  }
  auto e = make_event(EventType::succeeded, t.id);
  if (t.kind == TaskKind::execute) e.has_deviations = r.chance(10);
  if (t.kind == TaskKind::check_plans && r.chance(20)) e.verdict = Verdict::revise;
  if (t.kind == TaskKind::verify_phase) {
    if (r.chance(10)) e.verdict = Verdict::gaps_found;
    else if (r.chance(5)) e.verdict = Verdict::human_needed;
  }
  if (t.kind == TaskKind::plan)
    if (auto it = rw.unplanned.find(*harness::spec::parse_phase_number(t.subject)); it != rw.unplanned.end())
      e.plans = it->second;
  if (t.kind == TaskKind::plan_gaps && r.chance(70)) {
    WorkPlan g;
    g.phase = *harness::spec::parse_phase_number(t.subject);
    g.id = t.subject + "-9" + std::to_string(s.tasks().size());
    g.files_modified = {"src/gap/" + g.id + ".cpp"};
    e.plans = {g};
  }
  return e;
}

} // namespace

TEST_CASE("Random workloads with random outcomes keep every scheduling invariant and replay exactly", "[sched][property]") {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  const int runs = 400; // sanitizers slow every step ~4x; the plain build covers 1500 workloads
#else
  const int runs = 1500;
#endif
  // How often each rule fired over all runs: the property is only as good as what it exercised.
  std::map<std::string, int> fired;
  for (int seed = 1; seed <= runs; ++seed) {
    RandomWorkloadOptions o;
    o.plans = 5 + seed % 40;
    o.plans_per_phase = 3 + seed % 5;
    o.file_pool = o.plans; // plenty of write overlaps
    o.unplanned_share = 0.3;
    const auto rw = random_workload(static_cast<std::uint64_t>(seed), o);
    Config c;
    c.slots = 1 + seed % 5;
    if (seed % 7 == 0) c.gate_lookahead.reset();
    if (seed % 7 == 1) c.gate_lookahead = 0;
    if (seed % 11 == 0) c.caps[TaskKind::execute] = 1;
    if (seed % 13 == 0) c.policy = Policy::waves;
    Driver d(rw.workload, c);
    Rand r{static_cast<std::uint64_t>(seed) * 7919 + 17};
    auto out = d.begin();
    INFO("seed " << seed);
    REQUIRE(violation(d.s, out).empty());
    int steps = 0;
    while (!d.s.finished() && steps++ < 20000) {
      std::vector<const Task*> open;
      for (const auto& t : d.s.tasks())
        if (t.state == TaskState::running || t.state == TaskState::waiting || t.state == TaskState::deferred ||
            t.state == TaskState::human)
          open.push_back(&t);
      if (open.empty()) FAIL("not finished, yet nothing is open"); // something must still be open
      const Task& t = *open[r.below(open.size())];
      Event e;
      if (t.state == TaskState::running) e = outcome(d.s, t, r, rw);
      else if (t.state == TaskState::deferred) e = make_event(EventType::retry_due, t.id);
      else {
        e = make_event(EventType::answered, t.id);
        e.answer = r.chance(10) ? Answer::refused : Answer::approved;
      }
      out = d.send(e);
      // Plain checks, then one failing assertion with the context: Catch assertions per step
      // would dominate the run time under ASan.
      auto v = violation(d.s, out);
      if (v.empty() && std::ranges::any_of(out, [](const Action& a) { return a.type == ActionType::rejected; }))
        v = "a generated event was rejected";
      if (!v.empty()) FAIL(v << " after " << boost::json::serialize(to_json(e)));
    }
    REQUIRE(d.s.finished());
    for (const auto& a : d.log) {
      if (a.type == ActionType::start) ++fired[std::string(to_string(a.kind))];
      if (a.continuation) ++fired["continuation"];
      ++fired[std::string(to_string(a.type))];
    }
    for (const auto& t : d.s.tasks()) {
      const bool ended = t.state == TaskState::done || t.state == TaskState::dropped ||
                         (t.state == TaskState::blocked && !t.reason.empty());
      if (!ended) FAIL(t.id << " ended " << to_string(t.state) << " '" << t.reason << "'");
    }
    // Replay through the JSON codec.
    Scheduler replay(*workload_from_json(to_json(rw.workload)), *config_from_json(to_json(c)));
    std::vector<Action> replayed;
    for (const auto& e : d.events) {
      auto parsed = event_from_json(boost::json::parse(boost::json::serialize(to_json(e))));
      if (!parsed) FAIL(parsed.error());
      auto a = replay.handle(*parsed);
      replayed.insert(replayed.end(), a.begin(), a.end());
    }
    REQUIRE(replayed == d.log);
    REQUIRE(boost::json::serialize(replay.snapshot()) == boost::json::serialize(d.s.snapshot()));
  }
  for (const char* rule : {"research", "plan", "check-plans", "reconcile", "execute", "verify-plan", "verify-phase",
                           "plan-gaps", "final", "continuation", "resume", "ask_human", "defer", "blocked"}) {
    INFO(rule);
    CHECK(fired[rule] > 0);
  }
}
