// Sessions an earlier run never saw end: the next run's note says what their workers reported,
// so finished work does not read as lost.
#include "harness/orchestrator/ended_sessions.hpp"

#include <catch2/catch.hpp>

using harness::orchestrator::ended_sessions_note;
using harness::store::MessageRecord;

namespace {

MessageRecord report(const std::string& session, const std::string& type) {
  MessageRecord m;
  m.session_id = session;
  m.type = type;
  return m;
}

} // namespace

TEST_CASE("ended sessions are counted by what their workers reported", "[orchestrator][recovery]") {
  CHECK(ended_sessions_note({}, {}).empty());
  CHECK(ended_sessions_note({"s1"}, {report("s1", "task_progress"), report("s1", "task_completed")}) ==
        "1 session of an earlier run ended while no orchestrator watched: it reported its task done; its commits "
        "stand, and this run checks what it left (a task without its commit runs again)");
  CHECK(ended_sessions_note({"s1", "s2"}, {report("s1", "task_completed"), report("s2", "task_completed")})
            .starts_with("2 sessions of an earlier run ended while no orchestrator watched: both reported their tasks done;"));
  const auto mixed = ended_sessions_note({"s1", "s2", "s3", "s4"}, {report("s1", "task_completed"), report("s2", "task_failed"),
                                                                    report("other", "task_failed")});
  CHECK(mixed.starts_with("4 sessions of an earlier run ended while no orchestrator watched: 1 reported its task done, 1 "
                          "reported failure, 2 ended without a report;"));
  CHECK(ended_sessions_note({"s1"}, {}).find(": it ended without a report;") != std::string::npos);
  // The earlier run watched them end and could not record it: said so, not "no orchestrator watched".
  CHECK(ended_sessions_note({"s1"}, {report("s1", "task_completed")}, "store: database is locked")
            .starts_with("1 session of an earlier run ended unrecorded: the earlier run's store failed (store: database is "
                         "locked): it reported its task done;"));
}
