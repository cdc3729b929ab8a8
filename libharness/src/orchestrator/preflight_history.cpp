// The start check on the history a run reads: in a shallow clone (CI's default) the commits of
// plans executed earlier may lie beyond its boundary, and every verification would call them
// missing, so the run is refused before anything starts.
#include "harness/orchestrator/preflight.hpp"

#include "harness/spec/done_state.hpp"
#include "harness/worker/git_history.hpp"
#include "harness/worker/gsd_commits.hpp"
#include "harness/worker/trailers.hpp"

#include <fmt/format.h>

namespace harness::orchestrator {

std::vector<StartProblem> shallow_history_problems(const spec::Spec& spec, const StartFacts& facts) {
  if (!facts.shallow_plans_with_commits) return {};
  // Nothing left to do: the run verifies nothing, and says the spec is complete.
  if (spec::read_done_state(spec).final.passed()) return {};
  std::vector<std::string> unread;
  for (const auto& plan : spec.plans)
    if (spec.summaries.contains(plan.id) && !facts.shallow_plans_with_commits->contains(plan.id)) unread.push_back(plan.id);
  if (unread.empty()) return {};
  constexpr std::size_t shown = 5;
  std::string names;
  for (std::size_t i = 0; i < unread.size() && i < shown; ++i) names += (i ? ", " : "") + unread[i];
  if (unread.size() > shown) names += fmt::format(" and {} more", unread.size() - shown);
  return {{fmt::format("the clone is shallow and holds no commit of {} executed plan{} ({}): their commits lie beyond "
                       "its boundary, and the run's verifications (the final one at the latest) would find them "
                       "missing and fail plans that are fine",
                       unread.size(), unread.size() == 1 ? "" : "s", names),
           fmt::format("{}, then run again", worker::unshallow_fix)}};
}

std::set<std::string> plans_with_commits(const spec::Layout& layout) {
  const auto log = worker::run_git(layout.project_root, worker::trailer_log_args(false));
  std::set<std::string> out;
  if (log.exit_code != 0) return out;
  // In GSD's layout a plan GSD executed has only commits naming it in their subjects
  // (worker/gsd_commits.hpp), which verification counts as its work too.
  const bool gsd = layout.kind == spec::LayoutKind::legacy_gsd;
  for (const auto& c : worker::parse_trailer_log(log.out, false, gsd))
    if (!c.plan.empty() && layout.owns_spec_trailer(c.spec)) out.insert(c.plan);
    else if (gsd && c.plan.empty() && c.redo.empty())
      if (auto id = worker::plan_of_gsd_subject(c.subject); !id.empty()) out.insert(std::move(id));
  return out;
}

} // namespace harness::orchestrator
