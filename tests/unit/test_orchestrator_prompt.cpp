#include "harness/util/atomic_file.hpp"
#include "harness/worker/prompt.hpp"

#include <catch2/catch.hpp>

// The shipped worker prompt must render with exactly the values the orchestrator provides and
// name every protocol step and tool the worker needs.
TEST_CASE("skills/templates/worker-prompt.md renders with the orchestrator's values and teaches the protocol") {
  auto tmpl = harness::util::read_file(HARNESS_SOURCE_DIR "/skills/templates/worker-prompt.md");
  REQUIRE(tmpl);
  auto text = harness::worker::render_template(*tmpl, {{"session_id", "s1"},
                                                       {"task_id", "execute:01-01"},
                                                       {"task_json", "{}"},
                                                       {"task_kind", "execute"},
                                                       {"spec_dir", "/p/docs/specs/SPC-001-x"},
                                                       {"subject", "01-01"},
                                                       {"adapter", "command"}});
  REQUIRE(text);
  CHECK(text->find("{{") == std::string::npos);
  for (const char* needle : {"harness_worker_report", "harness_worker_await", "session_ready", "task_started",
                             "progress_update", "decision_needed", "verification_needed", "action_needed",
                             "task_completed", "task_failed", "Plan: <plan>, Task: <i>/<n>", "Spec:",
                             R"("adapter": "command")", R"("answered": false)"})
    CHECK(text->find(needle) != std::string::npos);
}
