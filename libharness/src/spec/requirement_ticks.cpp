#include "harness/spec/requirement_ticks.hpp"

#include "requirement_ids.hpp"

#include "harness/util/markdown_table.hpp"

#include <algorithm>
#include <cctype>
#include <optional>
#include <vector>

namespace harness::spec {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::ranges::transform(out, out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

/// Where a requirements table keeps its Status column, from its header row: GSD's traceability
/// table (`| Requirement | Phase | Status |`) or harness's template (`| id | ... | status |`, review
/// NN F9); nullopt for another table.
std::optional<std::size_t> status_column(std::string_view header) {
  const auto cells = util::table_cells(header);
  if (cells.empty() || (lower(cells.front()) != "requirement" && lower(cells.front()) != "id")) return std::nullopt;
  for (std::size_t i = 1; i < cells.size(); ++i)
    if (lower(cells[i]) == "status") return i;
  return std::nullopt;
}

/// The table row `row` (without its line ending) with the requirement's Status as `met` says. A
/// status harness does not write (`Dropped`, `Deferred`: a person's) is left as it is.
std::string traced_row(std::string_view row, std::size_t status, const std::map<std::string, bool, std::less<>>& met) {
  const auto read = util::table_cells(row);
  if (read.size() <= status) return std::string(row);
  const auto it = met.find(detail::as_id(read.front()));
  if (it == met.end()) return std::string(row);
  if (const auto now = lower(read[status]); !now.empty() && now != "pending" && now != "complete" && now != "in progress")
    return std::string(row);
  std::vector<std::string> cells(read.begin(), read.end());
  if (it->second) cells[status] = "Complete";
  else if (cells[status] == "Complete") cells[status] = "Pending";
  if (std::equal(cells.begin(), cells.end(), read.begin(), read.end())) return std::string(row);
  std::string out = "|";
  for (const auto& c : cells) out += " " + c + " |";
  return out;
}

} // namespace

std::string tick_requirements(std::string_view text, const std::map<std::string, bool, std::less<>>& met) {
  std::string out;
  out.reserve(text.size());
  bool in_fence = false, in_table = false;
  std::optional<std::size_t> status; // inside a traceability table: its Status column
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    const std::size_t end = nl == std::string_view::npos ? text.size() : nl + 1;
    std::string_view line = text.substr(0, end);
    text.remove_prefix(end);
    std::string_view ending = line.ends_with("\r\n") ? "\r\n" : line.ends_with('\n') ? "\n" : "";
    std::string_view body = line.substr(0, line.size() - ending.size());
    const std::size_t indent = body.find_first_not_of(" \t");
    const std::string_view t = indent == std::string_view::npos ? std::string_view() : body.substr(indent);
    if (t.starts_with("```") || t.starts_with("~~~")) in_fence = !in_fence;
    const bool row = !in_fence && t.starts_with('|');
    std::string changed;
    if (row && !in_table) status = status_column(t);
    else if (row && status && !util::is_table_delimiter(t)) changed = std::string(body.substr(0, indent)) + traced_row(t, *status, met);
    else if (!in_fence && !row && t.size() > 6 && (t[0] == '-' || t[0] == '*') && t.substr(1, 2) == " [" && t[4] == ']') {
      if (const auto it = met.find(detail::checklist_id(t)); it != met.end()) {
        changed = std::string(body);
        changed[indent + 3] = it->second ? 'x' : ' ';
        if (t[3] != ' ' && t[3] != 'x' && t[3] != 'X') changed.clear(); // `[-]` and the like: somebody's own mark
        else if (it->second == (t[3] != ' ')) changed.clear();           // already as it should be
      }
    }
    in_table = row;
    if (changed.empty()) out += line;
    else out.append(changed).append(ending);
  }
  return out;
}

} // namespace harness::spec
