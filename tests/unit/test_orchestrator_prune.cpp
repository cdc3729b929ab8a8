// `harness-cli prune`'s decision (pure) and the session id format it reads runs from. The
// removal itself runs against real runs' directories in tests/integration/test_prune.sh.
#include "harness/orchestrator/prune.hpp"
#include "harness/orchestrator/session_id.hpp"
#include "spec_test_util.hpp"

#include <catch2/catch.hpp>

#include <algorithm>

using harness::orchestrator::decide_prune;
using harness::orchestrator::prune_hint;
using harness::orchestrator::PruneEntry;
using harness::orchestrator::PruneKeep;
using harness::orchestrator::run_of_session_id;
using harness::orchestrator::session_id;

namespace {

PruneEntry entry(std::string name, std::string run, std::string when) {
  PruneEntry e;
  e.name = std::move(name);
  e.run = std::move(run);
  e.when = std::move(when);
  e.known = true;
  return e;
}

PruneKeep keep_of(const std::vector<PruneEntry>& entries, const std::string& name) {
  auto it = std::ranges::find(entries, name, &PruneEntry::name);
  REQUIRE(it != entries.end());
  return it->keep;
}

} // namespace

TEST_CASE("a session id carries its run, and only an id of that shape gives one", "[orchestrator][prune]") {
  CHECK(session_id("execute:01-02", 1, "3f9c2e") == "execute-01-02-a1-3f9c2e");
  CHECK(session_id("verify-phase:02.1", 2, "00aa11", 3) == "verify-phase-02.1-a2-00aa11-r3");
  CHECK(run_of_session_id(session_id("execute:01-02", 1, "3f9c2e")) == "3f9c2e");
  CHECK(run_of_session_id(session_id("plan:03", 12, "abcdef", 2)) == "abcdef");
  CHECK(run_of_session_id("execute-01-02-a1-3F9C2E").empty()); // run ids are lower-case hex
  CHECK(run_of_session_id("my-notes").empty());
  CHECK(run_of_session_id("a1-3f9c2e").empty()); // no task before the attempt
  CHECK(run_of_session_id("execute-01-02-x1-3f9c2e").empty());
  CHECK(run_of_session_id("execute-01-02-a1-").empty());
  CHECK(run_of_session_id("").empty());
}

TEST_CASE("prune keeps the newest runs whole and what may still matter of older ones", "[orchestrator][prune]") {
  std::vector<PruneEntry> entries{
      entry("old-done", "aaaaaa", "2026-01-01T00:00:00Z"),
      entry("old-failed-last", "aaaaaa", "2026-01-01T00:00:01Z"),
      entry("old-running", "aaaaaa", "2026-01-01T00:00:02Z"),
      entry("old-asking", "aaaaaa", "2026-01-01T00:00:03Z"),
      entry("mid-done", "bbbbbb", "2026-02-01T00:00:00Z"),
      entry("new-done", "cccccc", "2026-03-01T00:00:00Z"),
      entry("new-failed", "cccccc", "2026-03-01T00:00:01Z"),
      entry("foreign", "", ""),
  };
  entries[1].last_failure = true;
  entries[2].running = true;
  entries[3].waiting = true;
  entries[6].last_failure = true;
  entries[7].known = false;

  CHECK(decide_prune(entries, 1) == 3);
  CHECK(keep_of(entries, "old-done") == PruneKeep::none);
  CHECK(keep_of(entries, "old-failed-last") == PruneKeep::last_failure);
  CHECK(keep_of(entries, "old-running") == PruneKeep::running);
  CHECK(keep_of(entries, "old-asking") == PruneKeep::waiting);
  CHECK(keep_of(entries, "mid-done") == PruneKeep::none);
  CHECK(keep_of(entries, "new-done") == PruneKeep::recent_run);
  CHECK(keep_of(entries, "new-failed") == PruneKeep::recent_run);
  CHECK(keep_of(entries, "foreign") == PruneKeep::unknown);

  // Runs are ordered by their newest directory, not by id: bbbbbb is the second newest.
  decide_prune(entries, 2);
  CHECK(keep_of(entries, "mid-done") == PruneKeep::recent_run);
  CHECK(keep_of(entries, "old-done") == PruneKeep::none);

  // 0 keeps no run whole; a negative count is 0.
  for (int keep_runs : {0, -3}) {
    decide_prune(entries, keep_runs);
    CHECK(keep_of(entries, "new-done") == PruneKeep::none);
    CHECK(keep_of(entries, "new-failed") == PruneKeep::last_failure);
    CHECK(keep_of(entries, "old-running") == PruneKeep::running);
  }
  // More runs asked than there are: everything known stays.
  decide_prune(entries, 10);
  CHECK(std::ranges::none_of(entries, [](const PruneEntry& e) { return e.keep == PruneKeep::none; }));
}

TEST_CASE("a run is as new as its newest directory", "[orchestrator][prune]") {
  // The run's `when` is its newest directory's: an old run's one late-answered checkpoint makes
  // the whole run recent, which keeps more, never less.
  std::vector<PruneEntry> entries{entry("a", "aaaaaa", "2026-01-01T00:00:00Z"), entry("b", "aaaaaa", "2026-05-01T00:00:00Z"),
                                  entry("c", "bbbbbb", "2026-03-01T00:00:00Z")};
  decide_prune(entries, 1);
  CHECK(keep_of(entries, "a") == PruneKeep::recent_run);
  CHECK(keep_of(entries, "c") == PruneKeep::none);
}

TEST_CASE("a run's start points at prune once the session directories pile up", "[orchestrator][prune]") {
  harness::test::TempDir dir;
  const auto state = dir.path / ".orchestration";
  CHECK(prune_hint(state, 2).empty()); // no sessions/ at all
  std::filesystem::create_directories(state / "sessions" / "a");
  CHECK(prune_hint(state, 2).empty());
  std::filesystem::create_directories(state / "sessions" / "b");
  CHECK(prune_hint(state, 2) == ".orchestration/sessions/ holds 2 directories of earlier sessions: `harness-cli prune` "
                                "removes old runs' (`--dry-run` shows which)");
}
