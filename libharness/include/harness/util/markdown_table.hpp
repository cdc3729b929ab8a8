#pragma once
// The rows of a Markdown (GFM) table as harness reads and rewrites them in a spec's documents:
// REQUIREMENTS.md's id tables, ROADMAP.md's Progress table.

#include <string_view>
#include <vector>

namespace harness::util {

/// The cells of a table row (`| a | b |`, the outer bars optional), each trimmed of white space.
/// An escaped bar (`\|`) is not told apart: the documents harness reads do not use them.
std::vector<std::string_view> table_cells(std::string_view row);

/// Whether `row` is a table's delimiter row (`|---|:--:|`): bars, dashes, colons and blanks only.
bool is_table_delimiter(std::string_view row);

} // namespace harness::util
