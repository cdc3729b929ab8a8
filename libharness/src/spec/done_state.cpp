#include "harness/spec/done_state.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <vector>

namespace harness::spec {
namespace {

std::string joined(const std::vector<std::string>& ids) {
  std::string out;
  for (std::size_t i = 0; i < ids.size(); ++i) out += (i == 0 ? "" : i + 1 == ids.size() ? " and " : ", ") + ids[i];
  return out;
}

/// Why a verification of `covered` (nullopt: unknown) does not hold for the plans `now`: plans
/// added or removed since, plans without a SUMMARY (a verification is of executed work), or
/// plans a run executed again after it was written (their SUMMARY is about other work).
std::string stale_reason(const std::optional<std::vector<std::string>>& covered, const std::vector<std::string>& now,
                         const std::map<std::string, PlanDone>& plans, const std::vector<std::string>& executed_since) {
  std::vector<std::string> added, removed, unexecuted, again;
  const std::set<std::string> was = covered ? std::set<std::string>(covered->begin(), covered->end()) : std::set<std::string>();
  const std::set<std::string> is(now.begin(), now.end());
  for (const auto& id : now) {
    if (covered && !was.contains(id)) added.push_back(id);
    else if (!plans.at(id).executed) unexecuted.push_back(id);
    else if (std::ranges::find(executed_since, id) != executed_since.end()) again.push_back(id);
  }
  for (const auto& id : was)
    if (!is.contains(id)) removed.push_back(id);
  std::vector<std::string> why;
  if (!added.empty()) why.push_back(fmt::format("{} added since", joined(added)));
  if (!removed.empty()) why.push_back(fmt::format("{} no longer planned", joined(removed)));
  if (!unexecuted.empty()) why.push_back(fmt::format("{} not executed (no SUMMARY)", joined(unexecuted)));
  if (!again.empty()) why.push_back(fmt::format("{} executed again since", joined(again)));
  std::string out;
  for (const auto& w : why) out += (out.empty() ? "" : "; ") + w;
  return out;
}

GateDone gate(const Verification& v, const std::vector<std::string>& now, const std::map<std::string, PlanDone>& plans) {
  GateDone g;
  g.exists = true;
  g.status = v.status;
  g.answer = v.answer;
  g.stale = stale_reason(v.plans, now, plans, v.executed_since);
  g.current = g.stale.empty();
  return g;
}

/// "phase 01.1 has no plans yet": the phases the ROADMAP (or a phase directory) names that no
/// PLAN is in. The run plans them, so work is left that no verification has seen.
std::string unplanned_reason(const Spec& spec, const std::map<PhaseNumber, std::vector<std::string>>& phase_plans) {
  std::set<PhaseNumber> named;
  for (const auto& d : spec.layout.phases) named.insert(d.number);
  if (spec.roadmap)
    for (const auto& p : spec.roadmap->phases) named.insert(p.number);
  std::vector<std::string> unplanned;
  for (auto n : named)
    if (auto it = phase_plans.find(n); it == phase_plans.end() || it->second.empty()) unplanned.push_back(to_string(n));
  if (unplanned.empty()) return {};
  return fmt::format("phase{} {} {} no plans yet", unplanned.size() == 1 ? "" : "s", joined(unplanned),
                     unplanned.size() == 1 ? "has" : "have");
}

} // namespace

DoneState read_done_state(const Spec& spec) {
  DoneState out;
  std::map<PhaseNumber, std::vector<std::string>> phase_plans;
  std::vector<std::string> all;
  for (const auto& p : spec.plans) {
    PlanDone d;
    if (auto s = spec.summaries.find(p.id); s != spec.summaries.end()) {
      d.failed = s->second.status == "failed";
      d.executed = !d.failed;
      d.verified = d.executed && s->second.verification == VerificationStatus::passed;
    }
    out.plans[p.id] = d;
    phase_plans[p.phase].push_back(p.id);
    all.push_back(p.id);
  }
  for (const auto& [n, ids] : phase_plans) out.phases[n] = {};
  for (const auto& [n, v] : spec.verifications) out.phases[n] = gate(v, phase_plans[n], out.plans);
  // Executed plans of a phase whose verification holds are verified by it (GSD's SUMMARYs have
  // no `verification` key of their own).
  for (const auto& [n, g] : out.phases)
    if (g.passed())
      for (const auto& id : phase_plans[n]) out.plans[id].verified = true;
  if (spec.final_verification) {
    out.final = gate(*spec.final_verification, all, out.plans);
    // A phase added to a finished spec, not planned yet, is work the final never covered: the
    // plans it lists may all be there, but the spec is not done (workload_from_spec plans it).
    if (auto why = unplanned_reason(spec, phase_plans); !why.empty()) {
      out.final.stale += (out.final.stale.empty() ? "" : "; ") + why;
      out.final.current = false;
    }
    // A phase verified again since (`verify --phase`, a later run) that no longer passes: the
    // final's verdict over it no longer holds, however complete its list of plans is.
    for (const auto& [n, g] : out.phases) {
      if (!g.current || !g.status || g.passed()) continue;
      out.final.stale += (out.final.stale.empty() ? "" : "; ") +
                         fmt::format("phase {}'s verification says {}", to_string(n), to_string(*g.status));
      out.final.current = false;
    }
  }
  return out;
}

} // namespace harness::spec
