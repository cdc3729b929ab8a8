#include "output_clue.hpp"

#include "harness/util/redact.hpp"
#include "harness/util/text.hpp"

namespace harness::verify::detail {
namespace {

/// Whether `line` says what failed, as test runners and compilers write it: an error word before
/// its first ':' (`AssertionError: x`, `E   ModuleNotFoundError: x`, `src/a.c:3:1: error: x`,
/// `error[E0308]: x`, `AssertionError [ERR_ASSERTION]: x`), go's `--- FAIL:`, a Rust panic, jest's
/// `●` heading. Summaries that only count (`FAILED (failures=1)`, `1 error generated.`) do not.
bool names_an_error(std::string_view line) {
  if (line.starts_with("--- FAIL") || line.find("panicked at") != std::string_view::npos || line.starts_with("\xe2\x97\x8f "))
    return true;
  for (auto colon = line.find(':'); colon != std::string_view::npos; colon = line.find(':', colon + 1)) {
    const auto head = line.substr(0, colon);
    for (const std::string_view word : {"Error", "error", "ERROR"})
      for (auto at = head.find(word); at != std::string_view::npos; at = head.find(word, at + 1)) {
        // The word, or a word ending in it (`AssertionError`), followed by its end, `[` or ` [`.
        const auto after = at + word.size();
        if (after == head.size() || head[after] == '[' || head[after] == ' ') return true;
      }
  }
  return false;
}

} // namespace

std::string output_clue(std::string_view output, std::size_t limit) {
  // The first line naming an error: the cause, before what follows from it (gcc's later errors,
  // cargo's "error: test failed, to rerun ..."). Else the last line that says anything.
  std::string_view last, error;
  while (!output.empty()) {
    const auto nl = output.find('\n');
    const auto line = util::trim_space(output.substr(0, nl));
    output = nl == std::string_view::npos ? std::string_view() : output.substr(nl + 1);
    if (line.empty()) continue;
    last = line;
    if (error.empty() && names_an_error(line)) error = line;
  }
  // It goes into STATUS.md and VERIFICATION.md, which are committed: no secret of this
  // environment that the command printed (review QQ F1).
  auto clue = util::redact_environment_secrets(util::printable(error.empty() ? last : error, false));
  if (clue.size() > limit) clue = std::string(util::utf8_prefix(clue, limit > 3 ? limit - 3 : 0)) + "...";
  return clue;
}

} // namespace harness::verify::detail
