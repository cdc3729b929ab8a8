#pragma once
// Internal: the few fixed text shapes the Markdown scanners look for, matched by hand because
// std::regex costs more to build than a whole plan costs to parse.

#include "harness/spec/phase_number.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace harness::spec::detail {

/// "Task 2: Name" (also "Task 2 - Name", "task 2.") → the name (the whole text when no name follows).
std::optional<std::string> task_heading_name(std::string_view text);

/// "Phase 02.1: Name" or "Phase 3 - Name" → (number, name).
std::optional<std::pair<PhaseNumber, std::string>> phase_heading(std::string_view text);

/// The text between `<tag>` and `</tag>` (trimmed), searching from `from`.
std::optional<std::string> element_text(std::string_view text, std::string_view tag, size_t from = 0);

/// Every phase number mentioned in `text` ("Phase 1, Phase 02.1" → {1, 2.1}).
std::vector<PhaseNumber> phase_numbers_in(std::string_view text);

} // namespace harness::spec::detail
