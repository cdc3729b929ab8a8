// Checkpoints across runs: a run without a terminal that has nothing left but questions stops
// (exit 3), an answer given while no run is alive is taken by the next run, and what nobody can
// answer any more is expired rather than listed. The example spec in a temporary git repository
// with real script workers, as in test_orchestrator_run.cpp; its 02-03 asks for a verification
// checkpoint.
#include "harness/orchestrator/checkpoint_question.hpp"
#include "harness/orchestrator/display.hpp"
#include "harness/orchestrator/orchestrator.hpp"
#include "harness/store/checkpoint_files.hpp"
#include "spec_test_util.hpp"

#include <catch2/catch.hpp>

#include <atomic>
#include <cstdlib>

using namespace harness;
namespace fs = std::filesystem;
using orchestrator::RunEventKind;

namespace {

/// Passes every check, except the first `fail_02_03` verifications of plan 02-03.
class CountingVerifier final : public orchestrator::Verifier {
public:
  explicit CountingVerifier(int fail_02_03 = 0) : m_fail(fail_02_03) {}
  orchestrator::VerifyOutcome verify_plan(const spec::Spec&, const spec::Plan& p) override {
    if (p.id == "02-03" && m_fail.fetch_sub(1) > 0) return {sched::Verdict::passed, true, "02-03 check-x: failed"};
    return {sched::Verdict::passed, false, "2/2 checks passed"};
  }
  orchestrator::VerifyOutcome verify_phase(const spec::Spec&, spec::PhaseNumber) override { return {}; }
  orchestrator::VerifyOutcome verify_final(const spec::Spec&) override { return {}; }

private:
  std::atomic<int> m_fail;
};

class Recorder final : public orchestrator::Observer {
public:
  void on_event(const orchestrator::RunEvent& e, const orchestrator::RunView&) override { events.push_back(e); }
  std::vector<const orchestrator::RunEvent*> of(RunEventKind kind, const std::string& task = "") const {
    std::vector<const orchestrator::RunEvent*> out;
    for (const auto& e : events)
      if (e.kind == kind && (task.empty() || e.task_id == task)) out.push_back(&e);
    return out;
  }
  std::string text() const {
    std::string s;
    for (const auto& e : events) s += orchestrator::format_event_line(e) + "\n";
    return s;
  }
  std::vector<orchestrator::RunEvent> events;
};

struct Project {
  test::TempDir dir;
  fs::path spec;
  Project() : spec(test::example_project(dir.path)) {}
  fs::path state() const { return dir.path / ".orchestration"; }
  /// No terminal, no --yes: nobody answers unless the test does.
  orchestrator::RunOptions options() const {
    orchestrator::RunOptions o;
    o.spec_dir = spec;
    o.adapter = worker::AdapterKind::script;
    o.harness_cli = HARNESS_BINARY_DIR "/bin/harness-cli";
    o.task_timeout = std::chrono::seconds(120);
    return o;
  }
  orchestrator::RunSummary run(Recorder& rec, orchestrator::Verifier& v) const {
    orchestrator::Orchestrator o(options(), v, rec);
    auto r = o.run();
    REQUIRE(r);
    return *r;
  }
};

/// The checkpoint id an opened-checkpoint line tells the person to answer.
std::string answer_id(const orchestrator::RunEvent& e) {
  const std::string marker = "harness-cli respond ";
  const auto at = e.message.find(marker);
  if (at == std::string::npos) return {};
  const auto start = at + marker.size();
  return e.message.substr(start, e.message.find(' ', start) - start);
}

} // namespace

TEST_CASE("without a terminal a run with only a checkpoint left stops with exit 3, and the next run takes the answer") {
  Project proj;
  CountingVerifier v;
  Recorder first;
  auto r = proj.run(first, v);
  INFO(first.text());
  CHECK(r.outcome == "waiting_for_human");
  CHECK(r.exit_code == 3);
  const auto opened = first.of(RunEventKind::checkpoint_opened, "verify-plan:02-03");
  REQUIRE(opened.size() == 1);
  // The line says what waits and how to answer it.
  CHECK(opened[0]->message.starts_with("verification of 02-03 (Core tests): automated checks passed (2/2 checks passed) -- answer with: "
                                       "harness-cli respond cp-SPC-001-task-tracker-verify-plan-02-03-"));
  CHECK(opened[0]->message.ends_with(" approve|refuse"));
  const std::string id = answer_id(*opened[0]);
  REQUIRE(r.waiting.size() == 1);
  CHECK(r.waiting[0].find("harness-cli respond " + id + " approve|refuse") != std::string::npos);
  // Everything that does not wait on 02-03's answer ran: phase 3 is verified, phase 2 is not.
  CHECK(first.of(RunEventKind::phase_verified, "verify-phase:03").size() == 1);
  CHECK(first.of(RunEventKind::phase_verified, "verify-phase:02").empty());

  // No run is alive: the checkpoint is still listed, and an answer is taken for the next run.
  auto pending = orchestrator::pending_checkpoints(proj.state());
  REQUIRE(pending.size() == 1);
  CHECK(pending[0].id == id);
  CHECK(pending[0].hint.find("the next one of SPC-001-task-tracker takes the answer") != std::string::npos);
  REQUIRE(orchestrator::respond_checkpoint(proj.state(), id, "approve", "looked at it"));

  Recorder second;
  r = proj.run(second, v);
  INFO(second.text());
  CHECK(r.outcome == "complete");
  CHECK(r.exit_code == 0);
  const auto again = second.of(RunEventKind::checkpoint_opened, "verify-plan:02-03");
  REQUIRE(again.size() == 1);
  CHECK(again[0]->checkpoint_id == id); // the same checkpoint, not a new one
  CHECK(again[0]->message.find("(" + id + ": asked by an earlier run, answered since: taking that answer)") != std::string::npos);
  const auto answered = second.of(RunEventKind::checkpoint_answered, "verify-plan:02-03");
  REQUIRE(answered.size() == 1);
  CHECK(answered[0]->message == "approved: looked at it");
  for (const auto* n : second.of(RunEventKind::note)) CHECK(n->message.find("ingest:") == std::string::npos);
  auto twice = orchestrator::respond_checkpoint(proj.state(), id, "approve", "");
  REQUIRE_FALSE(twice);
  CHECK(twice.error().exit_code == 2);
  CHECK(twice.error().message.find("answered already") != std::string::npos);
}

TEST_CASE("an earlier run's checkpoint expires when its checks fail in the next run: its answer decides nothing") {
  Project proj;
  CountingVerifier passes;
  Recorder first;
  REQUIRE(proj.run(first, passes).exit_code == 3);
  const std::string old_id = answer_id(*first.of(RunEventKind::checkpoint_opened, "verify-plan:02-03").at(0));
  REQUIRE(orchestrator::respond_checkpoint(proj.state(), old_id, "approve", ""));

  CountingVerifier fails_once(1); // the plan changed since: its checks fail, it runs again, then pass
  Recorder second;
  auto r = proj.run(second, fails_once);
  INFO(second.text());
  CHECK(r.exit_code == 3);
  CHECK(store::read_checkpoint(proj.state(), old_id)->state == store::CheckpointState::expired);
  const auto opened = second.of(RunEventKind::checkpoint_opened, "verify-plan:02-03");
  REQUIRE(opened.size() == 1);
  CHECK(answer_id(*opened[0]) != old_id);
  CHECK(second.of(RunEventKind::checkpoint_answered).empty());
  auto late = orchestrator::respond_checkpoint(proj.state(), old_id, "approve", "");
  REQUIRE_FALSE(late);
  CHECK(late.error().message.find("has expired") != std::string::npos);
  CHECK(late.error().message.find("waits on checkpoint " + answer_id(*opened[0])) != std::string::npos);
}

TEST_CASE("a worker's question left by an ended run is expired when the next run starts") {
  Project proj;
  store::CheckpointRecord q;
  q.id = "cp-execute-01-01-dead00-1";
  q.task = "execute:01-01";
  q.question = "decision_needed: A or B?";
  q.run = "dead00";
  q.asker = store::CheckpointAsker::worker;
  q.message_id = "m1";
  REQUIRE(store::write_open_checkpoint(proj.state(), q));
  CHECK(orchestrator::pending_checkpoints(proj.state()).empty()); // stale: not listed as pending
  auto stale = orchestrator::respond_checkpoint(proj.state(), q.id, "approve", "");
  REQUIRE_FALSE(stale);
  CHECK(stale.error().exit_code == 2);
  CHECK(stale.error().message.find("is stale") != std::string::npos);

  CountingVerifier v;
  Recorder rec;
  auto opt = proj.options();
  opt.auto_yes = true;
  orchestrator::Orchestrator o(opt, v, rec);
  auto r = o.run();
  REQUIRE(r);
  CHECK(r->outcome == "complete");
  const auto expired = store::read_checkpoint(proj.state(), q.id);
  REQUIRE(expired);
  CHECK(expired->state == store::CheckpointState::expired);
  CHECK(expired->expired_because.find("the worker that asked") != std::string::npos);
}

TEST_CASE("another spec's checkpoint of the same task is neither taken nor expired by this spec's run") {
  Project proj;
  // SPC-000-other's 02-03 stopped at its checkpoint, which a person approved since, on this very
  // commit: a run of SPC-001-task-tracker must not take that approval for its own 02-03.
  store::CheckpointRecord other;
  other.id = "cp-SPC-000-other-verify-plan-02-03-dead00-1";
  other.task = "verify-plan:02-03";
  other.spec = "SPC-000-other";
  other.question = "verification of 02-03: automated checks passed";
  other.run = "dead00";
  other.head = test::sh(proj.dir.path, "git rev-parse HEAD").substr(0, 40);
  other.opened_at = "2026-01-01T00:00:00Z";
  REQUIRE(store::write_open_checkpoint(proj.state(), other));
  REQUIRE(orchestrator::respond_checkpoint(proj.state(), other.id, "approve", "for the other spec"));

  CountingVerifier v;
  Recorder rec;
  auto r = proj.run(rec, v);
  INFO(rec.text());
  CHECK(r.exit_code == 3); // its own 02-03 waits for its own answer
  const auto opened = rec.of(RunEventKind::checkpoint_opened, "verify-plan:02-03");
  REQUIRE(opened.size() == 1);
  CHECK(answer_id(*opened[0]) != other.id);
  CHECK(opened[0]->message.find("asked by an earlier run") == std::string::npos);
  CHECK(rec.of(RunEventKind::checkpoint_answered).empty());
  CHECK(rec.text().find(other.id) == std::string::npos); // not even a note: it is none of this run's business
  // The other spec's checkpoint keeps its answer for that spec's next run.
  const auto kept = store::read_checkpoint(proj.state(), other.id);
  REQUIRE(kept);
  CHECK(kept->state == store::CheckpointState::open);
  REQUIRE(kept->answer);
  CHECK(kept->answer->note == "for the other spec");
  // And this spec's checkpoint records what it asked about.
  const auto mine = store::read_checkpoint(proj.state(), answer_id(*opened[0]));
  REQUIRE(mine);
  CHECK(mine->spec == "SPC-001-task-tracker");
  REQUIRE(mine->head.size() == 40); // the commit it asked about: the run committed more after it
  CHECK(test::sh(proj.dir.path, "git merge-base --is-ancestor " + mine->head + " HEAD && echo held") == "held\n");
}

TEST_CASE("a checkpoint answered on one branch is not taken on another, and is taken back on its own") {
  Project proj;
  const std::string start = test::sh(proj.dir.path, "git rev-parse HEAD").substr(0, 40);
  const std::string branch = test::sh(proj.dir.path, "git rev-parse --abbrev-ref HEAD").substr(0, 40);
  CountingVerifier v;
  Recorder first;
  REQUIRE(proj.run(first, v).exit_code == 3);
  const std::string id = answer_id(*first.of(RunEventKind::checkpoint_opened, "verify-plan:02-03").at(0));
  REQUIRE(orchestrator::respond_checkpoint(proj.state(), id, "approve", "looked at this branch's 02-03"));

  // A branch where nothing of the spec ran yet: its 02-03 is other work, asked about anew.
  test::sh(proj.dir.path, "git checkout -q -b elsewhere " + start);
  Recorder second;
  REQUIRE(proj.run(second, v).exit_code == 3);
  INFO(second.text());
  const auto opened = second.of(RunEventKind::checkpoint_opened, "verify-plan:02-03");
  REQUIRE(opened.size() == 1);
  CHECK(answer_id(*opened[0]) != id);
  CHECK(second.of(RunEventKind::checkpoint_answered).empty());
  CHECK(second.text().find("checkpoint " + id + " of an earlier run asked about commit") != std::string::npos);
  CHECK(store::read_checkpoint(proj.state(), id)->state == store::CheckpointState::open);

  // Back on the branch it was asked on: the answer is taken.
  test::sh(proj.dir.path, "git checkout -q " + branch.substr(0, branch.find('\n')));
  Recorder third;
  auto r = proj.run(third, v);
  INFO(third.text());
  CHECK(r.outcome == "complete");
  const auto answered = third.of(RunEventKind::checkpoint_answered, "verify-plan:02-03");
  REQUIRE(answered.size() == 1);
  CHECK(answered[0]->message == "approved: looked at this branch's 02-03");
}

TEST_CASE("a checkpoint's question says what waits and what an answer does") {
  sched::Action a;
  a.type = sched::ActionType::ask_human;
  a.task = "verify-plan:02-03";
  a.kind = sched::TaskKind::verify_plan;
  a.subject = "02-03";
  a.reason = "checkpoint: verification of 02-03: automated checks passed (2/2 checks passed)";
  CHECK(orchestrator::checkpoint_question(a) == "verification of 02-03: automated checks passed (2/2 checks passed)");
  a.task = "verify-phase:03";
  a.kind = sched::TaskKind::verify_phase;
  a.subject = "03";
  a.reason = "human_needed: human_needed (6/7); a person must check (VERIFICATION.md): 03-02 look: the page reads well";
  CHECK(orchestrator::checkpoint_question(a) ==
        "phase 03 verification: human_needed (6/7); a person must check (VERIFICATION.md): 03-02 look: the page reads "
        "well; approve to count the phase as verified, refuse to block it");
  a.reason = "human_needed"; // a verifier that said nothing more
  CHECK(orchestrator::checkpoint_question(a).starts_with("phase 03 verification: human_needed; approve"));
  a.task = "final";
  a.kind = sched::TaskKind::verify_final;
  a.reason = "gaps_found: final gaps_found (3/4)";
  CHECK(orchestrator::checkpoint_question(a).starts_with("final verification: final gaps_found (3/4); approve to accept"));
  // The loops' limits say what the loop last found, at most three items, clipped.
  a.task = "check-plans:02";
  a.kind = sched::TaskKind::check_plans;
  a.subject = "02";
  a.reason = "plans sent back for revision 3 times; a human decides";
  CHECK(orchestrator::checkpoint_question(a, {"02-01 has no test", "02-02 writes what 02-01 writes"}) ==
        "plans of phase 02: plans sent back for revision 3 times; a human decides; the checker's last findings: 02-01 "
        "has no test; 02-02 writes what 02-01 writes; approve to execute them as they are, refuse to block the phase");
  CHECK(orchestrator::checkpoint_question(a, {"a", "b", "c", "d", "e"}).find("findings: a; b; c; and 2 more; approve") !=
        std::string::npos);
  const auto long_one = orchestrator::checkpoint_question(a, {std::string(2000, 'x')});
  CHECK(long_one.size() < 600);
  CHECK(long_one.find("more bytes)") != std::string::npos);
  a.task = "verify-phase:01";
  a.kind = sched::TaskKind::verify_phase;
  a.subject = "01";
  a.reason = "gaps remain after 2 gap-closure rounds";
  CHECK(orchestrator::checkpoint_question(a, {"gaps_found (9/10); gaps (V.md): 01-01 c: /alpha/ not found in a.txt"}) ==
        "phase 01 verification: gaps remain after 2 gap-closure rounds; last found: gaps_found (9/10); gaps (V.md): "
        "01-01 c: /alpha/ not found in a.txt; approve to count the phase as verified, refuse to block it");
  CHECK(orchestrator::checkpoint_opened_message("q?", "cp-1") == "q? -- answer with: harness-cli respond cp-1 approve|refuse");
}
