#pragma once
// Store::Impl: the connection, its statement cache and the retry loop around transactions.
#include "harness/store/store.hpp"
#include "sqlite.hpp"

#include <map>
#include <mutex>
#include <thread>

namespace harness::store {

struct Store::Impl {
  StoreOptions options;
  detail::Db db;
  std::mutex mutex;
  std::map<const char*, detail::Stmt> cache;  // keyed by the SQL literal's address

  /// The cached statement for `sql` (a string literal), reset, with `args` bound from index 1.
  template <class... A>
  detail::Result<detail::Stmt*> stmt(const char* sql, const A&... args) {
    auto it = cache.find(sql);
    if (it == cache.end()) {
      auto s = detail::Stmt::prepare(db, sql);
      if (!s) return std::unexpected(s.error());
      it = cache.emplace(sql, std::move(*s)).first;
    }
    it->second.reset();
    it->second.bind_all(args...);
    return &it->second;
  }

  /// Runs `body` in a transaction, retrying the whole transaction while the database is busy
  /// until options.busy_timeout has passed; then the busy error is returned (never ignored).
  template <class F>
  auto transact(detail::Txn::Mode mode, F&& body) -> std::expected<typename std::invoke_result_t<F&>::value_type, std::string> {
    std::lock_guard lock(mutex);
    const auto deadline = std::chrono::steady_clock::now() + options.busy_timeout;
    auto backoff = std::chrono::microseconds(200);
    while (true) {
      detail::DbError err;
      {
        auto txn = detail::Txn::begin(db, mode);
        if (txn) {
          auto r = body();
          if (r) {
            auto c = txn->commit();
            if (c) {
              if constexpr (std::is_void_v<typename decltype(r)::value_type>) return {};
              else return std::move(*r);
            }
            err = c.error();
          } else {
            err = r.error();
          }
        } else {
          err = txn.error();
        }
      }
      if (!err.busy() || std::chrono::steady_clock::now() >= deadline) return std::unexpected(err.message);
      std::this_thread::sleep_for(backoff);
      backoff = std::min(backoff * 2, std::chrono::microseconds(20'000));
    }
  }
};

}  // namespace harness::store
