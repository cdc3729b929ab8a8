#pragma once
// The sessions an earlier run left "running" whose worker process is gone (the run was killed, lost
// its terminal, or its store could not record their end): the next run says what became of them by what their workers reported,
// rather than call finished work failed.

#include "harness/store/store.hpp"

#include <string>
#include <vector>

namespace harness::orchestrator {

/// The start note for `ended` (store::recover's failed_sessions), counting by the reports in
/// `messages` (the store's, with the session files ingested): those that reported their task done,
/// those that reported failure, and those that ended without a report. Their commits stand either
/// way, and the run checks what they left. Empty when `ended` is. `unrecorded_because`: the store
/// error of an earlier run that watched its sessions end but could not record it (its
/// store_failed_file); empty: no orchestrator watched them.
std::string ended_sessions_note(const std::vector<std::string>& ended, const std::vector<store::MessageRecord>& messages,
                                const std::string& unrecorded_because = {});

/// The file (in the state directory) where a run whose store failed leaves the store's error at
/// its end, for the next run's ended_sessions_note; that run removes it.
inline constexpr const char* store_failed_file = "store-failed.txt";

} // namespace harness::orchestrator
