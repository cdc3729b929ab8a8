#pragma once
// Schema versions and forward migrations, exposed so tests can build a database as an older
// build left it and check that opening it migrates every row forward.

#include <expected>
#include <filesystem>
#include <string>

namespace harness::store {

/// The key/value entry (kv_state) holding the oldest schema version this database was found at
/// and migrated from, as a decimal string; absent in a database this schema created. What an
/// older build left without the records later builds keep (the orchestrator's list of documents
/// to commit) is recognised by it, however many migrations ago it was.
inline constexpr const char* upgraded_from_key = "schema_upgraded_from";

/// Creates a fresh database at `path` with the schema of `version` (1..schema_version) and
/// nothing else; for migration tests and tooling.
std::expected<void, std::string> create_schema_at(const std::filesystem::path& path, int version);

/// The SQL that migrates version `from` to `from + 1` (for docs and tests).
const char* migration_sql(int from);

}  // namespace harness::store
