#include "harness/spec/spec_identity.hpp"

#include <algorithm>
#include <cctype>

namespace harness::spec {

std::optional<long> spec_number(std::string_view name) {
  if (!name.starts_with("SPC-")) return std::nullopt;
  name.remove_prefix(4);
  size_t digits = 0;
  while (digits < name.size() && digits < 9 && std::isdigit(static_cast<unsigned char>(name[digits]))) ++digits;
  if (digits == 0 || (digits < name.size() && name[digits] != '-')) return std::nullopt;
  return std::stol(std::string(name.substr(0, digits)));
}

bool same_spec(std::string_view trailer, std::string_view name, const std::vector<std::string>& siblings) {
  if (trailer == name) return true;
  const auto a = spec_number(trailer), b = spec_number(name);
  if (!a || !b || *a != *b) return false;
  // Only the one directory of that number inherits its old names: with two (SPC-001-b and
  // SPC-001-c after SPC-001-a was renamed) nobody can tell whose the old commits are.
  return std::none_of(siblings.begin(), siblings.end(), [&](const std::string& s) { return spec_number(s) == b; });
}

} // namespace harness::spec
