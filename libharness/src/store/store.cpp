// The SQLite store: open/migrate, sessions, worker messages, state, tasks, attempts, events.
#include "harness/store/store.hpp"

#include "harness/protocol/codec.hpp"
#include "harness/store/run_lock.hpp"
#include "harness/util/private_directory.hpp"
#include "rows.hpp"
#include "schema_internal.hpp"
#include "store_impl.hpp"

#include <boost/json/array.hpp>
#include <boost/json/serialize.hpp>
#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <initializer_list>
#include <pwd.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace harness::store {
namespace json = boost::json;
using namespace detail;
using Mode = detail::Txn::Mode;
namespace {

std::string now() { return protocol::now_iso8601(); }

constexpr const char* session_cols =
    "id, slot, status, working_dir, current_command, started_at, ended_at, pid, exit_code, task_id, attempt, token, "
    "adapter, pgid, pid_start_time, log_path, updated_at, spec, end_reason";

SessionRecord read_session(const Stmt& s) {
  SessionRecord r;
  r.id = s.text(0);
  r.slot = static_cast<int>(s.int64(1));
  r.status = s.text(2);
  r.working_dir = s.text(3);
  r.current_command = s.opt_text(4);
  r.started_at = s.opt_text(5);
  r.ended_at = s.opt_text(6);
  r.pid = s.opt_int64(7);
  if (auto e = s.opt_int64(8)) r.exit_code = static_cast<int>(*e);
  r.task_id = s.text(9);
  r.attempt = static_cast<int>(s.int64(10));
  r.token = s.text(11);
  r.adapter = s.text(12);
  r.pgid = s.opt_int64(13);
  if (auto t = s.opt_int64(14)) r.pid_start_time = static_cast<std::uint64_t>(*t);
  r.log_path = s.opt_text(15);
  r.updated_at = s.text(16);
  r.spec = s.text(17);
  r.end_reason = s.opt_text(18);
  return r;
}

void bind_session(Stmt& s, const SessionRecord& r) {
  s.bind_all(r.id, r.slot, r.status, r.working_dir, r.current_command, r.started_at, r.ended_at, r.pid, r.exit_code,
             r.task_id, r.attempt, r.token, r.adapter, r.pgid, r.pid_start_time, r.log_path,
             r.updated_at.empty() ? now() : r.updated_at, r.spec);
}

constexpr const char* message_cols =
    "seq, id, session_id, message_type, payload, status, created_at, responded_at, response";

MessageRecord read_message(const Stmt& s) {
  MessageRecord m;
  m.seq = s.int64(0);
  m.id = s.text(1);
  m.session_id = s.text(2);
  m.type = s.text(3);
  m.payload = s.text(4);
  m.status = s.text(5);
  m.created_at = s.text(6);
  m.responded_at = s.opt_text(7);
  m.response = s.opt_text(8);
  return m;
}

MessageRecord to_record(const protocol::Envelope& e) {
  MessageRecord m;
  m.id = e.id;
  m.session_id = e.session_id;
  m.type = std::string(protocol::to_string(e.type()));
  m.payload = boost::json::serialize(protocol::payload_to_json(e.payload));
  m.created_at = e.created_at;
  return m;
}

constexpr const char* sql_insert_message =
    "INSERT INTO worker_messages (id, session_id, message_type, payload, status, created_at) VALUES (?,?,?,?,?,?) "
    "ON CONFLICT(id) DO NOTHING";

Result<InsertOutcome> insert_one(Store::Impl& impl, const MessageRecord& m) {
  // Only a question waits for an answer: anything else is pending for nobody.
  const auto type = protocol::parse_message_type(m.type);
  const bool question = !type || protocol::expects_response(*type);
  const std::string status = m.status == message_pending && !question ? message_received : m.status;
  auto s = impl.stmt(sql_insert_message, m.id, m.session_id, m.type, m.payload, status, m.created_at);
  if (!s) return std::unexpected(s.error());
  auto added = changed(impl.db, **s, "insert message " + m.id);
  if (!added) return std::unexpected(added.error());
  return *added ? InsertOutcome::inserted : InsertOutcome::duplicate;
}

Result<void> configure(const detail::Db& db, const StoreOptions& o) {
  sqlite3_busy_timeout(db.get(), static_cast<int>(std::min<std::int64_t>(o.busy_timeout.count(), 60'000)));
  // journal_mode=WAL needs a brief exclusive lock the first time; retry while another process has it.
  const auto deadline = std::chrono::steady_clock::now() + o.busy_timeout;
  while (true) {
    auto r = db.exec("PRAGMA journal_mode=WAL", "enable WAL");
    if (r) break;
    if (!r.error().busy() || std::chrono::steady_clock::now() >= deadline) return r;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  const char* sync = o.synchronous == Synchronous::full ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL";
  return db.exec(sync, "set synchronous");
}

/// A store an older build wrote is upgraded only while no older build's orchestrate runs on it:
/// that build refuses a schema newer than it knows at its next open, and every report of its
/// later workers opens the store (review EE F1: a `status` of the new build made an older run's
/// workers' reports fail). A run records the schema its build writes beside its lock; one that
/// records none is older than that record. A moment is waited for a run that has just taken the
/// lock and not described itself yet. When no run holds the lock, runs are held off (returned)
/// until the upgrade is done, so that an older one cannot start on the store in the middle.
std::expected<std::optional<RunsHeldOff>, DbError> upgrade_allowed(const detail::Db& db, const StoreOptions& options) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(250);
  for (;;) {
    auto version = read_user_version(db);
    if (!version || *version == 0 || *version >= schema_version || options.upgrade_under_run)
      return std::nullopt; // new, current, or migrate() says; or a worker of the run itself
    auto held = hold_off_runs(options.db_path.parent_path());
    if (held) return std::optional<RunsHeldOff>(std::move(*held));
    const RunInfo& run = held.error();
    if (run.pid == static_cast<long>(::getpid()) || run.schema >= schema_version) return std::nullopt;
    const bool described = run.pid > 0 && !run.spec.empty();
    if (described || std::chrono::steady_clock::now() >= deadline)
      return std::unexpected(DbError{
          SQLITE_ERROR,
          fmt::format("{} has schema version {}, which this build would upgrade to {}, while an older harness "
                      "works on it ({}): that build refuses an upgraded store, and its running workers' reports "
                      "would fail. Use the harness that run belongs to until it has ended, then run this build again",
                      options.db_path.string(), *version, schema_version, describe_run(run))});
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

}  // namespace

std::filesystem::path default_db_path(const std::filesystem::path& project) {
  return project / ".orchestration" / "harness.db";
}

namespace {

/// Why this user cannot read one of `checked` (the state directory first), or empty: a missing
/// state directory is none to read, a missing file or directory below it is skipped.
std::string unreadable(const std::filesystem::path& state_dir, std::initializer_list<std::filesystem::path> checked) {
  auto owner = [](uid_t uid) {
    const passwd* pw = ::getpwuid(uid);
    return pw ? std::string(pw->pw_name) : fmt::format("uid {}", uid);
  };
  struct stat st {};
  for (const auto& f : checked) {
    std::error_code ec;
    const auto shown = std::filesystem::absolute(f, ec).lexically_normal().string();
    if (::stat(f.c_str(), &st) != 0) {
      if (errno != ENOENT) return fmt::format("cannot read {}: {}", shown, std::strerror(errno));
      // A link to nothing holds state that cannot be reached: not "nothing waits" (review QQ F8).
      if (f == state_dir) {
        const auto part = util::blocking_part(std::filesystem::absolute(state_dir, ec).lexically_normal());
        return part.empty() ? std::string() : part + ", and harness keeps its run state there";
      }
      continue;
    }
    if (f == state_dir && !S_ISDIR(st.st_mode))
      return fmt::format("{} is not a directory, and harness keeps its run state there: move it away", shown);
    if (::access(f.c_str(), S_ISDIR(st.st_mode) ? R_OK | X_OK : R_OK) != 0) {
      const int error = errno; // getpwuid may set it
      return fmt::format("cannot read {}: {} (it belongs to {}: run harness as that user)", shown, std::strerror(error),
                         owner(st.st_uid));
    }
  }
  return {};
}

} // namespace

std::string unreadable_state(const std::filesystem::path& state_dir) {
  return unreadable(state_dir, {state_dir, default_db_path(state_dir.parent_path())});
}

std::string unreadable_checkpoints(const std::filesystem::path& state_dir) {
  return unreadable(state_dir, {state_dir, state_dir / "sessions", state_dir / "index"});
}

std::string db_path_length_problem(const std::filesystem::path& db_path) {
  constexpr std::size_t longest = 504;
  std::error_code ec;
  const auto absolute = std::filesystem::absolute(db_path, ec).lexically_normal().string();
  if (ec || absolute.size() <= longest) return {};
  return fmt::format("the state database's path {} is {} bytes long, and SQLite opens no database at a path longer than {} "
                     "bytes: move the project to a shorter path",
                     absolute, absolute.size(), longest);
}

Store::Store(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}
Store::Store(Store&&) noexcept = default;
Store& Store::operator=(Store&&) noexcept = default;
Store::~Store() = default;

std::expected<Store, std::string> Store::open(const StoreOptions& options) {
  if (options.db_path.empty()) return std::unexpected("store: no database path");
  if (auto too_long = db_path_length_problem(options.db_path); !too_long.empty()) return std::unexpected(std::move(too_long));
  // harness.db holds every report; SQLite creates it 0644 & ~umask, private inside a 0700 directory.
  std::error_code ec;
  if (options.db_path.has_parent_path()) ec = util::create_private_directories(options.db_path.parent_path());
  if (ec) return std::unexpected(fmt::format("store: create {}: {}", options.db_path.parent_path().string(), ec.message()));
  // SQLite reads a WAL database only where it may write beside it (the -shm index): on a
  // read-only mount it says just "unable to open database file" (review II F3).
  auto with_cause = [&](const detail::DbError& e) {
    std::string message = e.message;
    const auto dir = options.db_path.has_parent_path() ? options.db_path.parent_path() : std::filesystem::path(".");
    // Only where SQLite could not open or write a file: a corrupt database says so itself (review KK F5).
    const int primary = e.code & 0xff;
    if ((primary != SQLITE_CANTOPEN && primary != SQLITE_READONLY) || ::access(dir.c_str(), W_OK) == 0)
      return std::unexpected(std::move(message));
    const int error = errno; // before anything else may set it
    if (error == EROFS || error == EACCES) {
      std::error_code absolute_ec;
      message += fmt::format(" ({} {}: SQLite needs to write beside the database even to read it)",
                             std::filesystem::absolute(dir, absolute_ec).lexically_normal().string(),
                             error == EROFS ? "lies on a read-only file system" : "is not writable by this user");
    }
    return std::unexpected(std::move(message));
  };
  auto db = detail::Db::open(options.db_path, true);
  if (!db) return with_cause(db.error());
  if (auto r = configure(*db, options); !r) return with_cause(r.error());
  auto runs_held_off = upgrade_allowed(*db, options);
  if (!runs_held_off) return std::unexpected(runs_held_off.error().message);
  const auto deadline = std::chrono::steady_clock::now() + options.busy_timeout;
  while (true) {
    auto r = detail::migrate(*db, schema_version);
    if (r) break;
    if (!r.error().busy() || std::chrono::steady_clock::now() >= deadline) return std::unexpected(r.error().message);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  impl->db = std::move(*db);
  return Store(std::move(impl));
}

std::expected<Store, std::string> Store::open_project(const std::filesystem::path& project) {
  return open(StoreOptions{.db_path = default_db_path(project)});
}

const std::filesystem::path& Store::path() const { return m_impl->options.db_path; }

std::expected<int, std::string> Store::user_version() {
  return m_impl->transact(Mode::read, [&] { return detail::read_user_version(m_impl->db); });
}

// ---- sessions ----

std::expected<void, std::string> Store::create_session(const SessionRecord& session) {
  return m_impl->transact(Mode::write, [&]() -> Result<void> {
    auto s = m_impl->stmt("INSERT INTO sessions (id, slot, status, working_dir, current_command, started_at, ended_at, "
                          "pid, exit_code, task_id, attempt, token, adapter, pgid, pid_start_time, log_path, updated_at, spec) "
                          "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
    if (!s) return std::unexpected(s.error());
    bind_session(**s, session);
    return (*s)->run("create session " + session.id);
  });
}

std::expected<bool, std::string> Store::update_session(const SessionRecord& session) {
  return m_impl->transact(Mode::write, [&]() -> Result<bool> {
    auto s = m_impl->stmt("UPDATE sessions SET id=?1, slot=?2, status=?3, working_dir=?4, current_command=?5, "
                          "started_at=?6, ended_at=?7, pid=?8, exit_code=?9, task_id=?10, attempt=?11, token=?12, "
                          "adapter=?13, pgid=?14, pid_start_time=?15, log_path=?16, updated_at=?17, spec=?18 WHERE id=?1");
    if (!s) return std::unexpected(s.error());
    bind_session(**s, session);
    return changed(m_impl->db, **s, "update session " + session.id);
  });
}

std::expected<bool, std::string> Store::set_session_status(const std::string& id, const std::string& status,
                                                           std::optional<int> exit_code,
                                                           const std::optional<std::string>& end_reason) {
  return m_impl->transact(Mode::write, [&]() -> Result<bool> {
    auto s = m_impl->stmt("UPDATE sessions SET status=?2, exit_code=COALESCE(?3, exit_code), updated_at=?4, "
                          "ended_at=CASE WHEN ?2 IN ('completed','failed','ended') THEN COALESCE(ended_at, ?4) ELSE ended_at END, "
                          "end_reason=?5 WHERE id=?1", id, status, exit_code, now(), end_reason);
    if (!s) return std::unexpected(s.error());
    return changed(m_impl->db, **s, "set session status " + id);
  });
}

std::expected<std::optional<SessionRecord>, std::string> Store::session(const std::string& id) {
  return m_impl->transact(Mode::read, [&]() -> Result<std::optional<SessionRecord>> {
    static const std::string sql = fmt::format("SELECT {} FROM sessions WHERE id=?", session_cols);
    auto s = m_impl->stmt(sql.c_str(), id);
    if (!s) return std::unexpected(s.error());
    return first<SessionRecord>(**s, read_session, "read session");
  });
}

std::expected<std::vector<SessionRecord>, std::string> Store::list_sessions() {
  return m_impl->transact(Mode::read, [&]() -> Result<std::vector<SessionRecord>> {
    static const std::string sql = fmt::format("SELECT {} FROM sessions ORDER BY id", session_cols);
    auto s = m_impl->stmt(sql.c_str());
    if (!s) return std::unexpected(s.error());
    return collect<SessionRecord>(**s, read_session, "list sessions");
  });
}

std::expected<bool, std::string> Store::has_session_for_task(const std::string& task_id, const std::string& spec) {
  return m_impl->transact(Mode::read, [&]() -> Result<bool> {
    auto s = m_impl->stmt("SELECT 1 FROM sessions WHERE task_id=?1 AND (spec=?2 OR spec='') LIMIT 1", task_id, spec);
    if (!s) return std::unexpected(s.error());
    auto found = first<bool>(**s, [](const Stmt&) { return true; }, "find a session of " + task_id);
    if (!found) return std::unexpected(found.error());
    return found->has_value();
  });
}

std::expected<bool, std::string> Store::check_token(const std::string& session_id, const std::string& token) {
  auto s = session(session_id);
  if (!s) return std::unexpected(s.error());
  if (!*s || (*s)->token.empty()) return false;
  const std::string& want = (*s)->token;
  // Constant time in the token's content so a caller cannot learn a prefix by timing.
  unsigned diff = static_cast<unsigned>(want.size() ^ token.size());
  for (std::size_t i = 0; i < want.size(); ++i)
    diff |= static_cast<unsigned char>(want[i]) ^ static_cast<unsigned char>(i < token.size() ? token[i] : 0);
  return diff == 0;
}

// ---- worker messages ----

std::expected<InsertOutcome, std::string> Store::insert_message(const protocol::Envelope& message) {
  return insert_message(to_record(message));
}

std::expected<InsertOutcome, std::string> Store::insert_message(const MessageRecord& message) {
  return m_impl->transact(Mode::write, [&] { return insert_one(*m_impl, message); });
}

std::expected<std::size_t, std::string> Store::insert_messages(const std::vector<protocol::Envelope>& messages) {
  std::vector<MessageRecord> records;
  records.reserve(messages.size());
  for (const auto& m : messages) records.push_back(to_record(m));
  return m_impl->transact(Mode::write, [&]() -> Result<std::size_t> {
    std::size_t inserted = 0;
    for (const auto& m : records) {
      auto r = insert_one(*m_impl, m);
      if (!r) return std::unexpected(r.error());
      inserted += *r == InsertOutcome::inserted;
    }
    return inserted;
  });
}

std::expected<std::optional<MessageRecord>, std::string> Store::message(const std::string& id) {
  return m_impl->transact(Mode::read, [&]() -> Result<std::optional<MessageRecord>> {
    static const std::string sql = fmt::format("SELECT {} FROM worker_messages WHERE id=?", message_cols);
    auto s = m_impl->stmt(sql.c_str(), id);
    if (!s) return std::unexpected(s.error());
    return first<MessageRecord>(**s, read_message, "read message");
  });
}

std::expected<std::vector<MessageRecord>, std::string> Store::pending_messages(const std::optional<std::string>& session_id) {
  return m_impl->transact(Mode::read, [&]() -> Result<std::vector<MessageRecord>> {
    static const std::string sql = fmt::format(
        "SELECT {} FROM worker_messages WHERE status='pending' AND (?1 IS NULL OR session_id=?1) ORDER BY seq",
        message_cols);
    auto s = m_impl->stmt(sql.c_str(), session_id);
    if (!s) return std::unexpected(s.error());
    return collect<MessageRecord>(**s, read_message, "pending messages");
  });
}

std::expected<std::vector<MessageRecord>, std::string> Store::messages_after(std::int64_t after_seq, std::size_t limit) {
  return m_impl->transact(Mode::read, [&]() -> Result<std::vector<MessageRecord>> {
    static const std::string sql =
        fmt::format("SELECT {} FROM worker_messages WHERE seq > ? ORDER BY seq LIMIT ?", message_cols);
    auto s = m_impl->stmt(sql.c_str(), after_seq, static_cast<std::int64_t>(limit));
    if (!s) return std::unexpected(s.error());
    return collect<MessageRecord>(**s, read_message, "messages after");
  });
}

std::expected<bool, std::string> Store::respond(const std::string& message_id, const std::string& response) {
  return m_impl->transact(Mode::write, [&]() -> Result<bool> {
    auto s = m_impl->stmt("UPDATE worker_messages SET status='responded', responded_at=?2, response=?3 "
                          "WHERE id=?1 AND status='pending'", message_id, now(), response);
    if (!s) return std::unexpected(s.error());
    return changed(m_impl->db, **s, "respond " + message_id);
  });
}

std::expected<std::size_t, std::string> Store::expire_pending(const std::string& session_id) {
  return m_impl->transact(Mode::write, [&]() -> Result<std::size_t> {
    auto s = m_impl->stmt("UPDATE worker_messages SET status='expired' WHERE session_id=? AND status='pending'",
                          session_id);
    if (!s) return std::unexpected(s.error());
    auto n = changes(m_impl->db, **s, "expire messages");
    if (!n) return std::unexpected(n.error());
    return static_cast<std::size_t>(*n);
  });
}

namespace {

/// The one integer a `SELECT` of one aggregate returns (0 without a row).
Result<std::int64_t> single_integer(Store::Impl& impl, const char* sql, std::string_view what) {
  auto s = impl.stmt(sql);
  if (!s) return std::unexpected(s.error());
  auto r = first<std::int64_t>(**s, [](const Stmt& st) { return st.int64(0); }, what);
  if (!r) return std::unexpected(r.error());
  return r->value_or(0);
}

} // namespace

std::expected<std::int64_t, std::string> Store::message_count() {
  return m_impl->transact(Mode::read, [&] { return single_integer(*m_impl, "SELECT COUNT(*) FROM worker_messages", "count messages"); });
}

std::expected<std::int64_t, std::string> Store::last_message_seq() {
  return m_impl->transact(Mode::read, [&] {
    return single_integer(*m_impl, "SELECT COALESCE(MAX(seq), 0) FROM worker_messages", "last message seq");
  });
}

std::expected<std::vector<MessageRecord>, std::string> Store::messages_of_sessions(const std::vector<std::string>& session_ids) {
  if (session_ids.empty()) return std::vector<MessageRecord>{};
  json::array ids;
  for (const auto& id : session_ids) ids.emplace_back(id);
  return m_impl->transact(Mode::read, [&]() -> Result<std::vector<MessageRecord>> {
    // One statement for any number of ids (no list of `?` to build): the ids as a JSON array.
    static const std::string sql = fmt::format(
        "SELECT {} FROM worker_messages WHERE session_id IN (SELECT value FROM json_each(?)) ORDER BY seq", message_cols);
    auto s = m_impl->stmt(sql.c_str(), json::serialize(ids));
    if (!s) return std::unexpected(s.error());
    return collect<MessageRecord>(**s, read_message, "messages of sessions");
  });
}

}  // namespace harness::store
