#include "harness/store/worker_refusal.hpp"

#include "harness/store/store.hpp"
#include "harness/util/proc_stat.hpp"

#include <fmt/format.h>

#include <set>
#include <unistd.h>

namespace harness::store {

namespace {

const char* why_refused(PersonsPart part) {
  return part == PersonsPart::answer_checkpoint
             ? "a checkpoint asks a person, and a worker does not answer its own or another's; the worker asks with "
               "harness_worker_report and waits with harness_worker_await"
             : "starting and ending the run's sessions is a person's to do, and a worker does not end another or "
               "reorder the queue; a worker that cannot go on reports task_failed";
}

} // namespace

std::optional<std::string> worker_ancestor_session(const std::filesystem::path& state_dir) {
  std::error_code ec;
  if (!std::filesystem::exists(state_dir / "harness.db", ec)) return std::nullopt; // no run ever: no workers
  // This process and its ancestors, each by pid and start time (a pid a dead worker had may be
  // a person's shell's now).
  std::set<std::pair<std::int64_t, std::uint64_t>> line;
  long long pid = static_cast<long long>(::getpid());
  for (int depth = 0; pid > 1 && depth < 64; ++depth) {
    const auto st = util::read_proc_stat(pid);
    if (!st) break;
    line.insert({pid, st->start_ticks});
    pid = st->ppid;
  }
  StoreOptions options;
  options.db_path = state_dir / "harness.db";
  auto store = Store::open(options);
  if (!store) return std::nullopt; // the store's own refusal comes later, from the command
  auto sessions = store->list_sessions();
  if (!sessions) return std::nullopt;
  for (const auto& s : *sessions)
    if (s.status == "running" && s.pid && s.pid_start_time && line.contains({*s.pid, *s.pid_start_time})) return s.id;
  return std::nullopt;
}

std::optional<std::string> refuse_inside_worker(const std::filesystem::path& state_dir,
                                                const std::filesystem::path& worker_state_dir, std::string_view session_id,
                                                PersonsPart part) {
  std::error_code ec;
  if (!session_id.empty() && !worker_state_dir.empty() && std::filesystem::equivalent(state_dir, worker_state_dir, ec))
    return fmt::format("this runs inside worker session {} of this project (HARNESS_SESSION_ID): {}", session_id,
                       why_refused(part));
  // Its environment cleared (`env -u HARNESS_SESSION_ID harness-cli respond ...`), a worker's
  // command is still its worker's descendant.
  if (auto session = worker_ancestor_session(state_dir))
    return fmt::format("this runs inside worker session {} of this project (started by its worker process): {}", *session,
                       why_refused(part));
  return std::nullopt;
}

} // namespace harness::store
