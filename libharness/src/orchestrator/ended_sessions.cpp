#include "harness/orchestrator/ended_sessions.hpp"

#include <fmt/format.h>

#include <map>
#include <set>

namespace harness::orchestrator {

std::string ended_sessions_note(const std::vector<std::string>& ended, const std::vector<store::MessageRecord>& messages,
                                const std::string& unrecorded_because) {
  if (ended.empty()) return {};
  const std::set<std::string> gone(ended.begin(), ended.end());
  std::map<std::string, std::string> last_report; // session -> task_completed or task_failed, the later one
  for (const auto& m : messages)
    if (gone.contains(m.session_id) && (m.type == "task_completed" || m.type == "task_failed")) last_report[m.session_id] = m.type;
  std::size_t done = 0, failed = 0;
  for (const auto& [sid, type] : last_report) ++(type == "task_completed" ? done : failed);
  const std::size_t silent = gone.size() - done - failed;
  std::string parts;
  auto part = [&](std::size_t n, std::string_view one, std::string_view many) {
    if (n == 0) return;
    const bool all = n == gone.size();
    parts += (parts.empty() ? "" : ", ") +
             (all ? fmt::format("{} {}", n == 1 ? "it" : n == 2 ? "both" : "all", n == 1 ? one : many)
                  : fmt::format("{} {}", n, n == 1 ? one : many));
  };
  part(done, "reported its task done", "reported their tasks done");
  part(failed, "reported failure", "reported failure");
  part(silent, "ended without a report", "ended without a report");
  const bool one = gone.size() == 1;
  // Watched but not recorded is no "while no orchestrator watched": that run said why at its end.
  const std::string how = unrecorded_because.empty()
                              ? std::string("while no orchestrator watched")
                              : fmt::format("unrecorded: the earlier run's store failed ({})", unrecorded_because);
  return fmt::format("{} session{} of an earlier run ended {}: {}; {} commits stand, and "
                     "this run checks what {} left (a task without its commit runs again)",
                     gone.size(), one ? "" : "s", how, parts, one ? "its" : "their", one ? "it" : "they");
}

} // namespace harness::orchestrator
