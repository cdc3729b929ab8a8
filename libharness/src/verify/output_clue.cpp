#include "output_clue.hpp"

#include "harness/util/text.hpp"

#include <vector>

namespace harness::verify::detail {
namespace {

std::string_view trimmed(std::string_view line) {
  const auto b = line.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) return {};
  return line.substr(b, line.find_last_not_of(" \t\r") - b + 1);
}

/// "AssertionError: x", "error: x", "E   ModuleNotFoundError: x": a word ending in Error or
/// error directly before a ':'.
bool names_an_error(std::string_view line) {
  for (auto at = line.find(':'); at != std::string_view::npos; at = line.find(':', at + 1)) {
    const auto word = line.substr(0, at);
    if (word.ends_with("Error") || word.ends_with("error") || word.ends_with("ERROR")) return true;
  }
  return false;
}

} // namespace

std::string output_clue(std::string_view output, std::size_t limit) {
  std::string_view last, error;
  while (!output.empty()) {
    const auto nl = output.find('\n');
    const auto line = trimmed(output.substr(0, nl));
    output = nl == std::string_view::npos ? std::string_view() : output.substr(nl + 1);
    if (line.empty()) continue;
    last = line;
    if (names_an_error(line)) error = line;
  }
  const auto chosen = error.empty() ? last : error;
  auto clue = util::printable(chosen, false);
  if (clue.size() > limit) clue = std::string(util::utf8_prefix(clue, limit > 3 ? limit - 3 : 0)) + "...";
  return clue;
}

} // namespace harness::verify::detail
