#pragma once
// Private RAII wrappers over the sqlite3 C API: connection, prepared statement, transaction.
// Errors keep the SQLite result code so callers can tell SQLITE_BUSY (retry) from real failures.

#include <sqlite3.h>

#include <cstdint>
#include <expected>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace harness::store::detail {

/// An SQLite failure: result code plus a message naming what was being done.
struct DbError {
  int code = SQLITE_ERROR;
  std::string message;
  /// True when retrying later may succeed (another connection holds the lock).
  bool busy() const { return (code & 0xff) == SQLITE_BUSY || (code & 0xff) == SQLITE_LOCKED; }
};

template <class T>
using Result = std::expected<T, DbError>;

/// Owns one sqlite3 connection.
class Db {
 public:
  Db() = default;
  explicit Db(sqlite3* db) : m_db(db) {}
  Db(Db&& o) noexcept : m_db(std::exchange(o.m_db, nullptr)) {}
  Db& operator=(Db&& o) noexcept {
    if (this != &o) {
      close();
      m_db = std::exchange(o.m_db, nullptr);
    }
    return *this;
  }
  ~Db() { close(); }
  /// Opens (creating when `create`) the file at `path`.
  static Result<Db> open(const std::filesystem::path& path, bool create);
  sqlite3* get() const { return m_db; }
  /// Runs SQL without results (may hold several statements).
  Result<void> exec(const char* sql, std::string_view what) const;
  /// An error for result code `rc` in context `what`.
  DbError error(int rc, std::string_view what) const;

 private:
  void close() {
    if (m_db) sqlite3_close_v2(m_db);
    m_db = nullptr;
  }
  sqlite3* m_db = nullptr;
};

/// One prepared statement. Bind indices are 1-based like SQLite's.
class Stmt {
 public:
  Stmt() = default;
  Stmt(Stmt&& o) noexcept : m_db(o.m_db), m_stmt(std::exchange(o.m_stmt, nullptr)) {}
  Stmt& operator=(Stmt&& o) noexcept {
    if (this != &o) {
      if (m_stmt) sqlite3_finalize(m_stmt);
      m_db = o.m_db;
      m_stmt = std::exchange(o.m_stmt, nullptr);
    }
    return *this;
  }
  ~Stmt() {
    if (m_stmt) sqlite3_finalize(m_stmt);
  }
  /// Prepares `sql` (persistent: meant to be cached and reused).
  static Result<Stmt> prepare(const Db& db, std::string_view sql);

  /// Clears bindings and resets so the statement can run again.
  void reset() {
    sqlite3_reset(m_stmt);
    sqlite3_clear_bindings(m_stmt);
  }
  void bind(int i, std::string_view v) { sqlite3_bind_text(m_stmt, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT); }
  void bind(int i, const std::string& v) { bind(i, std::string_view(v)); }
  void bind(int i, const char* v) { bind(i, std::string_view(v)); }
  void bind(int i, std::int64_t v) { sqlite3_bind_int64(m_stmt, i, v); }
  void bind(int i, int v) { sqlite3_bind_int64(m_stmt, i, v); }
  void bind(int i, std::uint64_t v) { sqlite3_bind_int64(m_stmt, i, static_cast<std::int64_t>(v)); }
  void bind(int i, std::nullopt_t) { sqlite3_bind_null(m_stmt, i); }
  template <class T>
  void bind(int i, const std::optional<T>& v) {
    if (v) bind(i, *v);
    else sqlite3_bind_null(m_stmt, i);
  }
  /// Binds every argument in order from index 1.
  template <class... A>
  void bind_all(const A&... args) {
    int i = 0;
    (bind(++i, args), ...);
  }
  /// Steps once: true when a row is available, false when done.
  Result<bool> step(std::string_view what);
  /// Steps to completion (statements without rows).
  Result<void> run(std::string_view what);

  bool is_null(int c) const { return sqlite3_column_type(m_stmt, c) == SQLITE_NULL; }
  std::string text(int c) const {
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(m_stmt, c));
    return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(m_stmt, c))) : std::string();
  }
  std::optional<std::string> opt_text(int c) const { return is_null(c) ? std::nullopt : std::optional(text(c)); }
  std::int64_t int64(int c) const { return sqlite3_column_int64(m_stmt, c); }
  std::optional<std::int64_t> opt_int64(int c) const { return is_null(c) ? std::nullopt : std::optional(int64(c)); }

 private:
  sqlite3* m_db = nullptr;
  sqlite3_stmt* m_stmt = nullptr;
};

/// BEGIN IMMEDIATE (write) or DEFERRED (read) ... COMMIT; rolls back when not committed.
class Txn {
 public:
  enum class Mode { read, write };
  static Result<Txn> begin(const Db& db, Mode mode);
  Txn(Txn&& o) noexcept : m_db(std::exchange(o.m_db, nullptr)) {}
  Txn& operator=(Txn&&) = delete;
  ~Txn() {
    if (m_db) (void)m_db->exec("ROLLBACK", "rollback");
  }
  /// Commits; on failure the destructor rolls back.
  Result<void> commit();

 private:
  explicit Txn(const Db* db) : m_db(db) {}
  const Db* m_db = nullptr;
};

}  // namespace harness::store::detail
