#pragma once
// Internal: telling a typo of a known key from a key nobody knows. An unknown key is ignored
// with a warning (H014), but a misspelt `expects` or `must_pass` would silently weaken a
// verification gate, so a key one or two keystrokes from a known one is an error instead (H026).

#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace harness::spec::detail {

/// Edits (insert, delete, substitute, swap of neighbours) between two keys, compared
/// case-insensitively with '-' read as '_'.
std::size_t key_distance(std::string_view a, std::string_view b);

/// The known key `key` is most likely a typo of: within 1 edit (2 for keys of 6 or more
/// characters). Nothing when `key` is itself known or is far from all of them.
std::optional<std::string> near_miss(std::string_view key, const std::set<std::string, std::less<>>& known);

} // namespace harness::spec::detail
