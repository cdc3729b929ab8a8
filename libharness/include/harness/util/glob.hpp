#pragma once
// Path globs as plans write them in files_modified / files_read: `*` and `?` within one path
// segment, `**` across segments, `[abc]`, `[a-z]`, `[!x]` character classes.

#include <optional>
#include <string>
#include <string_view>

namespace harness::util {

/// True when `path` (relative, '/'-separated) matches `pattern` or lies below a directory that
/// matches it (like a git pathspec: `app/tasks` covers `app/tasks/model.py`). Also like a git
/// pathspec, a path spelled exactly like the pattern matches it: `app/posts/[id]/page.tsx` names
/// that file although `[id]` is a character class too.
bool glob_match(std::string_view pattern, std::string_view path);

/// True when some path could match both patterns (as glob_match matches, literal spelling
/// included). Exact for literal paths, character classes and the common shapes (`dir/**`,
/// `*.ext`, literal prefixes); when unsure it answers true, because a false "no overlap" would
/// let two writers touch one file.
bool globs_overlap(std::string_view a, std::string_view b);

/// Why `pattern` is not a valid glob (empty, unbalanced `[`, `**` glued to other characters), or
/// nullopt when it is valid.
std::optional<std::string> glob_error(std::string_view pattern);

/// True when the pattern has no wildcard at all.
bool is_literal_glob(std::string_view pattern);

} // namespace harness::util
