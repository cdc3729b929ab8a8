#include "harness/orchestrator/roadmap_ticks.hpp"

#include "harness/spec/phase_number.hpp"

#include <cctype>
#include <optional>

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

} // namespace

std::string tick_roadmap(std::string_view roadmap, const graph::Progress& progress) {
  std::string out;
  out.reserve(roadmap.size());
  std::string_view fence; // the marker of the open code fence, if any
  for (std::size_t pos = 0; pos < roadmap.size();) {
    std::size_t nl = roadmap.find('\n', pos);
    const std::size_t end = nl == std::string_view::npos ? roadmap.size() : nl + 1;
    std::string line(roadmap.substr(pos, end - pos));
    pos = end;
    const std::size_t indent = line.find_first_not_of(" \t");
    const std::string_view body = indent == std::string::npos ? std::string_view() : std::string_view(line).substr(indent);
    if (!fence.empty()) {
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
    out += line;
  }
  return out;
}

} // namespace harness::orchestrator
