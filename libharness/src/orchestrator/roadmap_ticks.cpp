#include "harness/orchestrator/roadmap_ticks.hpp"

#include "harness/spec/phase_number.hpp"
#include "harness/util/markdown_table.hpp"

#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <vector>

namespace harness::orchestrator {
namespace {

bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

/// The leading "NN" or "NN.N" of `s`, or empty.
std::string_view number_prefix(std::string_view s) {
  std::size_t n = 0;
  while (n < s.size() && is_digit(s[n])) ++n;
  if (n > 0 && n + 1 < s.size() && s[n] == '.' && is_digit(s[n + 1]))
    for (++n; n < s.size() && is_digit(s[n]);) ++n;
  return s.substr(0, n);
}

/// Whether the item the checkbox text names is done: nullopt when it names nothing we know.
std::optional<bool> done_state(std::string_view item, const graph::Progress& p) {
  while (item.starts_with("*") || item.starts_with("_")) item.remove_prefix(1); // **Phase 1**
  if (item.starts_with("Phase ")) {
    const auto number = spec::parse_phase_number(number_prefix(item.substr(6)));
    if (!number) return std::nullopt;
    for (const auto& ph : p.phases)
      if (ph.number == *number) return ph.state == "verified";
    return std::nullopt;
  }
  const auto phase = number_prefix(item);
  if (phase.empty() || phase.size() >= item.size() || item[phase.size()] != '-') return std::nullopt;
  const auto plan_no = number_prefix(item.substr(phase.size() + 1));
  if (plan_no.empty()) return std::nullopt;
  const std::string id(item.substr(0, phase.size() + 1 + plan_no.size()));
  const std::size_t end = id.size();
  if (end < item.size() && (std::isalnum(static_cast<unsigned char>(item[end])) || item[end] == '-')) return std::nullopt;
  for (const auto& plan : p.plans)
    if (plan.id == id) return plan.state == graph::PlanState::verified;
  return std::nullopt;
}

/// Where GSD's Progress table keeps each column, from its header row; nullopt for another table.
struct ProgressColumns {
  std::size_t plans = 0, status = 0, completed = 0;
};

std::optional<ProgressColumns> progress_columns(const std::vector<std::string_view>& header) {
  std::optional<std::size_t> phase, plans, status, completed;
  for (std::size_t i = 0; i < header.size(); ++i) {
    if (header[i] == "Phase") phase = i;
    else if (header[i] == "Plans Complete") plans = i;
    else if (header[i] == "Status") status = i;
    else if (header[i] == "Completed") completed = i;
  }
  if (phase != 0u || !plans || !status || !completed) return std::nullopt;
  return ProgressColumns{*plans, *status, *completed};
}

/// `row` (a line of the table) as the phase's progress says, or as it is.
std::string progress_row(const std::string& row, const ProgressColumns& col, const graph::Progress& p, std::string_view today) {
  const auto read = util::table_cells(row);
  std::vector<std::string> cells(read.begin(), read.end());
  if (cells.size() <= std::max({col.plans, col.status, col.completed})) return row;
  const auto number = spec::parse_phase_number(number_prefix(cells[0]));
  if (!number) return row;
  const graph::PhaseProgress* ph = nullptr;
  for (const auto& candidate : p.phases)
    if (candidate.number == *number) ph = &candidate;
  if (!ph || ph->plans == 0) return row; // not planned yet: what GSD wrote stands
  auto before = cells;
  cells[col.plans] = std::to_string(ph->verified) + "/" + std::to_string(ph->plans);
  const bool has_date = cells[col.completed].size() >= 10 && std::isdigit(static_cast<unsigned char>(cells[col.completed][0]));
  if (ph->state == "verified") {
    cells[col.status] = "Complete";
    if (!has_date) cells[col.completed] = std::string(today);
  } else {
    if (ph->executed > 0 || ph->verified > 0 || cells[col.status] == "Complete") cells[col.status] = "In progress";
    if (cells[col.status] == "In progress") cells[col.completed] = "-";
  }
  if (cells == before) return row;
  std::string out = "|";
  for (const auto& c : cells) out += " " + c + " |";
  return out + (row.ends_with("\r\n") ? "\r\n" : row.ends_with('\n') ? "\n" : "");
}

} // namespace

std::string tick_roadmap(std::string_view roadmap, const graph::Progress& progress, std::string_view today) {
  std::string out;
  out.reserve(roadmap.size());
  std::string_view fence; // the marker of the open code fence, if any
  bool in_table = false;                 // the previous line was a table's
  std::optional<ProgressColumns> table; // inside GSD's Progress table: its columns
  for (std::size_t pos = 0; pos < roadmap.size();) {
    std::size_t nl = roadmap.find('\n', pos);
    const std::size_t end = nl == std::string_view::npos ? roadmap.size() : nl + 1;
    // body (and fence, kept across lines) view the input, which outlives every line's copy.
    const std::string_view source = roadmap.substr(pos, end - pos);
    std::string line(source);
    pos = end;
    const std::size_t indent = line.find_first_not_of(" \t");
    const std::string_view body = indent == std::string::npos ? std::string_view() : source.substr(indent);
    const bool row = fence.empty() && body.starts_with("|");
    if (row) {
      const bool delimiter = util::is_table_delimiter(body);
      if (!in_table) table = progress_columns(util::table_cells(body)); // the header row
      else if (table && !delimiter) line = line.substr(0, indent) + progress_row(std::string(body), *table, progress, today);
    } else if (!fence.empty()) {
      if (body.starts_with(fence)) fence = {};
    } else if (body.starts_with("```") || body.starts_with("~~~")) {
      fence = body.substr(0, 3);
    } else if (body.size() > 6 && (body[0] == '-' || body[0] == '*') && body.substr(1, 2) == " [" &&
               (body[3] == ' ' || body[3] == 'x' || body[3] == 'X') && body.substr(4, 2) == "] ") {
      if (const auto done = done_state(body.substr(6), progress)) {
        const bool ticked = body[3] != ' ';
        if (*done != ticked) line[indent + 3] = *done ? 'x' : ' ';
      }
    }
    in_table = row;
    out += line;
  }
  return out;
}

} // namespace harness::orchestrator
