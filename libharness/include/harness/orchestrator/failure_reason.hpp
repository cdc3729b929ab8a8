#pragma once
// Why a worker's attempt failed, in one line for the run's events, STATUS.md and
// `harness-cli status`: the worker's own words first (its task_failed report), then what its
// process and its agent CLI showed, and where its whole output is.

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>

namespace harness::orchestrator {

/// What is known about a worker attempt when its process has ended.
struct AttemptEnd {
  int exit_code = 0;         ///< the process's exit status; 0 for a clean exit
  int signal = 0;            ///< the signal that killed it; 0 when none
  std::string reported;      ///< the error of its task_failed report (MCP, or result.json of the file transport)
  std::string agent_failure; ///< what an agent CLI's own events say went wrong (claude, codex)
  std::string finding;       ///< what the harness found undone after a clean exit (no SUMMARY, no task_completed)
  std::string refused_tools; ///< tools an agent CLI refused to run: "Bash (2x), Write"
  std::string output_tail;   ///< the last lines of its output
  std::string log_path;      ///< its output log, relative to the project root
  std::string log_error;     ///< why that log misses output (a full disk), else empty
};

/// At most this many bytes of each text a worker supplied go into a reason.
inline constexpr std::size_t worker_text_limit = 240;

/// "exited 1: the worker reported task_failed: Task 2/3: test failed: a shell block exited 3
/// (log: .orchestration/sessions/<id>/output.log)", or empty when the attempt did not fail (a
/// clean exit with no report, agent failure or finding). After a non-zero exit without a report,
/// the last line of output that is not a JSON event says what the process said last. One line,
/// bounded: each worker-supplied part is cut to worker_text_limit.
std::string failure_reason(const AttemptEnd& end);

/// True when a worker could not be started for want of something the machine lends (descriptors:
/// EMFILE, ENFILE; processes or memory: EAGAIN, ENOMEM), as the errno of its start error says
/// (WorkerHost::start). Others' ending may free it: the retry waits a little (start_retry_pause)
/// instead of meeting the same limit at once.
bool out_of_resources(int error_number);

/// How long a worker start that failed out_of_resources holds its slot before its failure (and
/// so its retry) comes.
inline constexpr std::chrono::seconds start_retry_pause{2};

/// `text` as one line of valid UTF-8: lines trimmed and joined with "; ", control characters
/// and invalid bytes dropped, cut at a character boundary to at most `limit` bytes ("..." ends a
/// cut text).
std::string one_line(std::string_view text, std::size_t limit);

/// The last line of `output` that says something: not blank and not a JSON object (an agent
/// CLI's event), trimmed; empty when there is none.
std::string last_said_line(std::string_view output);

} // namespace harness::orchestrator
