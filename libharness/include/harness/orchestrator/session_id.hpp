#pragma once
// A worker session's id, which is also its directory under `.orchestration/sessions/`:
// "execute-01-02-a1-3f9c2e" is attempt 1 of execute:01-02 in the run whose id is 3f9c2e; a task
// reopened in the same run gets "-r2", "-r3". The format is made and read here only, so that
// what reads a run back out of an id (prune) cannot drift from what writes it.

#include <string>
#include <string_view>

namespace harness::orchestrator {

/// The id of attempt `attempt` of `task` ("execute:01-02") in run `run_id`; `use` > 1 for the
/// n-th session of the same attempt in one run (a task reopened by harness_start_session).
std::string session_id(std::string_view task, int attempt, std::string_view run_id, int use = 1);

/// The run id a session id carries ("3f9c2e"); empty when `id` does not have the shape
/// session_id() gives it (a directory of another tool, or of a harness before run ids).
std::string run_of_session_id(std::string_view id);

} // namespace harness::orchestrator
