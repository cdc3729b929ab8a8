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
  return a && b && *a == *b && std::find(siblings.begin(), siblings.end(), trailer) == siblings.end();
}

} // namespace harness::spec
