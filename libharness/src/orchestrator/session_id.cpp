#include "harness/orchestrator/session_id.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace harness::orchestrator {
namespace {

bool all_of_class(std::string_view s, bool (*in_class)(char)) {
  return !s.empty() && std::ranges::all_of(s, in_class);
}
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f'); }

} // namespace

std::string session_id(std::string_view task, int attempt, std::string_view run_id, int use) {
  std::string id = fmt::format("{}-a{}-{}", task, attempt, run_id);
  std::ranges::replace(id, ':', '-'); // a directory name, and the same on every file system
  if (use > 1) id += fmt::format("-r{}", use);
  return id;
}

std::string run_of_session_id(std::string_view id) {
  // Peel "-rN", then "-RUN" and "-aN" from the end: what is left must name a task.
  auto last_part = [&id]() -> std::string_view {
    const auto dash = id.rfind('-');
    if (dash == std::string_view::npos) return {};
    const auto part = id.substr(dash + 1);
    id = id.substr(0, dash);
    return part;
  };
  std::string_view run = last_part();
  if (run.size() > 1 && run[0] == 'r' && all_of_class(run.substr(1), is_digit)) run = last_part();
  const std::string_view attempt = last_part();
  if (!all_of_class(run, is_hex) || attempt.size() < 2 || attempt[0] != 'a' || !all_of_class(attempt.substr(1), is_digit) ||
      id.empty())
    return {};
  return std::string(run);
}

} // namespace harness::orchestrator
