// RAII wrappers over sqlite3.
#include "sqlite.hpp"

#include <fmt/format.h>

namespace harness::store::detail {

Result<Db> Db::open(const std::filesystem::path& path, bool create) {
  sqlite3* raw = nullptr;
  const int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_NOMUTEX;
  const int rc = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
  Db db(raw);
  if (rc != SQLITE_OK) return std::unexpected(db.error(rc, fmt::format("open {}", path.string())));
  sqlite3_extended_result_codes(raw, 1);
  return db;
}

Result<void> Db::exec(const char* sql, std::string_view what) const {
  char* msg = nullptr;
  const int rc = sqlite3_exec(m_db, sql, nullptr, nullptr, &msg);
  if (rc == SQLITE_OK) return {};
  DbError e{rc, fmt::format("{}: {}", what, msg ? msg : sqlite3_errstr(rc))};
  sqlite3_free(msg);
  return std::unexpected(std::move(e));
}

DbError Db::error(int rc, std::string_view what) const {
  const char* msg = m_db ? sqlite3_errmsg(m_db) : sqlite3_errstr(rc);
  return DbError{rc, fmt::format("{}: {}", what, msg)};
}

Result<Stmt> Stmt::prepare(const Db& db, std::string_view sql) {
  Stmt s;
  s.m_db = db.get();
  const int rc = sqlite3_prepare_v3(db.get(), sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT,
                                    &s.m_stmt, nullptr);
  if (rc != SQLITE_OK) return std::unexpected(db.error(rc, fmt::format("prepare `{}`", sql)));
  return s;
}

Result<bool> Stmt::step(std::string_view what) {
  const int rc = sqlite3_step(m_stmt);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  DbError e{rc, fmt::format("{}: {}", what, sqlite3_errmsg(m_db))};
  sqlite3_reset(m_stmt);
  return std::unexpected(std::move(e));
}

Result<void> Stmt::run(std::string_view what) {
  while (true) {
    auto r = step(what);
    if (!r) return std::unexpected(r.error());
    if (!*r) return {};
  }
}

Result<Txn> Txn::begin(const Db& db, Mode mode) {
  auto r = db.exec(mode == Mode::write ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED", "begin transaction");
  if (!r) return std::unexpected(r.error());
  return Txn(&db);
}

Result<void> Txn::commit() {
  auto r = m_db->exec("COMMIT", "commit");
  if (r) m_db = nullptr;
  return r;
}

}  // namespace harness::store::detail
