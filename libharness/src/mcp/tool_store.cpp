#include "harness/mcp/tool_store.hpp"

#include <sqlite3.h>

#include <chrono>
#include <ctime>
#include <functional>
#include <system_error>

namespace harness::mcp {
namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

constexpr const char* k_schema = R"sql(
PRAGMA journal_mode=WAL;
CREATE TABLE IF NOT EXISTS sessions(id TEXT PRIMARY KEY, token TEXT NOT NULL, task TEXT NOT NULL,
  status TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS messages(id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL,
  type TEXT NOT NULL, payload TEXT NOT NULL, status TEXT NOT NULL, created_at TEXT NOT NULL,
  response TEXT, responded_at TEXT);
CREATE TABLE IF NOT EXISTS state(key TEXT PRIMARY KEY, value TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS phase_verifications(phase TEXT PRIMARY KEY, note TEXT NOT NULL, verified_at TEXT NOT NULL);
)sql";

std::string now_utc() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

/// A prepared statement, finalised on scope exit.
class Stmt {
 public:
  Stmt(sqlite3* db, const char* sql) : m_db(db) { m_ok = sqlite3_prepare_v2(db, sql, -1, &m_stmt, nullptr) == SQLITE_OK; }
  ~Stmt() { sqlite3_finalize(m_stmt); }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  Stmt& bind(int i, const std::string& text) {
    sqlite3_bind_text(m_stmt, i, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Stmt& bind(int i, std::int64_t v) {
    sqlite3_bind_int64(m_stmt, i, v);
    return *this;
  }
  /// SQLITE_ROW, SQLITE_DONE or an error code.
  int step() { return m_ok ? sqlite3_step(m_stmt) : SQLITE_ERROR; }
  std::string text(int col) const {
    const auto* p = sqlite3_column_text(m_stmt, col);
    return p ? std::string(reinterpret_cast<const char*>(p), static_cast<std::size_t>(sqlite3_column_bytes(m_stmt, col))) : std::string();
  }
  std::int64_t integer(int col) const { return sqlite3_column_int64(m_stmt, col); }
  bool is_null(int col) const { return sqlite3_column_type(m_stmt, col) == SQLITE_NULL; }
  std::string error() const { return sqlite3_errmsg(m_db); }

 private:
  sqlite3* m_db;
  sqlite3_stmt* m_stmt = nullptr;
  bool m_ok = false;
};

json::value parse_or_string(const std::string& text) {
  json::error_code ec;
  json::value v = json::parse(text, ec);
  return ec ? json::value(json::string(text)) : v;
}

std::unexpected<std::string> db_error(const Stmt& s) { return std::unexpected("database error: " + s.error()); }

}  // namespace

ToolStore::ToolStore(fs::path project) : m_project(std::move(project)) {}

ToolStore::~ToolStore() { sqlite3_close(m_db); }

std::expected<sqlite3*, std::string> ToolStore::open(CreateIfMissing create) {
  if (m_db) return m_db;
  const fs::path file = state_dir() / "mcp.db";
  std::error_code ec;
  if (!fs::exists(file, ec)) {
    if (create == CreateIfMissing::no) return nullptr;
    fs::create_directories(state_dir(), ec);
    if (ec) return std::unexpected("cannot create " + state_dir().string() + ": " + ec.message());
  }
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr) != SQLITE_OK) {
    std::string msg = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    return std::unexpected("cannot open " + file.string() + ": " + msg);
  }
  sqlite3_busy_timeout(db, 5000);  // other harness-mcp processes write the same file
  char* err = nullptr;
  if (sqlite3_exec(db, k_schema, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : "schema failed";
    sqlite3_free(err);
    sqlite3_close(db);
    return std::unexpected("cannot initialise " + file.string() + ": " + msg);
  }
  m_db = db;
  return m_db;
}

std::expected<void, std::string> ToolStore::create_session(const std::string& id, const std::string& token,
                                                           const json::value& task) {
  std::lock_guard lock(m_mutex);
  auto db = open(CreateIfMissing::yes);
  if (!db) return std::unexpected(db.error());
  const std::string now = now_utc();
  Stmt s(*db, "INSERT INTO sessions(id, token, task, status, created_at, updated_at) VALUES(?,?,?,'pending',?,?) "
              "ON CONFLICT(id) DO UPDATE SET token=excluded.token, task=excluded.task, updated_at=excluded.updated_at");
  s.bind(1, id).bind(2, token).bind(3, json::serialize(task)).bind(4, now).bind(5, now);
  if (s.step() != SQLITE_DONE) return db_error(s);
  return {};
}

std::expected<std::optional<SessionRow>, std::string> ToolStore::session(const std::string& id) {
  std::lock_guard lock(m_mutex);
  auto db = open(CreateIfMissing::no);
  if (!db) return std::unexpected(db.error());
  if (*db == nullptr) return std::nullopt;
  Stmt s(*db, "SELECT id, token, task, status, updated_at FROM sessions WHERE id=?");
  s.bind(1, id);
  const int rc = s.step();
  if (rc == SQLITE_DONE) return std::nullopt;
  if (rc != SQLITE_ROW) return db_error(s);
  return SessionRow{s.text(0), s.text(1), parse_or_string(s.text(2)), s.text(3), s.text(4)};
}

std::expected<json::array, std::string> ToolStore::list_sessions() {
  std::lock_guard lock(m_mutex);
  auto db = open(CreateIfMissing::no);
  if (!db) return std::unexpected(db.error());
  json::array out;
  if (*db == nullptr) return out;
  Stmt s(*db, "SELECT id, status, updated_at, (SELECT count(*) FROM messages m WHERE m.session_id=sessions.id AND m.status='pending') "
              "FROM sessions ORDER BY id");
  int rc;
  while ((rc = s.step()) == SQLITE_ROW) {
    out.push_back(json::object{{"session_id", s.text(0)}, {"status", s.text(1)}, {"updated_at", s.text(2)}, {"pending", s.integer(3)}});
  }
  if (rc != SQLITE_DONE) return db_error(s);
  return out;
}

std::expected<void, std::string> ToolStore::set_status(const std::string& id, const std::string& status) {
  std::lock_guard lock(m_mutex);
  auto db = open(CreateIfMissing::yes);
  if (!db) return std::unexpected(db.error());
  Stmt s(*db, "UPDATE sessions SET status=?, updated_at=? WHERE id=?");
  s.bind(1, status).bind(2, now_utc()).bind(3, id);
  if (s.step() != SQLITE_DONE) return db_error(s);
  return {};
}

std::expected<std::int64_t, std::string> ToolStore::add_message(const std::string& session, const std::string& type,
                                                                const json::value& payload) {
  std::lock_guard lock(m_mutex);
  auto db = open(CreateIfMissing::yes);
  if (!db) return std::unexpected(db.error());
  Stmt s(*db, "INSERT INTO messages(session_id, type, payload, status, created_at) VALUES(?,?,?,'pending',?)");
  s.bind(1, session).bind(2, type).bind(3, json::serialize(payload)).bind(4, now_utc());
  if (s.step() != SQLITE_DONE) return db_error(s);
  return sqlite3_last_insert_rowid(*db);
}

std::expected<json::array, std::string> ToolStore::pending(const std::string& session) {
  std::lock_guard lock(m_mutex);
  auto db = open(CreateIfMissing::no);
  if (!db) return std::unexpected(db.error());
  json::array out;
  if (*db == nullptr) return out;
  Stmt s(*db, "SELECT id, session_id, type, payload, created_at FROM messages WHERE status='pending' AND (?1='' OR session_id=?1) ORDER BY id");
  s.bind(1, session);
  int rc;
  while ((rc = s.step()) == SQLITE_ROW) {
    out.push_back(json::object{{"message_id", s.integer(0)}, {"session_id", s.text(1)}, {"type", s.text(2)},
                               {"payload", parse_or_string(s.text(3))}, {"created_at", s.text(4)}});
  }
  if (rc != SQLITE_DONE) return db_error(s);
  return out;
}

std::expected<bool, std::string> ToolStore::respond(std::int64_t message_id, const json::value& response) {
  std::lock_guard lock(m_mutex);
  auto db = open(CreateIfMissing::no);
  if (!db) return std::unexpected(db.error());
  if (*db == nullptr) return false;
  Stmt s(*db, "UPDATE messages SET status='responded', response=?, responded_at=? WHERE id=? AND status='pending'");
  s.bind(1, json::serialize(response)).bind(2, now_utc()).bind(3, message_id);
  if (s.step() != SQLITE_DONE) return db_error(s);
  return sqlite3_changes(*db) == 1;
}

std::expected<std::int64_t, std::string> ToolStore::latest_message(const std::string& session) {
  std::lock_guard lock(m_mutex);
  auto db = open(CreateIfMissing::no);
  if (!db) return std::unexpected(db.error());
  if (*db == nullptr) return 0;
  Stmt s(*db, "SELECT max(id) FROM messages WHERE session_id=?");
  s.bind(1, session);
  if (s.step() != SQLITE_ROW) return db_error(s);
  return s.is_null(0) ? 0 : s.integer(0);
}

std::expected<std::optional<json::value>, std::string> ToolStore::response_of(const std::string& session,
                                                                              std::int64_t message_id) {
  std::lock_guard lock(m_mutex);
  auto db = open(CreateIfMissing::no);
  if (!db) return std::unexpected(db.error());
  if (*db == nullptr) return std::unexpected(std::string("unknown message"));
  Stmt s(*db, "SELECT status, response FROM messages WHERE id=? AND session_id=?");
  s.bind(1, message_id).bind(2, session);
  const int rc = s.step();
  if (rc == SQLITE_DONE) return std::unexpected("message " + std::to_string(message_id) + " is not one of this session's");
  if (rc != SQLITE_ROW) return db_error(s);
  if (s.text(0) != "responded") return std::nullopt;
  return parse_or_string(s.text(1));
}

std::expected<void, std::string> ToolStore::set_state(const std::string& key, const json::value& value) {
  std::lock_guard lock(m_mutex);
  auto db = open(CreateIfMissing::yes);
  if (!db) return std::unexpected(db.error());
  Stmt s(*db, "INSERT INTO state(key, value, updated_at) VALUES(?,?,?) ON CONFLICT(key) DO UPDATE SET value=excluded.value, updated_at=excluded.updated_at");
  s.bind(1, key).bind(2, json::serialize(value)).bind(3, now_utc());
  if (s.step() != SQLITE_DONE) return db_error(s);
  return {};
}

std::expected<json::object, std::string> ToolStore::get_state() {
  std::lock_guard lock(m_mutex);
  auto db = open(CreateIfMissing::no);
  if (!db) return std::unexpected(db.error());
  json::object out;
  if (*db == nullptr) return out;
  Stmt s(*db, "SELECT key, value FROM state ORDER BY key");
  int rc;
  while ((rc = s.step()) == SQLITE_ROW) out[s.text(0)] = parse_or_string(s.text(1));
  if (rc != SQLITE_DONE) return db_error(s);
  return out;
}

std::expected<void, std::string> ToolStore::mark_phase_verified(const std::string& phase, const std::string& note) {
  std::lock_guard lock(m_mutex);
  auto db = open(CreateIfMissing::yes);
  if (!db) return std::unexpected(db.error());
  Stmt s(*db, "INSERT INTO phase_verifications(phase, note, verified_at) VALUES(?,?,?) ON CONFLICT(phase) DO UPDATE SET note=excluded.note, verified_at=excluded.verified_at");
  s.bind(1, phase).bind(2, note).bind(3, now_utc());
  if (s.step() != SQLITE_DONE) return db_error(s);
  return {};
}

std::expected<json::array, std::string> ToolStore::verified_phases() {
  std::lock_guard lock(m_mutex);
  auto db = open(CreateIfMissing::no);
  if (!db) return std::unexpected(db.error());
  json::array out;
  if (*db == nullptr) return out;
  Stmt s(*db, "SELECT phase, note, verified_at FROM phase_verifications ORDER BY phase");
  int rc;
  while ((rc = s.step()) == SQLITE_ROW) {
    out.push_back(json::object{{"phase", s.text(0)}, {"note", s.text(1)}, {"verified_at", s.text(2)}});
  }
  if (rc != SQLITE_DONE) return db_error(s);
  return out;
}

}  // namespace harness::mcp
