#pragma once
// The commits GSD v1's executor makes for a plan: `feat(01-02): add the parser`, one per task,
// and `docs(01-02): complete ... plan` for its SUMMARY; no trailers. A GSD project that GSD
// itself executed before harness ran it has only these, and its plans' work is in them.

#include <string>
#include <string_view>
#include <vector>

namespace harness::worker {

/// The plan id of a GSD commit subject, `type(NN-MM): text` with a lowercase type ("feat",
/// "test", "docs", ...) and a plan id of digits (a decimal phase too: `02.1-01`); empty when the
/// subject is not one (`docs(phase-01): ...`, `feat: x`, `feat(api): x`).
std::string plan_of_gsd_subject(std::string_view subject);

/// `(01-01|02\.1-03)`: a POSIX extended group matching exactly these plan ids.
std::string plan_id_group(const std::vector<std::string>& plan_ids);

/// A `git log -E --grep` pattern matching the subject lines of GSD commits for these plan ids, and
/// only those ids: git then lists far fewer commits than the whole history.
std::string gsd_subject_pattern(const std::vector<std::string>& plan_ids);

} // namespace harness::worker
