#include "harness/graph/progress.hpp"

#include "harness/spec/done_state.hpp"
#include "harness/util/text.hpp"
#include "harness/util/json_text.hpp"

#include <boost/json.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <ranges>

namespace harness::graph {
namespace {

using spec::PhaseNumber;
using spec::VerificationStatus;

/// A plan's line under "Verifications to run" while no run has recorded its checks.
std::string checks_not_run(const std::string& id) { return fmt::format("plan {}: executed, its checks not run", id); }

/// ... and when the last run gave the plan up (its checks failed each attempt): they did run.
std::string checks_failed(const std::string& id) {
  return fmt::format("plan {}: executed, but the last run gave it up (Blockers say why): fix it, then orchestrate again", id);
}

/// ... and while its verification checkpoint waits for a person.
std::string waits_for_answer(const std::string& id) {
  return fmt::format("plan {}: its checks passed; it waits for a person's answer (harness-cli respond --list)", id);
}

/// ... and when no run has its checkpoint open (killed before it asked, say): the next run asks.
std::string needs_approval(const std::string& id) {
  return fmt::format("plan {}: its checks passed; it needs a person's approval, which the next orchestrate asks for", id);
}

/// The line of a plan whose SUMMARY says its verification needs a person: waiting, or refused
/// (the next run asks again; `redo` runs it again). mark_awaiting_answer says when a checkpoint
/// of it is open.
std::string person_line(const std::string& id, const std::optional<spec::HumanAnswer>& a) {
  if (!a || a->approved) return needs_approval(id);
  return fmt::format("plan {}: its checks passed; refused by {}: the next orchestrate asks again (or harness-cli redo)", id,
                     spec::answered_by(*a));
}

/// Whether a "Verifications to run" line is a person's part (the three lines above say so).
bool asks_a_person(const std::string& line) {
  return line.find(" a person's ") != std::string::npos || line.find("; refused by ") != std::string::npos;
}

PlanState plan_state(const spec::Spec& spec, const spec::DoneState& done, const spec::Plan& plan) {
  const auto& d = done.plans.at(plan.id);
  auto s = spec.summaries.find(plan.id);
  if (s == spec.summaries.end()) return PlanState::planned;
  if (d.failed) return PlanState::failed;
  if (d.verified) return PlanState::verified;
  if (s->second.verification == VerificationStatus::gaps_found) return PlanState::gaps_found;
  if (s->second.verification == VerificationStatus::human_needed) return PlanState::human_needed;
  return PlanState::executed;
}

/// "human_needed; refused by alice (harness-cli respond) at 2026-...: too dark" for a blocker.
std::string gate_verdict(const spec::GateDone& g) {
  std::string out(spec::to_string(*g.status));
  if (g.answer && !g.answer->approved)
    out += "; refused by " + spec::answered_by(*g.answer);
  return out;
}

/// A verification that did not find gaps or ask a person, and is not done: it is still to run.
/// `ready`: what it verifies is all verified (else it waits, and only a stale file is named).
void add_due(std::vector<std::string>& due, const std::string& what, const spec::GateDone& g, bool ready) {
  if (g.passed() || (g.current && g.status)) return;
  if (!g.stale.empty()) due.push_back(fmt::format("{}: again, its report no longer holds: {}", what, g.stale));
  else if (ready) due.push_back(fmt::format("{}: every plan is verified; this verification has not run", what));
}

/// The earlier phases of `phases` that phase `n`'s ROADMAP entry depends on, each once: what the
/// scheduler counts (sched::Scheduler ignores the phase itself, later and unknown ones).
std::vector<PhaseNumber> roadmap_depends(const spec::Spec& spec, PhaseNumber n, const std::map<PhaseNumber, PhaseProgress>& phases) {
  std::vector<PhaseNumber> out;
  if (!spec.roadmap) return out;
  for (const auto& rp : spec.roadmap->phases)
    if (rp.number == n) {
      out.clear();
      for (auto d : rp.depends_on)
        if (d < n && phases.contains(d) && std::ranges::find(out, d) == out.end()) out.push_back(d);
    }
  return out;
}

/// Holds the planned plans of each phase that depends on a phase not done yet (no plans, a plan
/// not verified, or its plans in `unchecked`): not ready, and `waits_for` says which phases.
void hold_by_roadmap(Progress& p, const std::vector<PhaseNumber>& unchecked) {
  std::map<PhaseNumber, std::pair<std::string, std::string>> waits; // what, whose order
  for (auto& ph : p.phases) {
    std::string open;
    int count = 0, inserted = 0;
    ph.verified_before.clear();
    for (auto d : ph.depends_on) {
      auto it = std::ranges::find(p.phases, d, &PhaseProgress::number);
      const bool done = it != p.phases.end() && it->plans > 0 && it->verified == it->plans &&
                        std::ranges::find(unchecked, d) == unchecked.end();
      if (done) continue;
      open += (count++ ? ", " : "") + to_string(d);
      inserted += std::ranges::find(ph.inserted_before, d) != ph.inserted_before.end();
      if (ph.state == "verified") ph.verified_before.push_back(d);
    }
    const std::string why = inserted == 0       ? "ROADMAP Depends on"
                            : inserted == count ? "inserted before its phase"
                                                : "ROADMAP Depends on, and inserted before its phase";
    if (count == 1) waits[ph.number] = {fmt::format("phase {}'s plans", open), why};
    else if (count > 1) waits[ph.number] = {fmt::format("the plans of phases {}", open), why};
  }
  if (waits.empty()) return;
  for (auto& pl : p.plans) {
    auto it = waits.find(pl.phase);
    if (pl.state != PlanState::planned || it == waits.end()) continue;
    pl.waits_for = it->second.first;
    pl.waits_why = it->second.second;
    pl.ready = false;
    std::erase(p.ready, pl.id);
  }
}

std::string phase_name(const spec::Spec& spec, PhaseNumber n, const std::string& slug) {
  if (spec.roadmap)
    for (const auto& p : spec.roadmap->phases)
      if (p.number == n) return p.name;
  auto dash = slug.find('-');
  return dash == std::string::npos ? slug : slug.substr(dash + 1);
}

} // namespace

std::string_view to_string(PlanState s) {
  switch (s) {
  case PlanState::planned: return "planned";
  case PlanState::executed: return "executed";
  case PlanState::failed: return "failed";
  case PlanState::verified: return "verified";
  case PlanState::gaps_found: return "gaps_found";
  case PlanState::human_needed: return "human_needed";
  }
  return "planned";
}

Progress compute_progress(const spec::Spec& spec, const PlanGraph& graph, std::optional<int> lookahead) {
  Progress out;
  out.spec_name = spec.layout.spec_name;
  std::map<PhaseNumber, PhaseProgress> phases;
  for (const auto& dir : spec.layout.phases) phases[dir.number] = {dir.number, phase_name(spec, dir.number, dir.slug), "planned"};
  if (spec.roadmap)
    for (const auto& rp : spec.roadmap->phases)
      if (!phases.count(rp.number)) phases[rp.number] = {rp.number, rp.name, "not planned"};

  const auto done = spec::read_done_state(spec);
  std::map<std::string, PlanState> state_of;
  for (const auto& plan : spec.plans) {
    PlanProgress pp{plan.id, plan.title, plan_state(spec, done, plan), false};
    pp.phase = plan.phase;
    state_of[plan.id] = pp.state;
    auto& ph = phases[plan.phase];
    ++ph.plans;
    ph.executed += pp.state != PlanState::planned && pp.state != PlanState::failed;
    ph.verified += pp.state == PlanState::verified;
    out.plans.push_back(std::move(pp));
  }
  for (auto& [n, ph] : phases) {
    ph.depends_on = roadmap_depends(spec, n, phases);
    if (spec.roadmap)
      for (const auto& rp : spec.roadmap->phases)
        if (rp.number == n) ph.inserted_before = rp.inserted_before;
  }
  // A phase is verified by its own verification only (every plan verified is not enough: the
  // phase as integrated is checked again), and only by one that covers the plans there are now.
  for (auto& [n, ph] : phases) {
    const auto g = done.phases.contains(n) ? done.phases.at(n) : spec::GateDone{};
    if (g.passed()) ph.state = "verified";
    else if (g.current && g.status) ph.state = std::string(spec::to_string(*g.status));
    else if (ph.plans > 0 && ph.executed == ph.plans) ph.state = "executed";
    else if (ph.executed > 0) ph.state = "executing";
    if (ph.state == "gaps_found" || ph.state == "human_needed")
      out.blockers.push_back(fmt::format("phase {} verification: {}", to_string(n), gate_verdict(g)));
    if (ph.plans > 0) add_due(out.verifications_due, "phase " + to_string(n), g, ph.verified == ph.plans);
    out.phases.push_back(ph);
  }
  auto phase_verified = [&](PhaseNumber n) { return phases.count(n) && phases.at(n).state == "verified"; };
  for (auto& pp : out.plans) {
    const auto* plan = spec.find_plan(pp.id);
    out.plans_total++;
    out.plans_executed += pp.state != PlanState::planned && pp.state != PlanState::failed;
    out.plans_verified += pp.state == PlanState::verified;
    if (pp.state == PlanState::failed) out.blockers.push_back(fmt::format("plan {} failed (see its SUMMARY)", pp.id));
    // Executed (by hand, /harness:execute-plan, or a run that stopped before checking it): its
    // dependents wait on its checks, which only orchestrate records. Said, or "Ready now: nothing,
    // Blockers: none" explains nothing.
    if (pp.state == PlanState::executed)
      out.verifications_due.push_back(checks_not_run(pp.id));
    if (pp.state == PlanState::human_needed) out.verifications_due.push_back(person_line(pp.id, spec.summaries.at(pp.id).answer));
    if (pp.state != PlanState::planned || graph.index_of(pp.id) < 0) continue;
    bool deps_ok = true;
    for (const auto& d : plan->depends_on) {
      auto it = state_of.find(d);
      if (it == state_of.end() || it->second != PlanState::verified) deps_ok = false;
      if (it != state_of.end() && it->second == PlanState::failed)
        out.blockers.push_back(fmt::format("plan {} waits on failed plan {}", pp.id, d));
    }
    bool gate_ok = true;
    for (const auto& [n, ph] : phases)
      if (lookahead && n.major < plan->phase.major - *lookahead && !phase_verified(n)) gate_ok = false;
    pp.ready = deps_ok && gate_ok;
    if (pp.ready) out.ready.push_back(pp.id);
  }
  hold_by_roadmap(out, {});
  // What the last orchestrate run gave up on lives in STATUS.md, not in the plan files.
  // Tasks blocked only because something they wait on is blocked are counted, not listed: the
  // list names the causes.
  if (spec.status) {
    // A task the last run gave up on that is done since (a manual `verify`, a later run of
    // another kind) blocks nothing any more; nor does a plan's task whose PLAN file is gone (the
    // plan was removed, during that run or since).
    auto done_since = [&](const std::string& task) {
      const auto colon = task.find(':');
      const std::string subject = colon == std::string::npos ? std::string() : task.substr(colon + 1);
      if (task == "final") return done.final.passed();
      if (task.starts_with("verify-phase:") || task.starts_with("research:") || task.starts_with("plan:") ||
          task.starts_with("check-plans:") || task.starts_with("plan-gaps:")) {
        const auto n = spec::parse_phase_number(subject);
        return n && done.phases.contains(*n) && done.phases.at(*n).passed();
      }
      auto it = state_of.find(subject);
      const bool plan_task = task.starts_with("execute:") || task.starts_with("verify-plan:") || task.starts_with("reconcile:");
      return it == state_of.end() ? plan_task : it->second == PlanState::verified;
    };
    std::vector<spec::BlockedTask> still;
    for (const auto& b : spec.status->blocked)
      if (!done_since(b.task)) still.push_back(b);
    auto only_waits = [](const spec::BlockedTask& b) {
      return b.reason.starts_with("waits on") || b.reason.starts_with("its execute is blocked");
    };
    // Only tasks that waited on others are left: their causes are gone, and so are they.
    if (std::ranges::all_of(still, only_waits)) still.clear();
    for (const auto& b : still) {
      if (only_waits(b)) {
        ++out.tasks_waiting_on_blockers;
        continue;
      }
      out.blockers.push_back(b.reason.empty() ? fmt::format("{} blocked by the last run", b.task)
                                              : fmt::format("{} blocked by the last run: {}", b.task, b.reason));
    }
    // A plan the last run gave up on is a blocker, not "ready now" (orchestrate still retries it).
    for (const auto& b : still) {
      const auto colon = b.task.find(':');
      const std::string id = colon == std::string::npos ? std::string() : b.task.substr(colon + 1);
      std::erase(out.ready, id);
      for (auto& pp : out.plans)
        if (pp.id == id) {
          pp.ready = false;
          if (pp.blocked.empty() && !only_waits(b)) pp.blocked = b.reason.empty() ? b.task : b.task + ": " + b.reason;
          // "its checks not run" beside a blocker saying they failed read as a contradiction
          // (review PP F4).
          if (!only_waits(b) && pp.state == PlanState::executed)
            std::ranges::replace(out.verifications_due, checks_not_run(id), checks_failed(id));
        }
    }
  }
  out.percent = out.plans_total ? 100.0 * out.plans_verified / out.plans_total : 0;
  const bool all_verified = out.plans_total > 0 && out.plans_verified == out.plans_total;
  out.complete = all_verified && done.final.passed();
  if (done.final.current && done.final.status && !done.final.passed())
    out.blockers.push_back("final verification: " + gate_verdict(done.final));
  // The final runs after every phase's own verification has passed, as the scheduler orders it:
  // it is left to run once those verifications are all that is left before it, not while a phase
  // has no plans yet or its verification found gaps or waits for a person (work comes first).
  const bool only_verifications_left = std::ranges::all_of(out.phases, [](const PhaseProgress& ph) {
    return ph.plans > 0 && ph.verified == ph.plans && ph.state != "gaps_found" && ph.state != "human_needed";
  });
  add_due(out.verifications_due, "final", done.final, all_verified && only_verifications_left);
  return out;
}

void mark_running(Progress& p, const std::vector<std::string>& task_ids) {
  for (const auto& task : task_ids) {
    const auto colon = task.find(':');
    if (colon == std::string::npos) continue;
    const std::string kind = task.substr(0, colon), id = task.substr(colon + 1);
    if (kind != "execute" && kind != "verify-plan" && kind != "reconcile") continue;
    for (auto& pl : p.plans)
      if (pl.id == id) pl.running = true, pl.ready = false;
    std::erase(p.ready, id);
  }
}

void mark_unchecked(Progress& p, const std::vector<spec::PhaseNumber>& phases) {
  for (auto& pl : p.plans) {
    if (pl.state != PlanState::planned || std::ranges::find(phases, pl.phase) == phases.end()) continue;
    pl.unchecked = true;
    pl.ready = false;
    std::erase(p.ready, pl.id);
  }
  hold_by_roadmap(p, phases);
}

void mark_awaiting_answer(Progress& p, const std::vector<std::string>& task_ids) {
  for (const auto& task : task_ids) {
    if (!task.starts_with("verify-plan:")) continue;
    const std::string id = task.substr(12);
    for (auto& due : p.verifications_due)
      if (due == checks_not_run(id) || due == needs_approval(id)) due = waits_for_answer(id); // what compute_progress listed
  }
}

std::string progress_text(const Progress& p) {
  std::string out = fmt::format("{}: {}/{} plans verified ({:.0f}%), {} executed{}\n\n", p.spec_name, p.plans_verified,
                                p.plans_total, p.percent, p.plans_executed, p.complete ? ", complete" : "");
  if (!p.running.empty()) out.insert(out.size() - 1, fmt::format("orchestrate running: {}\n", p.running));
  if (!p.running_tasks_unread.empty())
    out.insert(out.size() - 1, fmt::format("what it runs is not shown, and a plan shown ready may be running: {}\n",
                                           p.running_tasks_unread));
  if (!p.state_unreadable.empty())
    out.insert(out.size() - 1, fmt::format("what runs and what waits for an answer is not shown: {}\n", p.state_unreadable));
  if (!p.left_running.empty())
    out.insert(out.size() - 1, fmt::format("workers a killed run left running: {} (they go on and commit; the next "
                                           "orchestrate stops them)\n",
                                           fmt::join(p.left_running, ", ")));
  // Columns as wide as their widest cell: phase ids and plan ids vary in length (02, 02.1, 02.1-01).
  std::size_t phase_width = 2, name_width = 28, id_width = 8;
  for (const auto& ph : p.phases) {
    phase_width = std::max(phase_width, spec::to_string(ph.number).size());
    name_width = std::max(name_width, util::display_width(ph.name));
  }
  for (const auto& plan : p.plans) id_width = std::max(id_width, plan.id.size());
  for (const auto& ph : p.phases) {
    out += fmt::format("Phase {:<{}} {} {:<13} {}/{} executed, {}/{} verified{}\n", spec::to_string(ph.number), phase_width,
                       util::fit_columns(ph.name, name_width), ph.state, ph.executed, ph.plans, ph.verified, ph.plans,
                       ph.verified_before.empty() ? std::string()
                                                  : fmt::format("  (before phase {}, which it depends on: not run again)",
                                                                fmt::join(ph.verified_before | std::views::transform(
                                                                              [](PhaseNumber n) { return spec::to_string(n); }),
                                                                          ", ")));
    for (const auto& plan : p.plans) {
      if (plan.id.substr(0, plan.id.rfind('-')) != spec::to_string(ph.number)) continue;
      out += fmt::format("  {:<{}} {} {}{}\n", plan.id, id_width, util::fit_columns(plan.title, 32), to_string(plan.state),
                         plan.running            ? "  (running)"
                         : plan.unchecked        ? "  (waiting on its plan check)"
                         : plan.ready            ? "  (ready)"
                         : !plan.waits_for.empty() ? "  (waits for " + plan.waits_for + ", " + plan.waits_why + ")"
                                                 : "");
    }
  }
  std::string ready;
  for (const auto& r : p.ready) ready += (ready.empty() ? "" : ", ") + r;
  out += fmt::format("\nReady now: {}\n", ready.empty() ? "nothing" : ready);
  // Nothing ready, nothing due, nothing blocked, and a phase without plans: the next step is to
  // plan it, which "Ready now: nothing, Blockers: none" did not say (review PP F11).
  if (p.ready.empty() && p.verifications_due.empty() && p.blockers.empty() && p.running.empty())
    if (const auto unplanned = std::ranges::find_if(p.phases, [](const PhaseProgress& ph) { return ph.plans == 0; });
        unplanned != p.phases.end())
      out += fmt::format("Next: plan phase {} (/harness:plan-phase in Claude Code, or its PLAN files written by hand from "
                         ".claude/harness/templates/plan.md, which install-skills puts there); orchestrate with an agent "
                         "worker plans it itself\n",
                         spec::to_string(unplanned->number));
  if (!p.verifications_due.empty()) {
    // A plan waiting for a person's answer is not something orchestrate runs on its own.
    out += std::ranges::any_of(p.verifications_due, asks_a_person)
               ? "Verifications to run (orchestrate runs them; a person answers those that say so):\n"
               : "Verifications to run (orchestrate runs them):\n";
    for (const auto& v : p.verifications_due) out += "  - " + v + "\n";
  }
  out += "Blockers:";
  if (p.blockers.empty()) out += " none\n";
  else {
    out += "\n";
    for (const auto& b : p.blockers) out += "  - " + b + "\n";
    if (const auto more = waiting_on_blockers_line(p); !more.empty()) out += "  - " + more + "\n";
  }
  if (!p.waiting.empty()) {
    out += "Waiting for your answer:\n";
    for (const auto& w : p.waiting) out += "  - " + w + "\n";
  }
  return out;
}

namespace {

/// One decimal; a whole number as an integer, so 100 % reads `100`, not Boost.JSON's `1E2`.
boost::json::value percent_value(double percent) {
  const double r = std::round(percent * 10) / 10;
  if (r == std::floor(r)) return static_cast<std::int64_t>(r);
  return r;
}

} // namespace

std::string waiting_on_blockers_line(const Progress& p) {
  const int n = p.tasks_waiting_on_blockers;
  return n == 0 ? std::string() : fmt::format("{} more task{} on these", n, n == 1 ? " waits" : "s wait");
}

std::string progress_json(const Progress& p) {
  namespace json = boost::json;
  json::array phases, plans, ready, blockers, waiting, due;
  for (const auto& ph : p.phases) {
    json::array before;
    for (auto n : ph.verified_before) before.emplace_back(spec::to_string(n));
    phases.push_back(json::object{{"phase", spec::to_string(ph.number)}, {"name", ph.name}, {"state", ph.state},
                                  {"plans", ph.plans}, {"executed", ph.executed}, {"verified", ph.verified},
                                  {"verified_before", std::move(before)}});
  }
  for (const auto& pl : p.plans)
    plans.push_back(json::object{
        {"id", pl.id}, {"title", pl.title}, {"state", to_string(pl.state)}, {"ready", pl.ready}, {"running", pl.running},
        {"waiting_on_check", pl.unchecked},
        {"waits_for", pl.waits_for.empty() ? json::value(nullptr) : json::value(pl.waits_for)},
        {"blocked", pl.blocked.empty() ? json::value(nullptr) : json::value(pl.blocked)}});
  for (const auto& r : p.ready) ready.push_back(json::string(r));
  for (const auto& b : p.blockers) blockers.push_back(json::string(b));
  for (const auto& w : p.waiting) waiting.push_back(json::string(w));
  for (const auto& v : p.verifications_due) due.push_back(json::string(v));
  json::object o{{"spec", p.spec_name},         {"plans_total", p.plans_total}, {"plans_executed", p.plans_executed},
                 {"plans_verified", p.plans_verified}, {"percent", percent_value(p.percent)},  {"complete", p.complete},
                 {"phases", std::move(phases)}, {"plans", std::move(plans)},   {"ready", std::move(ready)},
                 {"blockers", std::move(blockers)}, {"tasks_waiting_on_blockers", p.tasks_waiting_on_blockers},
                 {"waiting", std::move(waiting)},
                 {"verifications_due", std::move(due)}};
  o["running"] = p.running.empty() ? json::value(nullptr) : json::value(p.running);
  json::array left;
  for (const auto& w : p.left_running) left.emplace_back(w);
  o["left_running"] = std::move(left);
  o["running_tasks_unread"] = p.running_tasks_unread.empty() ? json::value(nullptr) : json::value(p.running_tasks_unread);
  o["state_unreadable"] = p.state_unreadable.empty() ? json::value(nullptr) : json::value(p.state_unreadable);
  o["running_orchestrate"] = nullptr;
  if (const auto& r = p.running_orchestrate)
    o["running_orchestrate"] = json::object{{"pid", r->pid}, {"spec", r->spec}, {"started_at", r->started_at}};
  return util::json_text(o) + "\n";
}

} // namespace harness::graph
