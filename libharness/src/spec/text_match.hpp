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

/// The phases a ROADMAP `Depends on` value names, and what in it could not be read.
struct PhaseList {
  std::vector<PhaseNumber> numbers;
  std::string unread; ///< why the value, or a part of it, names no phase the reader takes; "" when fine
};

/// A `Depends on` value's phases: the numbers after "Phase"/"Phases" and the list that continues
/// them ("Phases 1, 2 and 4", "Phase 1, Phase 3", "Phase 2 & 3"), or a value that is only such a
/// list ("1, 2"). Text in parentheses and other numbers in prose name nothing ("Phase 1 (the 2
/// endpoints)" is {1}). "Nothing", "None" and an empty value name no phase and are fine; any other
/// value that names none ("the API phase", "Phase one"), and a range ("Phases 1-3"), are unread.
PhaseList phase_list(std::string_view text);

} // namespace harness::spec::detail
