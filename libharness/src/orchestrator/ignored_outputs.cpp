#include "harness/orchestrator/ignored_outputs.hpp"

#include <fmt/format.h>

namespace harness::orchestrator {

std::string ignored_outputs_note(const std::string& plan_id, const std::vector<std::string>& ignored,
                                 const std::string& rule, int uncommitted_tasks, int tasks) {
  if (ignored.empty() || uncommitted_tasks <= 0) return {};
  constexpr std::size_t shown = 5;
  std::string names;
  for (std::size_t i = 0; i < ignored.size() && i < shown; ++i)
    names += (i == 0 ? "" : i + 1 == ignored.size() ? " and " : ", ") + ignored[i];
  if (ignored.size() > shown) names += fmt::format(" and {} more", ignored.size() - shown);
  return fmt::format("{}: the files it changed, {}, are ignored by git ({}): none of them was committed, and {} of its {} "
                     "task{} {} no commit; if they are the plan's work, change that rule (git check-ignore -v {} names "
                     "it) or declare files git keeps",
                     plan_id, names, rule.empty() ? "a .gitignore, .git/info/exclude or core.excludesFile rule" : "rule " + rule,
                     uncommitted_tasks, tasks, tasks == 1 ? "" : "s", uncommitted_tasks == 1 ? "has" : "have", ignored.front());
}

} // namespace harness::orchestrator
