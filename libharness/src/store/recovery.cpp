// Recovery after a restart: dead sessions fail, pending checkpoints resurface, events replay.
#include "harness/store/recovery.hpp"

#include "harness/protocol/message.hpp"
#include "harness/util/proc_stat.hpp"


namespace harness::store {

std::optional<std::uint64_t> process_start_time(std::int64_t pid) {
  auto s = util::read_proc_stat(pid);
  if (!s) return std::nullopt;
  return s->start_ticks;
}

bool process_alive(std::int64_t pid, std::optional<std::uint64_t> start_time) {
  auto s = util::read_proc_stat(pid);
  if (!s || s->exited()) return false;  // a zombie has already exited
  return !start_time || *start_time == s->start_ticks;
}

std::expected<RecoveryReport, std::string> recover(Store& store) {
  RecoveryReport report;
  auto sessions = store.list_sessions();
  if (!sessions) return std::unexpected(sessions.error());
  for (const auto& s : *sessions) {
    if (s.status != "running") continue;
    // No recorded pid means the launch never completed: nothing can be running for it.
    if (s.pid && process_alive(*s.pid, s.pid_start_time)) {
      report.live_sessions.push_back(s.id);
      continue;
    }
    if (auto r = store.set_session_status(s.id, "failed"); !r) return std::unexpected(r.error());
    if (!s.task_id.empty()) {
      if (auto r = store.finish_attempt(s.task_id, s.attempt, "failed", "worker process gone"); !r)
        return std::unexpected(r.error());
    }
    if (auto r = store.expire_pending(s.id); !r) return std::unexpected(r.error());
    report.failed_sessions.push_back(s.id);
  }
  auto pending = store.pending_messages();
  if (!pending) return std::unexpected(pending.error());
  for (auto& m : *pending) {
    auto type = protocol::parse_message_type(m.type);
    if (type && protocol::expects_response(*type)) report.pending_checkpoints.push_back(std::move(m));
  }
  auto events = store.events_after(0);
  if (!events) return std::unexpected(events.error());
  report.events = std::move(*events);
  return report;
}

}  // namespace harness::store
