#pragma once
// Splitting a command string into argv the way a POSIX shell splits words, without a shell.

#include <expected>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace harness::util {

/// Splits `text` into words: blanks separate words; '...' keeps everything literally; "..." keeps
/// blanks and honours backslash before $ ` " \ and newline; a backslash outside quotes escapes the
/// next character. No expansion of any kind happens (no $VAR, no globs, no ~). An unterminated
/// quote or a trailing backslash is an error naming the column.
std::expected<std::vector<std::string>, std::string> split_shell_words(std::string_view text);

/// Shell syntax that split_shell_words keeps as plain text, where a shell would act on it.
struct ShellSyntax {
  enum class Kind { operator_, expansion, assignment, glob };
  Kind kind;
  std::string text; ///< as written: "&&", "|", ";", "2>&1", ">", "$HOME", "$(", "`", "~", "FOO=1", "src/*.js"
};

/// The first shell syntax in `text` that a shell would act on: an unquoted, unescaped operator
/// (`&&`, `||`, `|`, `;`, a redirection `>`, `>>`, `<`, `2>&1`, `&` before or after a blank), an
/// expansion (`$NAME`, `${`, `$(`, `$?`, a backquote: unquoted or inside "..."; a `~` that starts
/// a word), a word with an unquoted `*` (a file pattern; not in a URL), or a leading `NAME=value`
/// assignment. nullopt when there is none, and for text split_shell_words rejects. Meant to warn
/// about a command written for a shell but run without one, so it errs on the quiet side: nothing
/// inside '...' counts, nor a `&` inside a word (a URL's query string), nor `?` and `[`.
std::optional<ShellSyntax> find_shell_syntax(std::string_view text);

/// Quotes one word so that split_shell_words (and a POSIX shell) gives it back unchanged.
std::string quote_shell_word(std::string_view word);

} // namespace harness::util
