#pragma once
// Internal: the line of a failed command's output that says why it failed, for the check's
// one-line message (review PP F1: "exit code 1 (expected 0)" was all the run, status and
// STATUS.md said; the test's own words were only in `verify --json`'s evidence).

#include <string>
#include <string_view>

namespace harness::verify::detail {

/// The first line of `output` naming an error (`AssertionError: ...`, `error: ...`,
/// `error[E0308]: ...`, `--- FAIL: ...`, a Rust panic, jest's `●`), else its last line that says
/// anything; trimmed, printable, with this environment's secrets masked
/// (util::redact_environment_secrets), at most `limit` bytes. Empty when the output is blank.
std::string output_clue(std::string_view output, std::size_t limit = 200);

} // namespace harness::verify::detail
