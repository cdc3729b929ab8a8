#pragma once
// Checks of option values that CLI11's own say badly.

#include <CLI/CLI.hpp>

#include <charconv>
#include <cmath>
#include <string>

namespace harness::cli {

/// A finite number above 0. CLI::PositiveNumber answers -5 with its range written out up to
/// DBL_MAX (300 digits).
inline CLI::Validator positive_number() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        double d = 0;
        const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), d);
        if (ec != std::errc{} || end != value.data() + value.size() || !std::isfinite(d) || d <= 0)
          return value + " is not a number above 0";
        return {};
      },
      "POSITIVE");
}

} // namespace harness::cli
