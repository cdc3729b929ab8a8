#pragma once
// Phase numbers: integers ("03") and GSD's decimal inserted phases ("02.1").

#include <compare>
#include <optional>
#include <string>
#include <string_view>

namespace harness::spec {

struct PhaseNumber {
  int major = 0;
  int minor = 0; ///< 0 for an integer phase; 1 for "02.1"
  auto operator<=>(const PhaseNumber&) const = default;
  bool operator==(const PhaseNumber&) const = default;
};

/// Parses "3", "03", "02.1"; nullopt for anything else.
std::optional<PhaseNumber> parse_phase_number(std::string_view s);
/// Zero-padded to two digits: "03", "02.1".
std::string to_string(PhaseNumber p);

} // namespace harness::spec
