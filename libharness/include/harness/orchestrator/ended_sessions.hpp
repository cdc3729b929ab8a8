#pragma once
// The sessions an earlier run left "running" whose worker process is gone (the run was killed, or
// lost its terminal): the next run says what became of them by what their workers reported,
// rather than call finished work failed.

#include "harness/store/store.hpp"

#include <string>
#include <vector>

namespace harness::orchestrator {

/// The start note for `ended` (store::recover's failed_sessions), counting by the reports in
/// `messages` (the store's, with the session files ingested): those that reported their task done,
/// those that reported failure, and those that ended without a report. Their commits stand either
/// way, and the run checks what they left. Empty when `ended` is.
std::string ended_sessions_note(const std::vector<std::string>& ended, const std::vector<store::MessageRecord>& messages);

} // namespace harness::orchestrator
