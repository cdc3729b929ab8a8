#include "harness/util/redact.hpp"

#include <algorithm>
#include <array>
#include <cctype>

extern char** environ;

namespace harness::util {

bool secret_name(std::string_view name) {
  std::string upper(name);
  std::ranges::transform(upper, upper.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  static constexpr std::array<std::string_view, 7> words = {"TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH", "KEY"};
  return std::ranges::any_of(words, [&](std::string_view w) { return upper.find(w) != std::string::npos; });
}

std::string redact_environment_secrets(std::string text) {
  if (text.empty()) return text;
  for (char** e = environ; e && *e; ++e) {
    const std::string_view entry(*e);
    const auto eq = entry.find('=');
    if (eq == std::string_view::npos) continue;
    const auto name = entry.substr(0, eq);
    const auto value = entry.substr(eq + 1);
    if (value.size() < 6 || !secret_name(name)) continue; // a short value would mask ordinary words
    const std::string mask = "[$" + std::string(name) + "]";
    for (auto at = text.find(value); at != std::string::npos; at = text.find(value, at + mask.size()))
      text.replace(at, value.size(), mask);
  }
  return text;
}

} // namespace harness::util
