#pragma once
// Text that came from outside (plan files, worker output, a user's --reason) made safe to print
// on a terminal and to put in a commit subject: valid UTF-8 without control characters.

#include <cstddef>
#include <string>
#include <string_view>

namespace harness::util {

/// Length of the valid UTF-8 sequence starting at `s[i]`, or 0 for an invalid byte (overlong
/// forms and surrogates included).
std::size_t utf8_length(std::string_view s, std::size_t i);

/// True when all of `text` is valid UTF-8 (by `utf8_length`).
bool valid_utf8(std::string_view text);

/// `text` as valid UTF-8 without control characters: line breaks ('\n', '\r') become '\n' when
/// `keep_newlines`, else a blank; a tab becomes a blank; other control characters (ESC, BEL,
/// NUL, DEL) and invalid bytes are dropped.
std::string printable(std::string_view text, bool keep_newlines);

/// True when `text` holds a control character (below 0x20, or DEL): no name git, a shell or a
/// one-line message takes as it is.
bool has_control_character(std::string_view text);

/// `text` with its control characters written as escapes (`\n`, `\t`, `\x1b`): a name shown in
/// a one-line diagnostic with what is wrong with it visible.
std::string escape_controls(std::string_view text);

/// `text` without the white space (std::isspace) at either end.
std::string_view trim_space(std::string_view text);

/// `text` cut to at most `max_bytes` at a character boundary, with " ... (N more bytes)" after it
/// when cut: a worker's message is shown on one line, however long it made it.
std::string clipped(std::string_view text, std::size_t max_bytes);

/// The longest prefix of `text` of at most `max_bytes` that ends at a character boundary (a byte
/// cut, `substr(0, n)`, could split a character and leave invalid UTF-8 in a document).
std::string_view utf8_prefix(std::string_view text, std::size_t max_bytes);

/// Terminal columns `text` (valid UTF-8, as `printable` gives) takes: East Asian wide and
/// fullwidth characters and emoji take two, combining marks none, everything else one.
std::size_t display_width(std::string_view text);

/// `text` in exactly `columns` terminal columns for a table cell: cut at a character boundary
/// with a trailing "…" when wider, padded with blanks when narrower. fmt's `{:<N}` pads by its
/// own width estimate but a byte-wise cut (`substr`) could split a character.
std::string fit_columns(std::string_view text, std::size_t columns);

} // namespace harness::util
