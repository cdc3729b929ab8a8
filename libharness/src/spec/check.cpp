#include "harness/spec/check.hpp"
#include "harness/spec/documents.hpp"

#include <array>
#include <utility>

namespace harness::spec {
namespace {

constexpr std::array<std::pair<CheckType, std::string_view>, 10> k_check_names = {{
    {CheckType::file_exists, "file_exists"},
    {CheckType::file_contains, "file_contains"},
    {CheckType::command_output, "command_output"},
    {CheckType::api_response, "api_response"},
    {CheckType::build_succeeds, "build_succeeds"},
    {CheckType::tests_pass, "tests_pass"},
    {CheckType::ui_element_exists, "ui_element_exists"},
    {CheckType::ui_navigation, "ui_navigation"},
    {CheckType::visual_quality, "visual_quality"},
    {CheckType::ux_flow, "ux_flow"},
}};

} // namespace

std::string_view to_string(CheckType t) {
  for (auto [type, name] : k_check_names)
    if (type == t) return name;
  return "file_exists";
}

std::optional<CheckType> parse_check_type(std::string_view name) {
  for (auto [type, n] : k_check_names)
    if (n == name) return type;
  return std::nullopt;
}

bool is_human(CheckType t) { return t == CheckType::visual_quality || t == CheckType::ux_flow; }

std::string answered_by(const HumanAnswer& a) {
  return a.by + (a.at.empty() ? "" : " at " + a.at) + (a.note.empty() ? "" : ": " + a.note);
}

std::string_view to_string(VerificationStatus s) {
  switch (s) {
  case VerificationStatus::passed: return "passed";
  case VerificationStatus::gaps_found: return "gaps_found";
  case VerificationStatus::human_needed: return "human_needed";
  }
  return "passed";
}

std::optional<VerificationStatus> parse_verification_status(std::string_view s) {
  if (s == "passed") return VerificationStatus::passed;
  if (s == "gaps_found") return VerificationStatus::gaps_found;
  if (s == "human_needed") return VerificationStatus::human_needed;
  return std::nullopt;
}

bool uses_port_placeholder(const Check& c) {
  auto mentions = [](const std::string& s) { return s.find(k_port_placeholder) != std::string::npos; };
  bool any = mentions(c.url) || mentions(c.endpoint) || (c.ready_url && mentions(*c.ready_url)) ||
             (c.expects.url && mentions(*c.expects.url));
  for (const auto& a : c.start.argv) any |= mentions(a);
  for (const auto& s : c.steps) any |= mentions(s.value);
  return any;
}

} // namespace harness::spec
