#pragma once
// Where harness puts files it takes out of the user's way instead of deleting them: a retry's
// reset declared files, a killed planner's half-written PLANs.

#include <string>
#include <string_view>

namespace harness::util {

/// `.orchestration/discarded/<spec>/<what>-<UTC stamp>-<pid>` (relative to the project root): a
/// new name per process and second, so an earlier set-aside is never overwritten.
std::string new_discarded_dir(std::string_view spec_name, std::string_view what);

} // namespace harness::util
