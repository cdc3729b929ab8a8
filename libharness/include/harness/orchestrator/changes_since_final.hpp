#pragma once
// A spec whose final verification holds is done: `orchestrate` runs nothing and says complete.
// Its documents cannot show what changed in git since that report was written (a plan's files
// edited by hand, a PLAN's checks changed), which `verify` would judge differently; the run says
// so at its start instead of finishing without a word.

#include "harness/spec/spec.hpp"

#include <string>
#include <vector>

namespace harness::orchestrator {

/// What changed since the final verification was written, a phrase each ("the files the plans
/// write (its work_hash no longer matches)", "01-02-PLAN.md changed since it was committed"):
/// empty when nothing did, or when the final verification does not hold (the run verifies then).
/// Reads git (the report's last commit, the PLAN files' diff since) and hashes the plans' files.
std::vector<std::string> changes_since_final(const spec::Spec& spec);

} // namespace harness::orchestrator
