#pragma once
// Internal: regex search of file contents, output and bodies, one line at a time.
//
// libstdc++'s std::regex recurses once per character a repetition consumes (GCC bug 86164):
// `.*x` on a 26 000-character line overflows an 8 MiB stack, `(a|b)*x` on 12 000 (fewer under
// ASan). So lines are searched one by one, on a thread with a stack sized for the longest line
// searched, and a line longer than that is never handed to std::regex.

#include <cstddef>
#include <string>
#include <string_view>

namespace harness::verify::detail {

/// The longest line searched with a regex; a longer one is searched as plain text when the
/// pattern has no regex metacharacters, else not at all.
inline constexpr std::size_t k_max_regex_line = 64 * 1024;

struct LineMatches {
  int count = 0;           ///< matches over the lines searched
  int unsearched_line = 0; ///< 1-based: the first line too long for the regex; 0 when none
  std::string error;       ///< the pattern is not a valid regex (or the search could not run)
};

/// Counts the matches of the ECMAScript regex `pattern` in `text`, each line searched on its own
/// (as grep does: `^` and `$` are the line's ends, a trailing '\r' is not part of the line).
LineMatches count_line_matches(std::string_view text, const std::string& pattern);

/// Why a search of `what` could not be answered: its line `m.unsearched_line` was too long.
std::string unsearched_message(const LineMatches& m, std::string_view what, const std::string& pattern);

} // namespace harness::verify::detail
