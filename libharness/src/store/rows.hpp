#pragma once
// What a store statement gives back: all its rows, its first row, or the rows a write changed.
#include "sqlite.hpp"

#include <optional>
#include <string_view>
#include <vector>

namespace harness::store::detail {

/// Every row of `s`, each read through `read`.
template <class T, class F>
Result<std::vector<T>> collect(Stmt& s, F read, std::string_view what) {
  std::vector<T> out;
  while (true) {
    auto row = s.step(what);
    if (!row) return std::unexpected(row.error());
    if (!*row) return out;
    out.push_back(read(s));
  }
}

/// The first row of `s` through `read`, or nullopt when there is none.
template <class T, class F>
Result<std::optional<T>> first(Stmt& s, F read, std::string_view what) {
  auto row = s.step(what);
  if (!row) return std::unexpected(row.error());
  if (!*row) return std::optional<T>();
  std::optional<T> out = read(s);
  // A statement left on its row keeps this connection's read snapshot open: later reads would
  // not see what other processes (harness-mcp) write.
  s.reset();
  return out;
}

/// Runs the write `s` on `db`: how many rows it changed.
inline Result<int> changes(const Db& db, Stmt& s, std::string_view what) {
  if (auto r = s.run(what); !r) return std::unexpected(r.error());
  return sqlite3_changes(db.get());
}

/// Runs the write `s` on `db`: whether it changed a row.
inline Result<bool> changed(const Db& db, Stmt& s, std::string_view what) {
  auto n = changes(db, s, what);
  if (!n) return std::unexpected(n.error());
  return *n > 0;
}

}  // namespace harness::store::detail
