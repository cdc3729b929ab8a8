#pragma once
// What a phase's or the final verification looked at, as one hash: a person's approval of that
// verification holds only while the work is the same.

#include "harness/spec/spec.hpp"

#include <string>
#include <vector>

namespace harness::verify {

/// A hash (32 hex digits) of what the `files_modified` of `plans` hold in the repository: each
/// matching file's blob in git's index (its last commit, unless a change is staged), and the
/// content of each one that differs from it in the work tree (a change not committed, an
/// untracked file). A new commit touching those files, or an edit by hand, changes it. Empty
/// when git cannot say (not a repository): then nothing can be compared.
std::string work_hash(const spec::Spec& spec, const std::vector<std::string>& plans);

} // namespace harness::verify
