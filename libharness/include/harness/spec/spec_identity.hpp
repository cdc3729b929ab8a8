#pragma once
// Which commits are a spec's. Commits carry the spec directory's name in a `Spec:` trailer, and
// plan ids repeat across specs, so the name is what tells two specs' 01-01 apart. A renamed
// directory (SPC-001-alpha -> SPC-001-alpha-v2) keeps its SPC number: its earlier commits are
// still its own, unless another spec directory of that number exists beside it (then names
// must match exactly).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace harness::spec {

/// The number of a spec directory name `SPC-<digits>` or `SPC-<digits>-<slug>`; nullopt for other names.
std::optional<long> spec_number(std::string_view name);

/// Whether a commit's `Spec:` trailer names the spec called `name`: the same name, or a name of
/// the same SPC number when no other directory of `siblings` (the spec directories beside it)
/// has that number (it would be that one's old name as much as ours).
bool same_spec(std::string_view trailer, std::string_view name, const std::vector<std::string>& siblings);

} // namespace harness::spec
