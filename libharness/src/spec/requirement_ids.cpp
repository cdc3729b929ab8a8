#include "requirement_ids.hpp"

#include "harness/util/markdown_table.hpp"
#include "harness/util/text.hpp"

#include <algorithm>
#include <cctype>
#include <vector>

namespace harness::spec::detail {
namespace {

using util::trim_space;

} // namespace

// A letter or digit first, then letters, digits, '-', '_', '.': a template's `...` or `{{id}}`
// defines nothing.
std::string as_id(std::string_view cell) {
  cell = trim_space(cell);
  for (std::string_view mark : {"**", "__", "`"})
    if (cell.size() > 2 * mark.size() && cell.starts_with(mark) && cell.ends_with(mark))
      cell = trim_space(cell.substr(mark.size(), cell.size() - 2 * mark.size()));
  if (cell.empty() || !std::isalnum(static_cast<unsigned char>(cell.front()))) return {};
  const bool id_chars = std::ranges::all_of(cell, [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
  });
  return id_chars ? std::string(cell) : std::string();
}

std::string checklist_id(std::string_view line) {
  line = trim_space(line);
  if (!(line.starts_with("- ") || line.starts_with("* "))) return {};
  line = trim_space(line.substr(2));
  if (line.size() >= 3 && line[0] == '[' && line[2] == ']') line = trim_space(line.substr(3));
  if (!line.starts_with("**")) return {};
  const std::size_t end = line.find("**", 2);
  return end == std::string_view::npos ? std::string() : as_id(line.substr(0, end + 2));
}

std::set<std::string, std::less<>> parse_requirement_ids(std::string_view text) {
  std::set<std::string, std::less<>> ids;
  bool in_fence = false, in_id_table = false, in_table = false;
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    const std::string_view t = trim_space(line);
    if (t.starts_with("```") || t.starts_with("~~~")) {
      in_fence = !in_fence;
      continue;
    }
    if (in_fence) continue;
    if (!t.starts_with('|')) {
      in_table = in_id_table = false;
      if (auto id = checklist_id(t); !id.empty()) ids.insert(std::move(id));
      continue;
    }
    if (!in_table) { // a table's header row
      in_table = true;
      const auto head = util::table_cells(t);
      std::string first(head.empty() ? std::string_view() : head.front());
      std::ranges::transform(first, first.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      in_id_table = first == "id";
      continue;
    }
    if (!in_id_table || util::is_table_delimiter(t)) continue;
    if (auto id = as_id(util::table_cells(t).front()); !id.empty()) ids.insert(std::move(id));
  }
  return ids;
}

} // namespace harness::spec::detail
