#pragma once
// Migration entry points shared by store.cpp and schema.cpp.
#include "sqlite.hpp"

namespace harness::store::detail {

/// `PRAGMA user_version`.
Result<int> read_user_version(const Db& db);
/// Migrates to `target` inside one write transaction (an error when the file is newer).
Result<void> migrate(const Db& db, int target);

}  // namespace harness::store::detail
