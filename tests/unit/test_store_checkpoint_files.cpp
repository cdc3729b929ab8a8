// The orchestrator's checkpoint files: who reads an answer (the run that opened it, a later run, or
// nobody), what `respond` refuses and why, and that ingest never takes them for worker reports.
#include "harness/store/checkpoint_files.hpp"
#include "harness/store/run_lock.hpp"
#include "harness/store/state_dir.hpp"
#include "harness/util/atomic_file.hpp"
#include "test_store_support.hpp"

using namespace harness;
using namespace harness::store;
using store_test::TempDir;

namespace {

CheckpointRecord record(std::string id, std::string task, std::string run, CheckpointAsker asker) {
  CheckpointRecord r;
  r.id = std::move(id);
  r.task = std::move(task);
  r.spec = "SPC-001-x";
  r.question = "verification of 02-03: automated checks passed";
  r.run = std::move(run);
  r.asker = asker;
  r.opened_at = "2026-01-01T00:00:00Z";
  return r;
}

RunInfo running(std::string run_id, std::string spec = "docs/specs/SPC-001-x") {
  return RunInfo{1, std::move(spec), "t", std::move(run_id)};
}

} // namespace

TEST_CASE("a checkpoint's answer is read by its own run, a later run, or nobody", "[store][checkpoints]") {
  const auto mine = record("cp-1", "verify-plan:02-03", "aaa", CheckpointAsker::orchestrator);
  const auto workers = record("cp-2", "execute:01-01", "aaa", CheckpointAsker::worker);
  CHECK(checkpoint_status(mine, running("aaa")) == CheckpointStatus::waiting);
  CHECK(checkpoint_status(workers, running("aaa")) == CheckpointStatus::waiting);
  // Its run has ended (another runs, or none): the orchestrator asks the same again, a worker not.
  CHECK(checkpoint_status(mine, running("bbb")) == CheckpointStatus::carried_over);
  CHECK(checkpoint_status(mine, std::nullopt) == CheckpointStatus::carried_over);
  CHECK(checkpoint_status(workers, running("bbb")) == CheckpointStatus::stale);
  CHECK(checkpoint_status(workers, std::nullopt) == CheckpointStatus::stale);
  // Written before runs had ids: nothing says who would read it.
  CHECK(checkpoint_status(record("cp-3", "verify-plan:01-01", "", CheckpointAsker::orchestrator), running("")) ==
        CheckpointStatus::stale);
  auto closed = mine;
  closed.state = CheckpointState::answered;
  CHECK(checkpoint_status(closed, running("aaa")) == CheckpointStatus::answered);
  closed.state = CheckpointState::expired;
  CHECK(checkpoint_status(closed, std::nullopt) == CheckpointStatus::expired);
}

TEST_CASE("a worker's question kept for its task outlives its run, and says who gives the answer", "[store][checkpoints]") {
  // Its worker was stopped by the run while it waited (an interrupt): the question is the task's,
  // and the next run gives the answer to the task's next worker, as it carries its own over.
  TempDir dir;
  const auto state = dir.path / ".orchestration";
  auto kept = record("cp-w", "execute:01-01", "aaa", CheckpointAsker::worker);
  kept.question = "decision_needed: Which greeting?";
  kept.asks = CheckpointAsks::decision;
  kept.options = {"hello", "hi"};
  kept.message_id = "m-1";
  kept.kept_for_task = true;
  CHECK(checkpoint_status(kept, running("aaa")) == CheckpointStatus::waiting);
  CHECK(checkpoint_status(kept, running("bbb")) == CheckpointStatus::carried_over);
  CHECK(checkpoint_status(kept, std::nullopt) == CheckpointStatus::carried_over);
  REQUIRE(write_open_checkpoint(state, kept));
  const auto read = read_checkpoint(state, "cp-w");
  REQUIRE(read);
  CHECK(read->kept_for_task);
  CHECK(read->asker == CheckpointAsker::worker);
  auto views = pending_checkpoint_views(state);
  REQUIRE(views.size() == 1);
  CHECK(views[0].status == CheckpointStatus::carried_over);
  CHECK(views[0].hint ==
        "its worker was stopped while it waited; no orchestrate runs; the next one of SPC-001-x gives the answer to the "
        "next worker of execute:01-01");
  // An answer is taken, as for any carried-over checkpoint; the flag stays with the record.
  REQUIRE(answer_checkpoint(state, "cp-w", CheckpointAnswer{true, "", "t", "", "hi"}));
  CHECK(read_checkpoint(state, "cp-w")->answer->choice == "hi");
  // A worker's answer is not replaced, even with no run alive: the worker may have read it.
  auto replaced = answer_checkpoint(state, "cp-w", CheckpointAnswer{true, "", "t", "", "hello"}, Replace::yes);
  REQUIRE_FALSE(replaced);
  CHECK(replaced.error().message.ends_with("nothing replaces it: a worker may have read it already"));
  CHECK(read_checkpoint(state, "cp-w")->answer->choice == "hi");
  CHECK(read_checkpoint(state, "cp-w")->kept_for_task);
  // Without the flag, the question died with its worker, unless it was answered before the run
  // could pass the answer on (killed right after `respond`): the next worker gets it.
  kept.kept_for_task = false;
  REQUIRE(write_open_checkpoint(state, kept));
  const auto answered = read_checkpoint(state, "cp-w");
  REQUIRE(answered->answer);
  CHECK(checkpoint_status(*answered, std::nullopt) == CheckpointStatus::carried_over);
  auto unanswered = *answered;
  unanswered.answer.reset();
  CHECK(checkpoint_status(unanswered, std::nullopt) == CheckpointStatus::stale);
}

TEST_CASE("an orchestrator's checkpoint whose file names no spec is read by no later run", "[store][checkpoints]") {
  // Written by a harness before checkpoints named their spec: every spec has a verify-plan:01-01,
  // so a later run of any spec could take its answer for the wrong work. Its own run still reads it.
  auto old = record("cp-verify-plan-01-01-aaa-1", "verify-plan:01-01", "aaa", CheckpointAsker::orchestrator);
  old.spec.clear();
  CHECK(checkpoint_status(old, running("aaa")) == CheckpointStatus::waiting);
  CHECK(checkpoint_status(old, running("bbb")) == CheckpointStatus::stale);
  CHECK(checkpoint_status(old, std::nullopt) == CheckpointStatus::stale);
  CHECK(stale_reason(old).find("without naming its spec") != std::string::npos);
  CHECK(stale_reason(old).find("the next run of its spec asks again") != std::string::npos);
  TempDir dir;
  const auto state = dir.path / ".orchestration";
  REQUIRE(write_open_checkpoint(state, old));
  CHECK(pending_checkpoint_views(state).empty());
  auto refused = answer_checkpoint(state, old.id, {true, "", "", ""});
  REQUIRE_FALSE(refused);
  CHECK(refused.error().exit_code == 2);
  CHECK(refused.error().message.find("is stale: an older harness wrote it without naming its spec") != std::string::npos);
}

TEST_CASE("a starting run takes over only its own spec's checkpoints, asked about work its checkout holds", "[store][checkpoints]") {
  auto r = record("cp-SPC-001-x-verify-plan-01-01-aaa-1", "verify-plan:01-01", "aaa", CheckpointAsker::orchestrator);
  r.head = std::string(40, 'a');
  CHECK(carry_decision(r, "SPC-001-x", AskedCommit::in_history).action == CarryAction::take);
  CHECK(carry_decision(r, "SPC-001-x", AskedCommit::unknown).action == CarryAction::take); // as before commits were recorded
  // Another spec's verify-plan:01-01: neither taken nor expired, whatever git says.
  for (auto c : {AskedCommit::in_history, AskedCommit::unknown, AskedCommit::elsewhere, AskedCommit::gone})
    CHECK(carry_decision(r, "SPC-002-y", c).action == CarryAction::leave);
  // Asked on another branch: a run there takes it; this branch's 01-01 is other work.
  CHECK(carry_decision(r, "SPC-001-x", AskedCommit::elsewhere).action == CarryAction::leave);
  // No branch holds what it asked about: nobody can take it.
  const auto gone = carry_decision(r, "SPC-001-x", AskedCommit::gone);
  CHECK(gone.action == CarryAction::expire);
  CHECK(gone.why.find("commit aaaaaaaaaaaa, which no branch holds any more") != std::string::npos);
}

TEST_CASE("a carried-over checkpoint says which spec's run takes its answer, and for which commit", "[store][checkpoints]") {
  TempDir dir;
  const auto state = dir.path / ".orchestration";
  auto r = record("cp-a", "verify-plan:01-01", "aaa", CheckpointAsker::orchestrator);
  r.head = "0123456789abcdef0123456789abcdef01234567";
  REQUIRE(write_open_checkpoint(state, r));
  CHECK(read_checkpoint(state, "cp-a")->head == r.head);
  auto views = pending_checkpoint_views(state);
  REQUIRE(views.size() == 1);
  CHECK(views[0].hint ==
        "no orchestrate runs; the next one of SPC-001-x takes the answer when it reaches verify-plan:01-01 with commit "
        "0123456 in its history");
  {
    auto lock = RunLock::acquire(state, {0, "docs/specs/SPC-002-y", "", "bbb"}); // another spec runs
    REQUIRE(lock);
    views = pending_checkpoint_views(state);
    REQUIRE(views.size() == 1);
    CHECK(views[0].hint.starts_with("opened by an earlier run; the next orchestrate of SPC-001-x takes the answer"));
  }
  auto lock = RunLock::acquire(state, {0, "docs/specs/SPC-001-x", "", "ccc"});
  REQUIRE(lock);
  views = pending_checkpoint_views(state);
  REQUIRE(views.size() == 1);
  CHECK(views[0].hint.starts_with("opened by an earlier run; the running orchestrate takes the answer"));
}

TEST_CASE("a refused answer names the checkpoint waiting for the same task of the same spec only", "[store][checkpoints]") {
  TempDir dir;
  const auto state = dir.path / ".orchestration";
  auto old = record("cp-old", "verify-plan:01-01", "aaa", CheckpointAsker::orchestrator);
  auto other = record("cp-other", "verify-plan:01-01", "aaa", CheckpointAsker::orchestrator);
  other.spec = "SPC-002-y";
  REQUIRE(write_open_checkpoint(state, old));
  REQUIRE(write_open_checkpoint(state, other));
  expire_checkpoint(state, "cp-old", "its task was done without it");
  auto refused = answer_checkpoint(state, "cp-old", {true, "", "", ""});
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message.find("cp-other") == std::string::npos);
  CHECK(refused.error().message.find("no checkpoint of verify-plan:01-01 waits") != std::string::npos);
}

TEST_CASE("respond takes an answer for a carried-over checkpoint and refuses a stale one, naming the live one",
          "[store][checkpoints]") {
  TempDir dir;
  const auto state = dir.path / ".orchestration";
  // No orchestrate runs: a verification's checkpoint waits for the next run, a worker's is dead.
  REQUIRE(write_open_checkpoint(state, record("cp-verify", "verify-plan:02-03", "aaa", CheckpointAsker::orchestrator)));
  REQUIRE(write_open_checkpoint(state, record("cp-old", "execute:01-01", "aaa", CheckpointAsker::worker)));
  const auto pending = pending_checkpoint_views(state);
  REQUIRE(pending.size() == 1);
  CHECK(pending[0].record.id == "cp-verify");
  CHECK(pending[0].status == CheckpointStatus::carried_over);
  CHECK(pending[0].hint.find("the next one of SPC-001-x takes the answer") != std::string::npos);

  REQUIRE(answer_checkpoint(state, "cp-verify", {true, "fine", who_answers("harness-cli respond"), ""}));
  CHECK(read_checkpoint_answer(state, "cp-verify")->approved);
  CHECK(read_checkpoint_answer(state, "cp-verify")->note == "fine");
  // Who answered and when go with the answer: the orchestrator records them in a VERIFICATION.
  CHECK(read_checkpoint_answer(state, "cp-verify")->by.ends_with(" (harness-cli respond)"));
  CHECK(read_checkpoint_answer(state, "cp-verify")->at.starts_with("20"));
  CHECK(pending_checkpoint_views(state).empty()); // answered: no longer waits for one
  // A second answer before the run takes the first (two people at once) replaces nothing...
  auto second = answer_checkpoint(state, "cp-verify", {false, "no", "", ""});
  REQUIRE_FALSE(second);
  CHECK(second.error().message ==
        "checkpoint cp-verify has an answer already (approve: fine); the first answer stands: no run has read it yet, so "
        "`harness-cli respond cp-verify ANSWER --replace` replaces it");
  CHECK(read_checkpoint_answer(state, "cp-verify")->approved);
  {
    // ...nor does --replace while an orchestrate runs: it may have read the first one.
    auto running = RunLock::acquire(state, {0, "spec", "", "ccc"});
    REQUIRE(running);
    auto replaced = answer_checkpoint(state, "cp-verify", {false, "no", "", ""}, Replace::yes);
    REQUIRE_FALSE(replaced);
    CHECK(replaced.error().message.find("the first answer stands, and nothing replaces it while an orchestrate runs") !=
          std::string::npos);
    CHECK(read_checkpoint_answer(state, "cp-verify")->approved);
  }
  // With no run alive, the person who answered by mistake replaces it.
  REQUIRE(answer_checkpoint(state, "cp-verify", {false, "no", "", ""}, Replace::yes));
  CHECK_FALSE(read_checkpoint_answer(state, "cp-verify")->approved);
  CHECK(read_checkpoint_answer(state, "cp-verify")->note == "no");
  REQUIRE(answer_checkpoint(state, "cp-verify", {true, "fine", who_answers("harness-cli respond"), ""}, Replace::yes));
  // Once a run has read it (and was killed before it closed the checkpoint), it stands.
  mark_answer_taken(state, "cp-verify");
  auto late = answer_checkpoint(state, "cp-verify", {false, "no", "", ""}, Replace::yes);
  REQUIRE_FALSE(late);
  CHECK(late.error().message.ends_with("nothing replaces it: a run read it already and may have acted on it"));
  CHECK(read_checkpoint_answer(state, "cp-verify")->approved);

  auto stale = answer_checkpoint(state, "cp-old", {true, "", "", ""});
  REQUIRE_FALSE(stale);
  CHECK(stale.error().exit_code == 2);
  CHECK(stale.error().message.find("checkpoint cp-old is stale") != std::string::npos);
  CHECK(stale.error().message.find("no checkpoint of execute:01-01 waits") != std::string::npos);
  CHECK_FALSE(read_checkpoint_answer(state, "cp-old"));

  // A run that asks the same question again: the refusal names the checkpoint that waits now.
  auto lock = RunLock::acquire(state, {0, "spec", "", "bbb"});
  REQUIRE(lock);
  REQUIRE(write_open_checkpoint(state, record("cp-new", "execute:01-01", "bbb", CheckpointAsker::worker)));
  stale = answer_checkpoint(state, "cp-old", {true, "", "", ""});
  REQUIRE_FALSE(stale);
  CHECK(stale.error().message.find("execute:01-01 waits on checkpoint cp-new now: harness-cli respond cp-new") !=
        std::string::npos);

  // Closed ones are refused too, each saying why; an unknown id or a path is no checkpoint.
  close_answered_checkpoint(state, "cp-verify");
  auto again = answer_checkpoint(state, "cp-verify", {false, "", "", ""});
  REQUIRE_FALSE(again);
  CHECK(again.error().message.find("was answered already (approved by " + who_answers("harness-cli respond") + ")") !=
        std::string::npos);
  expire_checkpoint(state, "cp-new", "the worker that asked has exited");
  CHECK(read_checkpoint(state, "cp-new")->state == CheckpointState::expired);
  auto expired = answer_checkpoint(state, "cp-new", {true, "", "", ""});
  REQUIRE_FALSE(expired);
  CHECK(expired.error().message.find("has expired (the worker that asked has exited)") != std::string::npos);
  for (const char* bad : {"cp-9", "../cp-verify", "", ".."}) {
    auto unknown = answer_checkpoint(state, bad, {true, "", "", ""});
    REQUIRE_FALSE(unknown);
    CHECK(unknown.error().exit_code == 2);
    CHECK(unknown.error().message.find("respond --list") != std::string::npos);
  }
}

TEST_CASE("ingest leaves the orchestrator's checkpoint records alone: they are not reports", "[store][checkpoints]") {
  TempDir dir;
  auto s = store_test::open_store(dir.path);
  const auto state = dir.path / ".orchestration";
  REQUIRE(write_open_checkpoint(state, record("cp-verify-plan-02-03-aaa-1", "verify-plan:02-03", "aaa",
                                              CheckpointAsker::orchestrator)));
  // As the orchestrator wrote them before they had a run id.
  REQUIRE(util::write_file_atomic(state / "sessions/cp-legacy/checkpoint.json",
                                  R"({"id":"cp-legacy","task":"verify-plan:01-01","type":"verification_needed",)"
                                  R"("question":"ok?","options":["approve","refuse"]})"));
  auto r = StateDir(state).ingest(s);
  REQUIRE(r);
  CHECK(r->errors.empty()); // used to say "v: missing required field" at every run
  CHECK(r->inserted == 0);
  CHECK(read_checkpoints(state).size() == 2);
}
