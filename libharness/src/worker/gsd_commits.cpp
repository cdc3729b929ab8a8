#include "harness/worker/gsd_commits.hpp"

#include <cctype>

namespace harness::worker {

namespace {

bool is_plan_id(std::string_view id) {
  // NN-MM or NN.N-MM: digits, at most one decimal part in the phase, a dash, digits.
  const size_t dash = id.find('-');
  if (dash == std::string_view::npos || dash == 0 || dash + 1 == id.size()) return false;
  const std::string_view phase = id.substr(0, dash), plan = id.substr(dash + 1);
  int dots = 0;
  for (size_t i = 0; i < phase.size(); ++i) {
    if (phase[i] == '.' && i > 0 && i + 1 < phase.size() && ++dots == 1) continue;
    if (!std::isdigit(static_cast<unsigned char>(phase[i]))) return false;
  }
  for (char c : plan)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

} // namespace

std::string plan_of_gsd_subject(std::string_view subject) {
  size_t i = 0;
  while (i < subject.size() && std::islower(static_cast<unsigned char>(subject[i]))) ++i;
  if (i == 0 || i >= subject.size() || subject[i] != '(') return {};
  const size_t close = subject.find(')', i);
  if (close == std::string_view::npos || subject.substr(close, 3) != "): ") return {};
  const std::string_view id = subject.substr(i + 1, close - i - 1);
  return is_plan_id(id) ? std::string(id) : std::string();
}

std::string plan_id_group(const std::vector<std::string>& plan_ids) {
  std::string group = "(";
  for (const auto& id : plan_ids) {
    if (group.size() > 1) group += '|';
    for (char c : id) {
      if (c == '.') group += '\\'; // the only ERE special character a plan id holds
      group += c;
    }
  }
  return group + ")";
}

std::string gsd_subject_pattern(const std::vector<std::string>& plan_ids) {
  return "^[a-z]+\\(" + plan_id_group(plan_ids) + "\\): ";
}

} // namespace harness::worker
