#include "harness/util/markdown_table.hpp"

#include <algorithm>
#include <cctype>

namespace harness::util {
namespace {

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

} // namespace

std::vector<std::string_view> table_cells(std::string_view row) {
  row = trimmed(row);
  if (row.starts_with('|')) row.remove_prefix(1);
  if (row.ends_with('|')) row.remove_suffix(1);
  std::vector<std::string_view> out;
  for (std::size_t at = 0;;) {
    const std::size_t bar = row.find('|', at);
    out.push_back(trimmed(row.substr(at, bar == std::string_view::npos ? std::string_view::npos : bar - at)));
    if (bar == std::string_view::npos) return out;
    at = bar + 1;
  }
}

bool is_table_delimiter(std::string_view row) {
  row = trimmed(row);
  return !row.empty() && std::ranges::all_of(row, [](char c) { return c == '|' || c == '-' || c == ':' || c == ' '; });
}

} // namespace harness::util
