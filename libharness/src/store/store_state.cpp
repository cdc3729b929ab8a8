// The store's execution state, key/value state, tasks, attempts, scheduler events, maintenance.
#include "harness/store/store.hpp"

#include "rows.hpp"
#include "store_impl.hpp"

namespace harness::store {
using namespace detail;
using Mode = detail::Txn::Mode;
namespace {

std::string now() { return protocol::now_iso8601(); }

ExecutionState read_state(const Stmt& s) {
  ExecutionState e;
  e.project_path = s.text(0);
  e.highest_executed_phase = s.text(1);
  e.highest_verified_phase = s.text(2);
  e.pending_verify_phase = s.opt_text(3);
  e.highest_executing_phase = s.opt_text(4);
  e.highest_executing_plan = s.opt_text(5);
  e.updated_at = s.text(6);
  return e;
}

TaskRecord read_task(const Stmt& s) { return TaskRecord{s.text(0), s.text(1), s.text(2), s.text(3), s.text(4)}; }

AttemptRecord read_attempt(const Stmt& s) {
  return AttemptRecord{s.text(0), static_cast<int>(s.int64(1)), s.text(2), s.text(3), s.text(4), s.opt_text(5), s.opt_text(6)};
}

EventRecord read_event(const Stmt& s) { return EventRecord{s.int64(0), s.text(1), s.text(2), s.text(3)}; }

}  // namespace

std::expected<std::optional<ExecutionState>, std::string> Store::execution_state(const std::string& project_path) {
  return m_impl->transact(Mode::read, [&]() -> Result<std::optional<ExecutionState>> {
    auto s = m_impl->stmt("SELECT project_path, highest_executed_phase, highest_verified_phase, pending_verify_phase, "
                          "highest_executing_phase, highest_executing_plan, COALESCE(updated_at,'') "
                          "FROM execution_state WHERE project_path=?", project_path);
    if (!s) return std::unexpected(s.error());
    return first<ExecutionState>(**s, read_state, "read execution state");
  });
}

std::expected<void, std::string> Store::set_execution_state(const ExecutionState& e) {
  return m_impl->transact(Mode::write, [&]() -> Result<void> {
    auto s = m_impl->stmt("INSERT OR REPLACE INTO execution_state (project_path, highest_executed_phase, "
                          "highest_verified_phase, pending_verify_phase, highest_executing_phase, "
                          "highest_executing_plan, updated_at) VALUES (?,?,?,?,?,?,?)",
                          e.project_path, e.highest_executed_phase, e.highest_verified_phase, e.pending_verify_phase,
                          e.highest_executing_phase, e.highest_executing_plan, now());
    if (!s) return std::unexpected(s.error());
    return (*s)->run("write execution state");
  });
}

std::expected<void, std::string> Store::set_value(const std::string& key, const std::string& json_value) {
  return m_impl->transact(Mode::write, [&]() -> Result<void> {
    auto s = m_impl->stmt("INSERT OR REPLACE INTO kv_state (key, value, updated_at) VALUES (?,?,?)",
                          key, json_value, now());
    if (!s) return std::unexpected(s.error());
    return (*s)->run("set value " + key);
  });
}

std::expected<void, std::string> Store::erase_value(const std::string& key) {
  return m_impl->transact(Mode::write, [&]() -> Result<void> {
    auto s = m_impl->stmt("DELETE FROM kv_state WHERE key=?", key);
    if (!s) return std::unexpected(s.error());
    return (*s)->run("erase value " + key);
  });
}

std::expected<std::vector<std::pair<std::string, std::string>>, std::string> Store::values() {
  using Pair = std::pair<std::string, std::string>;
  return m_impl->transact(Mode::read, [&]() -> Result<std::vector<Pair>> {
    auto s = m_impl->stmt("SELECT key, value FROM kv_state ORDER BY key");
    if (!s) return std::unexpected(s.error());
    return collect<Pair>(**s, [](const Stmt& st) { return Pair{st.text(0), st.text(1)}; }, "read values");
  });
}

std::expected<void, std::string> Store::upsert_task(const TaskRecord& t) {
  return m_impl->transact(Mode::write, [&]() -> Result<void> {
    auto s = m_impl->stmt("INSERT OR REPLACE INTO tasks (id, kind, status, detail, updated_at) VALUES (?,?,?,?,?)",
                          t.id, t.kind, t.status, t.detail, now());
    if (!s) return std::unexpected(s.error());
    return (*s)->run("write task " + t.id);
  });
}

std::expected<std::optional<TaskRecord>, std::string> Store::task(const std::string& id) {
  return m_impl->transact(Mode::read, [&]() -> Result<std::optional<TaskRecord>> {
    auto s = m_impl->stmt("SELECT id, kind, status, detail, updated_at FROM tasks WHERE id=?", id);
    if (!s) return std::unexpected(s.error());
    return first<TaskRecord>(**s, read_task, "read task");
  });
}

std::expected<std::vector<TaskRecord>, std::string> Store::list_tasks() {
  return m_impl->transact(Mode::read, [&]() -> Result<std::vector<TaskRecord>> {
    auto s = m_impl->stmt("SELECT id, kind, status, detail, updated_at FROM tasks ORDER BY id");
    if (!s) return std::unexpected(s.error());
    return collect<TaskRecord>(**s, read_task, "list tasks");
  });
}

std::expected<void, std::string> Store::begin_attempt(const AttemptRecord& a) {
  return m_impl->transact(Mode::write, [&]() -> Result<void> {
    auto s = m_impl->stmt("INSERT INTO attempts (task_id, attempt, session_id, status, started_at, ended_at, error) "
                          "VALUES (?,?,?,?,?,?,?)",
                          a.task_id, a.attempt, a.session_id, a.status, a.started_at.empty() ? now() : a.started_at,
                          a.ended_at, a.error);
    if (!s) return std::unexpected(s.error());
    return (*s)->run("begin attempt " + a.task_id);
  });
}

std::expected<bool, std::string> Store::finish_attempt(const std::string& task_id, int attempt, const std::string& status,
                                                       const std::optional<std::string>& error) {
  return m_impl->transact(Mode::write, [&]() -> Result<bool> {
    auto s = m_impl->stmt("UPDATE attempts SET status=?3, ended_at=?4, error=?5 WHERE task_id=?1 AND attempt=?2",
                          task_id, attempt, status, now(), error);
    if (!s) return std::unexpected(s.error());
    return changed(m_impl->db, **s, "finish attempt " + task_id);
  });
}

std::expected<std::vector<AttemptRecord>, std::string> Store::attempts(const std::string& task_id) {
  return m_impl->transact(Mode::read, [&]() -> Result<std::vector<AttemptRecord>> {
    auto s = m_impl->stmt("SELECT task_id, attempt, session_id, status, started_at, ended_at, error FROM attempts "
                          "WHERE task_id=? ORDER BY attempt", task_id);
    if (!s) return std::unexpected(s.error());
    return collect<AttemptRecord>(**s, read_attempt, "list attempts");
  });
}

std::expected<std::int64_t, std::string> Store::append_event(const std::string& kind, const std::string& body) {
  return m_impl->transact(Mode::write, [&]() -> Result<std::int64_t> {
    auto s = m_impl->stmt("INSERT INTO events (created_at, kind, body) VALUES (?,?,?)", now(), kind, body);
    if (!s) return std::unexpected(s.error());
    if (auto r = (*s)->run("append event"); !r) return std::unexpected(r.error());
    return static_cast<std::int64_t>(sqlite3_last_insert_rowid(m_impl->db.get()));
  });
}

std::expected<std::vector<EventRecord>, std::string> Store::events_after(std::int64_t after_seq) {
  return m_impl->transact(Mode::read, [&]() -> Result<std::vector<EventRecord>> {
    auto s = m_impl->stmt("SELECT seq, created_at, kind, body FROM events WHERE seq > ? ORDER BY seq", after_seq);
    if (!s) return std::unexpected(s.error());
    return collect<EventRecord>(**s, read_event, "read events");
  });
}

std::expected<std::string, std::string> Store::integrity_check() {
  return m_impl->transact(Mode::read, [&]() -> Result<std::string> {
    auto s = m_impl->stmt("PRAGMA integrity_check");
    if (!s) return std::unexpected(s.error());
    auto lines = collect<std::string>(**s, [](const Stmt& st) { return st.text(0); }, "integrity check");
    if (!lines) return std::unexpected(lines.error());
    std::string out;
    for (const auto& l : *lines) out += (out.empty() ? "" : "\n") + l;
    return out;
  });
}

std::expected<std::int64_t, std::string> Store::data_version() {
  std::lock_guard lock(m_impl->mutex);
  auto s = m_impl->stmt("PRAGMA data_version");
  if (!s) return std::unexpected(s.error().message);
  auto row = (*s)->step("data_version");
  if (!row) return std::unexpected(row.error().message);
  const auto v = (*s)->int64(0);
  (*s)->reset();
  return v;
}

}  // namespace harness::store

namespace harness::store {
namespace {

RequestRecord read_request(const detail::Stmt& s) {
  return RequestRecord{s.int64(0), s.text(1), s.text(2), s.text(3), s.text(4), s.text(5), s.opt_text(6), s.text(7)};
}


}  // namespace

std::expected<RequestRecord, std::string> Store::add_request(const std::string& kind, const std::string& target,
                                                             const std::string& body) {
  return m_impl->transact(Mode::write, [&]() -> Result<RequestRecord> {
    RequestRecord r{0, protocol::new_message_id(), kind, target, body, "pending", std::nullopt, protocol::now_iso8601()};
    auto s = m_impl->stmt("INSERT INTO requests (id, kind, target, body, status, created_at) VALUES (?,?,?,?,?,?)",
                          r.id, r.kind, r.target, r.body, r.status, r.created_at);
    if (!s) return std::unexpected(s.error());
    if (auto done = (*s)->run("add request " + kind); !done) return std::unexpected(done.error());
    r.seq = sqlite3_last_insert_rowid(m_impl->db.get());
    return r;
  });
}

std::expected<std::vector<RequestRecord>, std::string> Store::pending_requests(std::int64_t after_seq) {
  return m_impl->transact(Mode::read, [&]() -> Result<std::vector<RequestRecord>> {
    auto s = m_impl->stmt("SELECT seq, id, kind, target, body, status, result, created_at FROM requests "
                          "WHERE status='pending' AND seq>? ORDER BY seq", after_seq);
    if (!s) return std::unexpected(s.error());
    return collect<RequestRecord>(**s, read_request, "read pending requests");
  });
}

namespace {
// One UPDATE of a request's status, guarded by the statuses it may leave; true when a row changed.
std::expected<bool, std::string> move_request(Store::Impl& impl, const char* sql, const std::string& id,
                                              const std::string& status, const std::string& result_json) {
  return impl.transact(Mode::write, [&]() -> Result<bool> {
    auto s = impl.stmt(sql, id, status, result_json, protocol::now_iso8601());
    if (!s) return std::unexpected(s.error());
    return changed(impl.db, **s, "update request " + id);
  });
}
} // namespace

std::expected<bool, std::string> Store::claim_request(const std::string& id) {
  return m_impl->transact(Mode::write, [&]() -> Result<bool> {
    auto s = m_impl->stmt("UPDATE requests SET status='handling' WHERE id=? AND status='pending'", id);
    if (!s) return std::unexpected(s.error());
    return changed(m_impl->db, **s, "claim request " + id);
  });
}

std::expected<bool, std::string> Store::finish_request(const std::string& id, const std::string& status,
                                                       const std::string& result_json) {
  return move_request(*m_impl,
                      "UPDATE requests SET status=?2, result=?3, handled_at=?4 WHERE id=?1 AND status IN ('pending','handling')",
                      id, status, result_json);
}

std::expected<int, std::string> Store::refuse_requests_before(const std::string& before, const std::string& result_json) {
  return m_impl->transact(Mode::write, [&]() -> Result<int> {
    auto s = m_impl->stmt("UPDATE requests SET status='refused', result=?2, handled_at=?3 "
                          "WHERE status IN ('pending','handling') AND created_at < ?1",
                          before, result_json, protocol::now_iso8601());
    if (!s) return std::unexpected(s.error());
    return changes(m_impl->db, **s, "refuse stale requests");
  });
}

std::expected<bool, std::string> Store::withdraw_request(const std::string& id, const std::string& result_json) {
  return move_request(*m_impl, "UPDATE requests SET status=?2, result=?3, handled_at=?4 WHERE id=?1 AND status='pending'",
                      id, "refused", result_json);
}

std::expected<std::optional<RequestRecord>, std::string> Store::request(const std::string& id) {
  return m_impl->transact(Mode::read, [&]() -> Result<std::optional<RequestRecord>> {
    auto s = m_impl->stmt("SELECT seq, id, kind, target, body, status, result, created_at FROM requests WHERE id=?",
                          id);
    if (!s) return std::unexpected(s.error());
    return first<RequestRecord>(**s, read_request, "read request");
  });
}

}  // namespace harness::store
