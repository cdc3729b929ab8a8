// Why an attempt failed, as the run's events, STATUS.md and `harness-cli status` say it: the
// worker's own reason, not just its exit code, on one bounded line with the log's place.
#include "harness/orchestrator/failure_reason.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>

using namespace harness;
using orchestrator::AttemptEnd;
using orchestrator::failure_reason;

namespace {
const std::string log_file = ".orchestration/sessions/execute-01-02-a1-abc/output.log";
}

TEST_CASE("a non-zero exit carries the worker's task_failed report and the log", "[orchestrator][failure]") {
  AttemptEnd e;
  e.exit_code = 1;
  e.reported = "Task 2/3: test failed: a shell block exited 3";
  e.output_tail = "harness-cli: script-worker: Task 2/3: test failed: a shell block exited 3\n";
  e.log_path = log_file;
  CHECK(failure_reason(e) == "exited 1: the worker reported task_failed: Task 2/3: test failed: a shell block exited 3 (log: " +
                                 log_file + ")");
}

TEST_CASE("a log that could not be written is said, with what the worker printed last", "[orchestrator][failure]") {
  // Review II F9: on a full disk the log was empty and the reason said nothing of the disk.
  AttemptEnd e;
  e.exit_code = 1;
  e.reported = "Task 1/1: a shell block exited 1";
  e.output_tail = "mkdir: cannot create directory 'out': No space left on device\nharness-cli: script-worker: Task 1/1: a shell block exited 1\n";
  e.log_path = log_file;
  e.log_error = "No space left on device";
  const auto why = failure_reason(e);
  CHECK(why.starts_with("exited 1: the worker reported task_failed: Task 1/1: a shell block exited 1 (its log " + log_file +
                        " could not be written: No space left on device; its output ends: "));
  CHECK(why.find("(log: ") == std::string::npos);
}

TEST_CASE("a worker that failed without a report is described by the last thing it printed", "[orchestrator][failure]") {
  AttemptEnd e;
  e.exit_code = 127;
  e.output_tail = "starting\nmy-agent: error: no API key in MY_AGENT_KEY\n\n";
  e.log_path = log_file;
  CHECK(failure_reason(e) == "exited 127: its output ends: my-agent: error: no API key in MY_AGENT_KEY (log: " + log_file + ")");
  // an agent's JSON events are not what it said; its own failure comes first
  e.output_tail = "Error: connection refused\n{\"type\":\"system\",\"subtype\":\"init\"}\n";
  e.agent_failure = "the agent's event stream ended without a result";
  CHECK(failure_reason(e) ==
        "exited 127: the agent's event stream ended without a result; its output ends: Error: connection refused (log: " + log_file + ")");
  e = AttemptEnd{};
  e.signal = 11;
  CHECK(failure_reason(e) == "killed by signal 11");
}

TEST_CASE("a clean exit fails only with a report, an agent failure or a finding", "[orchestrator][failure]") {
  AttemptEnd e;
  e.log_path = log_file;
  e.output_tail = "all fine\n";
  e.refused_tools = "Bash";
  CHECK(failure_reason(e).empty());
  e.finding = "task reported done but wrote no SUMMARY";
  CHECK(failure_reason(e) == "task reported done but wrote no SUMMARY; the agent was refused Bash (log: " + log_file + ")");
  e.reported = "cannot reach the database";
  CHECK(failure_reason(e) == "the worker reported task_failed: cannot reach the database; the agent was refused Bash (log: " +
                                 log_file + ")");
}

TEST_CASE("a reason stays one line and bounded whatever the worker wrote", "[orchestrator][failure]") {
  AttemptEnd e;
  e.exit_code = 1;
  e.reported = "plan 01-02 does not validate:\n  PLAN.md:3:1: error[H012]: bad\r\n\n\tsecond\x01 line\n" + std::string(5000, 'x');
  e.log_path = log_file;
  const auto why = failure_reason(e);
  CHECK(why.find('\n') == std::string::npos);
  CHECK(why.find('\r') == std::string::npos);
  CHECK(why.find('\t') == std::string::npos);
  CHECK(why.find('\x01') == std::string::npos);
  CHECK(why.starts_with("exited 1: the worker reported task_failed: plan 01-02 does not validate:; PLAN.md:3:1: error[H012]: bad; second line; xxx"));
  CHECK(why.ends_with("xxx... (log: " + log_file + ")"));
  CHECK(why.size() < 400);
}

TEST_CASE("one_line keeps valid UTF-8 and cuts between characters", "[orchestrator][failure]") {
  CHECK(orchestrator::one_line("  a\n\n b  \n", 100) == "a; b");
  CHECK(orchestrator::one_line("caf\xc3\xa9 \xff\xfe ok", 100) == "caf\xc3\xa9  ok"); // invalid bytes dropped
  CHECK(orchestrator::one_line("\xed\xa0\x80 surrogate", 100) == "surrogate");
  const std::string euros = "\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac"; // 4 x 3 bytes
  CHECK(orchestrator::one_line(euros, 10) == "\xe2\x82\xac\xe2\x82\xac...");
  CHECK(orchestrator::one_line(euros, 12) == euros);
  CHECK(orchestrator::last_said_line("one\ntwo\n{\"type\":\"result\"}\n  \n") == "two");
  CHECK(orchestrator::last_said_line("{}\n").empty());
  // What a worker printed goes into STATUS.md: a secret of this environment is masked (review QQ F1).
  ::setenv("HARNESS_TEST_API_KEY", "sk-test-0123456789", 1);
  CHECK(orchestrator::last_said_line("curl -H 'x-api-key: sk-test-0123456789' failed\n") ==
        "curl -H 'x-api-key: [$HARNESS_TEST_API_KEY]' failed");
  ::unsetenv("HARNESS_TEST_API_KEY");
}

TEST_CASE("a worker that could not start for want of descriptors or processes is out of resources; others are not",
          "[orchestrator][failure][descriptors]") {
  using orchestrator::out_of_resources;
  CHECK(out_of_resources(EMFILE));
  CHECK(out_of_resources(EAGAIN));
  CHECK(out_of_resources(ENFILE));
  CHECK(out_of_resources(ENOMEM));
  CHECK_FALSE(out_of_resources(0)); // no system call failed: "claude: not found on PATH"
  CHECK_FALSE(out_of_resources(EACCES));
  CHECK(orchestrator::start_retry_pause >= std::chrono::seconds(1)); // no two attempts in the same 10 ms
}
