#pragma once
// Schema versions and forward migrations, exposed so tests can build a database as an older
// build left it and check that opening it migrates every row forward.

#include <expected>
#include <filesystem>
#include <string>

namespace harness::store {

/// Creates a fresh database at `path` with the schema of `version` (1..schema_version) and
/// nothing else; for migration tests and tooling.
std::expected<void, std::string> create_schema_at(const std::filesystem::path& path, int version);

/// The SQL that migrates version `from` to `from + 1` (for docs and tests).
const char* migration_sql(int from);

}  // namespace harness::store
