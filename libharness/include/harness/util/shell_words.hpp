#pragma once
// Splitting a command string into argv the way a POSIX shell splits words, without a shell.

#include <expected>
#include <string>
#include <string_view>
#include <vector>

namespace harness::util {

/// Splits `text` into words: blanks separate words; '...' keeps everything literally; "..." keeps
/// blanks and honours backslash before $ ` " \ and newline; a backslash outside quotes escapes the
/// next character. No expansion of any kind happens (no $VAR, no globs, no ~). An unterminated
/// quote or a trailing backslash is an error naming the column.
std::expected<std::vector<std::string>, std::string> split_shell_words(std::string_view text);

/// Quotes one word so that split_shell_words (and a POSIX shell) gives it back unchanged.
std::string quote_shell_word(std::string_view word);

} // namespace harness::util
