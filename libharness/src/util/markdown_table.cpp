#include "harness/util/markdown_table.hpp"

#include "harness/util/text.hpp"

#include <algorithm>

namespace harness::util {

std::vector<std::string_view> table_cells(std::string_view row) {
  row = trim_space(row);
  if (row.starts_with('|')) row.remove_prefix(1);
  if (row.ends_with('|')) row.remove_suffix(1);
  // `\|` is a pipe inside a cell (GitHub's tables), kept as written: no cell ends there (review
  // QQ F9: such a REQUIREMENTS.md row read as one more cell, and its status was never ticked).
  auto next_bar = [&](std::size_t from) {
    auto bar = row.find('|', from);
    while (bar != std::string_view::npos && bar > 0 && row[bar - 1] == '\\') bar = row.find('|', bar + 1);
    return bar;
  };
  std::vector<std::string_view> out;
  for (std::size_t at = 0;;) {
    const std::size_t bar = next_bar(at);
    out.push_back(trim_space(row.substr(at, bar == std::string_view::npos ? std::string_view::npos : bar - at)));
    if (bar == std::string_view::npos) return out;
    at = bar + 1;
  }
}

bool is_table_delimiter(std::string_view row) {
  row = trim_space(row);
  return !row.empty() && std::ranges::all_of(row, [](char c) { return c == '|' || c == '-' || c == ':' || c == ' '; });
}

} // namespace harness::util
