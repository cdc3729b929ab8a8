#include "harness/spec/phase_number.hpp"

#include <charconv>

#include <fmt/format.h>

namespace harness::spec {
namespace {

std::optional<int> parse_digits(std::string_view s) {
  if (s.empty() || s.size() > 4) return std::nullopt;
  int v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || p != s.data() + s.size()) return std::nullopt;
  return v;
}

} // namespace

std::optional<PhaseNumber> parse_phase_number(std::string_view s) {
  const auto dot = s.find('.');
  auto major = parse_digits(s.substr(0, dot));
  if (!major) return std::nullopt;
  if (dot == std::string_view::npos) return PhaseNumber{*major, 0};
  auto minor = parse_digits(s.substr(dot + 1));
  if (!minor || *minor == 0) return std::nullopt;
  return PhaseNumber{*major, *minor};
}

std::string to_string(PhaseNumber p) {
  if (p.minor == 0) return fmt::format("{:02}", p.major);
  return fmt::format("{:02}.{}", p.major, p.minor);
}

} // namespace harness::spec
