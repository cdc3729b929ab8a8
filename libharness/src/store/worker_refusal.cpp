#include "harness/store/worker_refusal.hpp"

#include <fmt/format.h>

namespace harness::store {

std::optional<std::string> refuse_inside_worker(const std::filesystem::path& state_dir,
                                                const std::filesystem::path& worker_state_dir, std::string_view session_id,
                                                PersonsPart part) {
  if (session_id.empty() || worker_state_dir.empty()) return std::nullopt;
  std::error_code ec;
  if (!std::filesystem::equivalent(state_dir, worker_state_dir, ec)) return std::nullopt; // another project's, or gone
  const char* why = part == PersonsPart::answer_checkpoint
                        ? "a checkpoint asks a person, and a worker does not answer its own or another's; the worker "
                          "asks with harness_worker_report and waits with harness_worker_await"
                        : "starting and ending the run's sessions is a person's to do, and a worker does not end "
                          "another or reorder the queue; a worker that cannot go on reports task_failed";
  return fmt::format("this runs inside worker session {} of this project (HARNESS_SESSION_ID): {}", session_id, why);
}

} // namespace harness::store
