// The run loop end to end: the example spec in a temporary git repository, real `script` worker
// processes (harness-cli script-worker), real commits. Verification here is a test verifier that
// checks the plan's file_exists checks and the SUMMARY, so these tests exercise the loop, not the
// engine (the engine has its own tests, and the CLI integration test runs both together).
#include "harness/orchestrator/display.hpp"
#include "harness/orchestrator/orchestrator.hpp"
#include "harness/orchestrator/writeback.hpp"
#include "harness/store/schema.hpp"
#include "harness/store/store.hpp"
#include "harness/util/atomic_file.hpp"
#include "harness/util/proc_stat.hpp"
#include "harness/worker/run_command.hpp"
#include "harness/worker/spawn.hpp"
#include "spec_test_util.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include <thread>
#include <sys/wait.h>
#include <unistd.h>

using namespace harness;
namespace fs = std::filesystem;

namespace {

using test::sh;

class FileVerifier final : public orchestrator::Verifier {
public:
  orchestrator::VerifyOutcome verify_plan(const spec::Spec& s, const spec::Plan& p) override {
    for (const auto& c : p.must_pass)
      if (c.type == spec::CheckType::file_exists && !fs::exists(s.layout.project_root / c.path))
        return {sched::Verdict::passed, true, c.path + " missing"};
    ++plans;
    return {sched::Verdict::passed, false, "files present"};
  }
  orchestrator::VerifyOutcome verify_phase(const spec::Spec&, spec::PhaseNumber) override {
    ++phases;
    return {sched::Verdict::passed, false, "phase ok"};
  }
  orchestrator::VerifyOutcome verify_final(const spec::Spec& s) override {
    final_summaries = s.summaries.size();
    return {sched::Verdict::passed, false, "final ok"};
  }
  std::atomic<int> plans{0}, phases{0};
  std::atomic<std::size_t> final_summaries{0}; ///< the SUMMARYs the spec given to verify_final holds
};

class Recorder final : public orchestrator::Observer {
public:
  void on_event(const orchestrator::RunEvent& e, const orchestrator::RunView& v) override {
    events.push_back(e);
    int busy = 0;
    for (const auto& s : v.slots) busy += !s.task_id.empty();
    max_busy = std::max(max_busy, busy);
  }
  std::vector<orchestrator::RunEvent> events;
  int max_busy = 0;
};

struct Project {
  test::TempDir dir;
  fs::path spec;
  Project() : spec(test::example_project(dir.path)) {}
  orchestrator::RunOptions options() const {
    orchestrator::RunOptions o;
    o.spec_dir = spec;
    o.adapter = worker::AdapterKind::script;
    o.harness_cli = HARNESS_BINARY_DIR "/bin/harness-cli";
    o.auto_yes = true;
    o.task_timeout = std::chrono::seconds(120);
    return o;
  }
};

/// One uninterrupted run of the project's spec to completion: what most resume tests start from.
void run_to_completion(const Project& proj) {
  FileVerifier v;
  Recorder rec;
  orchestrator::Orchestrator o(proj.options(), v, rec);
  REQUIRE(o.run()->outcome == "complete");
}

} // namespace

TEST_CASE("orchestrate runs the example spec to completion with script workers in parallel slots") {
  Project proj;
  FileVerifier v;
  Recorder rec;
  proj.dir.write("app/tasks/model.py", "# an edit of the user's, not committed\n"); // 01-01 writes it
  orchestrator::Orchestrator o(proj.options(), v, rec);
  auto r = o.run();
  REQUIRE(r);
  bool warned = false;
  for (const auto& e : rec.events)
    warned |= e.kind == orchestrator::RunEventKind::note &&
              e.message.starts_with("app/tasks/model.py has uncommitted changes and plan 01-01 writes it");
  CHECK(warned);
  INFO([&] { std::string s; for (const auto& e : rec.events) s += orchestrator::format_event_line(e) + "\n"; return s; }());
  CHECK(r->outcome == "complete");
  CHECK(r->exit_code == 0);
  CHECK(v.plans == 12);
  CHECK(v.phases == 4);
  // The final verification reads the spec as the loop reloaded it after the last phase gate, not
  // the copy an earlier verification read (verifications share one until the loop changes it).
  CHECK(v.final_summaries == 12);
  CHECK(rec.max_busy >= 2); // independent plans ran side by side
  // every plan executed once: one SUMMARY commit per plan, tasks committed with trailers
  CHECK(std::stoi(sh(proj.dir.path, "git log --oneline --grep '^docs(0' | wc -l")) == 12);
  CHECK(sh(proj.dir.path, "git status --porcelain").empty());
  CHECK(sh(proj.dir.path, "python3 -m unittest discover -s tests/app -t . 2>&1 | tail -1") == "OK\n");
  // the verification checkpoint of 02-03 was opened and answered automatically
  bool opened = false, answered = false;
  for (const auto& e : rec.events) {
    opened |= e.kind == orchestrator::RunEventKind::checkpoint_opened && e.task_id == "verify-plan:02-03";
    answered |= e.kind == orchestrator::RunEventKind::checkpoint_answered && e.task_id == "verify-plan:02-03";
  }
  CHECK(opened);
  CHECK(answered);
  // write-back: STATUS, ROADMAP frontmatter, commits.log, verification marks in SUMMARY files
  std::ifstream status(proj.spec / "STATUS.md");
  std::stringstream ss;
  ss << status.rdbuf();
  CHECK(ss.str().find("12/12 plans verified") != std::string::npos);
  auto roadmap = sh(proj.spec, "head -15 ROADMAP.md");
  CHECK(roadmap.find("completed_plans: 12") != std::string::npos);
  CHECK(roadmap.find("status: complete") == std::string::npos); // final verification file is the engine's job
  CHECK(fs::exists(proj.spec / "execution/commits.log"));
  CHECK(sh(proj.spec, "grep -l 'verification: passed' execution/phases/*/*-SUMMARY.md | wc -l") == "12\n");
}

TEST_CASE("a second run after completion starts nothing and a run resumes from the files") {
  Project proj;
  FileVerifier v;
  Recorder rec;
  {
    orchestrator::Orchestrator o(proj.options(), v, rec);
    REQUIRE(o.run()->outcome == "complete");
  }
  const auto commits = sh(proj.dir.path, "git log --oneline --grep '^feat(' | wc -l");
  // A request written for an orchestrator that died before answering is not acted on by the next
  // run: it is refused, so its asker is told to ask again.
  auto db = store::Store::open_project(proj.dir.path);
  REQUIRE(db);
  auto stale = db->add_request("start_session", "01-01");
  REQUIRE(stale);
  // A session the killed run left "running", whose process is long gone.
  store::SessionRecord ghost;
  ghost.id = "execute-01-01-a1-dead";
  ghost.slot = 1;
  ghost.working_dir = proj.dir.path.string();
  ghost.task_id = "execute:01-01";
  ghost.attempt = 1;
  ghost.token = "t";
  ghost.adapter = "script";
  ghost.pid = 0x3ffffff0; // above pid_max: no such process
  REQUIRE(db->create_session(ghost));
  REQUIRE(db->session(ghost.id).value()->status == "running");
  Recorder again;
  FileVerifier v2;
  orchestrator::Orchestrator o2(proj.options(), v2, again);
  auto r = o2.run();
  REQUIRE(r);
  int starts = 0;
  for (const auto& e : again.events) starts += e.kind == orchestrator::RunEventKind::task_started && e.task_id.starts_with("execute:");
  CHECK(starts == 0);
  CHECK(sh(proj.dir.path, "git log --oneline --grep '^feat(' | wc -l") == commits); // no task ran again
  auto answered = db->request(stale->id);
  REQUIRE(answered);
  REQUIRE(answered->has_value());
  CHECK((*answered)->status == "refused");
  CHECK((*answered)->result.value_or("").find("ask again") != std::string::npos);
  CHECK(db->session(ghost.id).value()->status == "failed");
}

TEST_CASE("a worker an earlier run spawned but never recorded is found by its session id and stopped") {
  Project proj;
  // The killed run had created the session and spawned its worker, and died before writing the
  // pid: the worker (here a sleep in a group of its own, as workers are) goes on without a record.
  const std::string sid = "execute-01-01-a1-killed" + std::to_string(::getpid());
  auto env = worker::current_environment();
  env["HARNESS_SESSION_ID"] = sid;
  env["HARNESS_STATE_DIR"] = (proj.dir.path / ".orchestration").string(); // the project it belongs to
  // Started through a shell that exits at once, so that the orphan is init's child, not ours.
  auto starter = worker::spawn_process({"/bin/sh", {"sh", "-c", "sh -c 'sleep 60 & wait' &"}, env, proj.dir.path, -1, -1, true});
  REQUIRE(starter);
  int status = 0;
  ::waitpid(*starter, &status, 0);
  const int group = *starter; // the group outlives its leader while the orphan and its sleep are in it
  // The live (not zombie) processes of the group, from /proc: kill(-group, 0) counts zombies.
  auto members = [](int pgid) {
    int n = 0;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator("/proc", ec)) {
      if (e.path().filename().string().find_first_not_of("0123456789") != std::string::npos) continue;
      std::ifstream in(e.path() / "stat");
      std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      const auto close = stat.rfind(')');
      if (close == std::string::npos) continue;
      std::istringstream rest(stat.substr(close + 2));
      std::string state;
      int ppid = 0, pgrp = 0;
      rest >> state >> ppid >> pgrp;
      n += pgrp == pgid && state != "Z";
    }
    return n;
  };
  for (int i = 0; i < 250 && members(group) < 2; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  REQUIRE(members(group) == 2); // the shell and its sleep
  {
    auto db = store::Store::open_project(proj.dir.path);
    REQUIRE(db);
    store::SessionRecord pre;
    pre.id = sid;
    pre.slot = 1;
    pre.working_dir = proj.dir.path.string();
    pre.task_id = "execute:01-01";
    pre.spec = proj.spec.filename().string();
    pre.token = "t";
    pre.adapter = "command";
    REQUIRE(db->create_session(pre));
  }
  FileVerifier v;
  Recorder rec;
  orchestrator::Orchestrator o(proj.options(), v, rec);
  auto r = o.run();
  REQUIRE(r);
  INFO([&] { std::string s; for (const auto& e : rec.events) s += orchestrator::format_event_line(e) + "\n"; return s; }());
  CHECK(r->outcome == "complete");
  bool said = false;
  for (const auto& e : rec.events) said |= e.message.find("an earlier run started but never recorded") != std::string::npos;
  CHECK(said);
  CHECK(members(group) == 0); // the orphan and its sleep
  auto db = store::Store::open_project(proj.dir.path);
  CHECK(db->session(sid).value()->status == "failed");
}

TEST_CASE("a worker of a killed run that exited before the next run, unreaped, is not stopped as left running") {
  Project proj;
  // The killed run's worker wrote its result and exited; its parent was gone, and an init that
  // does not reap (a container's first process) keeps it a zombie. Here the test is its parent.
  const std::string sid = "execute-01-01-a1-zombie" + std::to_string(::getpid());
  auto worker = worker::spawn_process({"/bin/sh", {"sh", "-c", "exit 0"}, worker::current_environment(), proj.dir.path, -1, -1, true});
  REQUIRE(worker);
  auto state = [&] { return util::read_proc_stat(*worker).value_or(util::ProcStat{}).state; };
  for (int i = 0; i < 250 && state() != 'Z'; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  REQUIRE(state() == 'Z');
  const auto ticks = util::read_proc_stat(*worker)->start_ticks;
  proj.dir.write(".orchestration/sessions/" + sid + "/worker.json",
                 fmt::format(R"({{"pid":{},"start_ticks":{},"task":"execute:01-01","session":"{}","spec":"{}"}})", *worker,
                             ticks, sid, proj.spec.filename().string()) +
                     "\n");
  {
    auto db = store::Store::open_project(proj.dir.path);
    REQUIRE(db);
    store::SessionRecord pre;
    pre.id = sid;
    pre.working_dir = proj.dir.path.string();
    pre.task_id = "execute:01-01";
    pre.spec = proj.spec.filename().string();
    pre.pid = *worker;
    pre.pgid = *worker;
    pre.pid_start_time = ticks;
    REQUIRE(db->create_session(pre));
  }
  FileVerifier v;
  Recorder rec;
  auto r = orchestrator::Orchestrator(proj.options(), v, rec).run();
  int status = 0;
  ::waitpid(*worker, &status, 0);
  REQUIRE(r);
  INFO([&] { std::string s; for (const auto& e : rec.events) s += orchestrator::format_event_line(e) + "\n"; return s; }());
  CHECK(r->outcome == "complete");
  for (const auto& e : rec.events) CHECK(e.message.find("left running") == std::string::npos);
  // Its record is retired all the same: the next run does not look at it again.
  CHECK(fs::exists(proj.dir.path / ".orchestration/sessions" / sid / "worker.ended.json"));
}

TEST_CASE("the write-back commits what the orchestrator wrote, not a user's edit in the spec directory") {
  Project proj;
  // The user edits the spec while the run goes on (here: just before; the commit sweep is the same).
  { std::ofstream(proj.spec / "SPEC.md", std::ios::app) << "\nA note the user has not committed yet.\n"; }
  FileVerifier v;
  Recorder rec;
  orchestrator::Orchestrator o(proj.options(), v, rec);
  REQUIRE(o.run()->outcome == "complete");
  // Everything the run wrote is committed; the user's edit is left as it was, uncommitted.
  CHECK(sh(proj.dir.path, "git status --porcelain") == " M docs/specs/SPC-001-task-tracker/SPEC.md\n");
  CHECK(sh(proj.dir.path, "git log --format=%s -- docs/specs/SPC-001-task-tracker/SPEC.md") == "init\n");
  CHECK(sh(proj.dir.path, "git log -1 --format=%s -- docs/specs/SPC-001-task-tracker/STATUS.md").starts_with("docs(SPC-001"));
}

namespace {

/// Writes each phase's report as the engine does, at the end of its verification; phase 01's
/// takes a while, so another phase's verification ends (and commits the write-back) meanwhile.
class ReportWritingVerifier final : public orchestrator::Verifier {
public:
  orchestrator::VerifyOutcome verify_plan(const spec::Spec&, const spec::Plan&) override { return {sched::Verdict::passed, false, "ok"}; }
  orchestrator::VerifyOutcome verify_phase(const spec::Spec& s, spec::PhaseNumber phase) override {
    if (phase == spec::PhaseNumber{3, 0}) std::this_thread::sleep_for(std::chrono::milliseconds(2500));
    const auto file = s.layout.verification_file(*s.layout.find_phase(phase));
    std::ofstream(file) << "---\nstatus: passed\nplans: []\n---\n# " << spec::to_string(phase) << "\n";
    return {sched::Verdict::passed, false, "phase ok"};
  }
  orchestrator::VerifyOutcome verify_final(const spec::Spec&) override { return {sched::Verdict::passed, false, "final ok"}; }
};

} // namespace

TEST_CASE("a phase's report written while another phase's write-back is committed is committed too") {
  Project proj;
  ReportWritingVerifier v;
  Recorder rec;
  auto options = proj.options();
  options.verify_threads = 2; // the phases' verifications side by side, as on a machine with cores to spare
  orchestrator::Orchestrator o(std::move(options), v, rec);
  auto r = o.run();
  REQUIRE(r);
  INFO([&] { std::string s; for (const auto& e : rec.events) s += orchestrator::format_event_line(e) + "\n"; return s; }());
  CHECK(r->outcome == "complete");
  CHECK(sh(proj.dir.path, "git status --porcelain").empty());
  CHECK(sh(proj.dir.path, "git ls-files docs/specs | grep -c VERIFICATION.md") == "4\n");
}

namespace {

/// The events as the line display shows them, for a failing check's message.
std::string event_lines(const Recorder& rec) {
  std::string s;
  for (const auto& e : rec.events) s += orchestrator::format_event_line(e) + "\n";
  return s;
}

/// A git hook that refuses the run's last write-back commit only (bookkeeping commits skip the
/// pre-commit hooks, not prepare-commit-msg): what a full disk does to that commit, without one.
void refuse_final_writeback(const fs::path& root) {
  const auto hook = root / ".git/hooks/prepare-commit-msg";
  std::ofstream(hook) << "#!/bin/sh\nif grep -q 'orchestrate: complete' \"$1\"; then echo 'hook: no space left, says the test' >&2; exit 1; fi\n";
  fs::permissions(hook, fs::perms::owner_all);
}

} // namespace

TEST_CASE("a complete run whose final write-back commit fails exits 1 naming the files, and the next run commits them") {
  Project proj;
  refuse_final_writeback(proj.dir.path);
  FileVerifier v;
  Recorder rec;
  auto r = orchestrator::Orchestrator(proj.options(), v, rec).run();
  REQUIRE(r);
  INFO(event_lines(rec));
  CHECK(r->outcome == "complete"); // the spec is: its documents are not in git
  CHECK(r->exit_code == 1);
  const auto status = "docs/specs/SPC-001-task-tracker/STATUS.md";
  REQUIRE_FALSE(r->unwritten.empty());
  CHECK(std::ranges::all_of(r->unwritten, [](const auto& u) {
    return u.step == orchestrator::UnwrittenDocument::Step::commit && u.error.find("hook: no space left, says the test") != std::string::npos;
  }));
  CHECK(std::ranges::any_of(r->unwritten, [&](const auto& u) { return u.file == status; }));
  const auto& finished = rec.events.back();
  REQUIRE(finished.kind == orchestrator::RunEventKind::run_finished);
  CHECK(finished.exit_code == 1);
  CHECK(finished.unwritten.size() == r->unwritten.size());
  CHECK(finished.message.find("; the spec is complete, but the run could not write or commit its documents: not committed: ") !=
        std::string::npos);
  CHECK(finished.message.find("then run harness-cli orchestrate docs/specs/SPC-001-task-tracker again") != std::string::npos);
  CHECK(sh(proj.dir.path, std::string("git status --porcelain -- ") + status) == std::string(" M ") + status + "\n");

  fs::remove(proj.dir.path / ".git/hooks/prepare-commit-msg"); // the disk has room again
  Recorder again;
  auto next = orchestrator::Orchestrator(proj.options(), v, again).run();
  REQUIRE(next);
  INFO(event_lines(again));
  CHECK(next->exit_code == 0);
  CHECK(next->unwritten.empty());
  CHECK(sh(proj.dir.path, "git status --porcelain").empty());
  CHECK(sh(proj.dir.path, "git log -1 --format=%s") == "docs(SPC-001-task-tracker): orchestrate: complete\n");
}

namespace {

/// Passes everything; the final verification puts a directory where STATUS.md was, so the run's
/// last STATUS.md writes fail (renaming onto it does) as they would on a full disk.
class StatusBreakingVerifier final : public orchestrator::Verifier {
public:
  orchestrator::VerifyOutcome verify_plan(const spec::Spec&, const spec::Plan&) override { return {sched::Verdict::passed, false, "ok"}; }
  orchestrator::VerifyOutcome verify_phase(const spec::Spec&, spec::PhaseNumber) override { return {sched::Verdict::passed, false, "ok"}; }
  orchestrator::VerifyOutcome verify_final(const spec::Spec& s) override {
    fs::remove(s.layout.status_md);
    fs::create_directories(s.layout.status_md / "in-the-way");
    return {sched::Verdict::passed, false, "final ok"};
  }
};

} // namespace

namespace {

/// Keeps STATUS.md as it reads when phase 01's verification starts: before that phase's
/// write-back, so only a rewrite during the phase can have put progress in it.
class StatusReadingVerifier final : public orchestrator::Verifier {
public:
  orchestrator::VerifyOutcome verify_plan(const spec::Spec&, const spec::Plan&) override { return {sched::Verdict::passed, false, "ok"}; }
  orchestrator::VerifyOutcome verify_phase(const spec::Spec& s, spec::PhaseNumber n) override {
    if (spec::to_string(n) == "01") status_in_phase_01 = util::read_file(s.layout.status_md).value_or("");
    return {sched::Verdict::passed, false, "ok"};
  }
  orchestrator::VerifyOutcome verify_final(const spec::Spec&) override { return {sched::Verdict::passed, false, "final ok"}; }
  std::string status_in_phase_01;
};

} // namespace

TEST_CASE("STATUS.md is rewritten as plans verify, not only at phase write-backs, and committed by them") {
  Project proj;
  StatusReadingVerifier v;
  Recorder rec;
  auto options = proj.options();
  options.status_refresh = std::chrono::milliseconds(0); // at once: the test waits for no timer
  auto r = orchestrator::Orchestrator(options, v, rec).run();
  REQUIRE(r);
  INFO(event_lines(rec));
  CHECK(r->outcome == "complete");
  INFO(v.status_in_phase_01);
  CHECK(v.status_in_phase_01.starts_with("---\nrun: \"running\"\n"));
  // 01-01 is verified before 01-02 and 01-03 start, so at least it shows.
  const auto counted = v.status_in_phase_01.find("/12 plans verified");
  REQUIRE(counted != std::string::npos);
  CHECK(v.status_in_phase_01.substr(counted - 2, 2) != " 0");
  // The last rewrite is committed with the run's last write-back: nothing is left behind.
  CHECK(sh(proj.dir.path, "git status --porcelain").empty());
}

TEST_CASE("a STATUS.md the run cannot write is a note when it fails and fails the run at its end") {
  Project proj;
  StatusBreakingVerifier v;
  Recorder rec;
  auto r = orchestrator::Orchestrator(proj.options(), v, rec).run();
  REQUIRE(r);
  INFO(event_lines(rec));
  CHECK(r->outcome == "complete");
  CHECK(r->exit_code == 1);
  const auto status = std::string("docs/specs/SPC-001-task-tracker/STATUS.md");
  const auto unwritten = std::ranges::find_if(r->unwritten, [](const auto& u) { return u.step == orchestrator::UnwrittenDocument::Step::write; });
  REQUIRE(unwritten != r->unwritten.end());
  CHECK(unwritten->file == status);
  CHECK(unwritten->error == "rename: Is a directory"); // the file is named beside it; no temporary file
  // Said when it happened (once, though every later write fails alike), and at the end.
  const auto notes = std::ranges::count_if(rec.events, [&](const auto& e) {
    return e.kind == orchestrator::RunEventKind::note && e.message.starts_with("could not write " + status + ": ");
  });
  CHECK(notes == 1);
  CHECK(rec.events.back().message.find("not written: " + status + " (") != std::string::npos);
}

TEST_CASE("files a killed run wrote and never committed are committed by the next run, and only those") {
  Project proj;
  run_to_completion(proj);
  // As a run killed right after marking a SUMMARY leaves it: the file changed, and the store
  // lists it as the orchestrator's to commit. Another SUMMARY the user touched is not listed.
  const fs::path phase1 = proj.spec / "execution/phases/01-foundation";
  REQUIRE(fs::exists(phase1 / "01-01-SUMMARY.md"));
  REQUIRE(fs::exists(phase1 / "01-02-SUMMARY.md"));
  { std::ofstream(phase1 / "01-01-SUMMARY.md", std::ios::app) << "\nmarked by the killed run\n"; }
  { std::ofstream(phase1 / "01-02-SUMMARY.md", std::ios::app) << "\nedited by the user\n"; }
  {
    auto db = store::Store::open_project(proj.dir.path);
    REQUIRE(db);
    REQUIRE(db->set_value(orchestrator::uncommitted_writes_key("SPC-001-task-tracker"),
                          R"(["docs/specs/SPC-001-task-tracker/execution/phases/01-foundation/01-01-SUMMARY.md"])"));
  }
  FileVerifier v;
  Recorder rec;
  orchestrator::Orchestrator o(proj.options(), v, rec);
  REQUIRE(o.run());
  CHECK(sh(proj.dir.path, "git status --porcelain") ==
        " M docs/specs/SPC-001-task-tracker/execution/phases/01-foundation/01-02-SUMMARY.md\n");
  CHECK(sh(proj.dir.path, "git log -1 --format=%s -- docs/specs/SPC-001-task-tracker/execution/phases/01-foundation/01-01-SUMMARY.md")
            .starts_with("docs(SPC-001-task-tracker): "));
  // Committed: the store no longer lists it.
  auto db = store::Store::open_project(proj.dir.path);
  REQUIRE(db);
  const auto values = db->values();
  REQUIRE(values);
  for (const auto& [key, value] : *values)
    CHECK(key != orchestrator::uncommitted_writes_key("SPC-001-task-tracker"));
}

TEST_CASE("documents an older harness's killed run left uncommitted are committed by the next run, though its store lists none") {
  Project proj;
  run_to_completion(proj);
  // As a harness before schema v6 (a1b88fb) leaves things when killed after marking SUMMARYs
  // verified: the marks uncommitted, and a store that lists no files to commit (it kept no such
  // list: its next run committed every change under the spec directory). An older one still
  // (b2f6a1c) kept no store at all, only session directories.
  const fs::path phase2 = proj.spec / "execution/phases/02-core-commands";
  { std::ofstream(phase2 / "02-01-SUMMARY.md", std::ios::app) << "\nmarked by the killed run\n"; }
  { std::ofstream(phase2 / "02-02-SUMMARY.md", std::ios::app) << "\nmarked by the killed run\n"; }
  { std::ofstream(proj.spec / "SPEC.md", std::ios::app) << "\nA note the user has not committed yet.\n"; }
  const fs::path state = proj.dir.path / ".orchestration";
  for (const char* f : {"harness.db", "harness.db-wal", "harness.db-shm"}) fs::remove(state / f);
  SECTION("a store at schema 5, with a row for each session (a1b88fb)") {
    fs::remove_all(state / "sessions");
    REQUIRE(store::create_schema_at(state / "harness.db", 5));
    auto db = store::Store::open_project(proj.dir.path); // migrates, as `harness-cli status` would first
    REQUIRE(db);
    store::SessionRecord old;
    old.id = "execute-02-01-a1-0ld0ld";
    old.slot = 1;
    old.status = "completed";
    old.working_dir = proj.dir.path.string();
    old.task_id = "execute:02-01";
    old.adapter = "script";
    REQUIRE(db->create_session(old));
  }
  SECTION("no store, only the session directories of its workers (b2f6a1c)") {
    REQUIRE(util::write_file_atomic(state / "sessions/execute-01-01-a1-cfcbd7/status.json",
        R"({"sessionId":"execute-01-01-a1-cfcbd7","timestamp":"2026-01-01T00:00:01Z","state":"completed","phase":"01",)"
        R"("plan":"01-01","currentTask":2,"totalTasks":2,"message":"all tasks done"})"));
  }
  auto notes = [](const Recorder& r) {
    std::string out;
    for (const auto& e : r.events)
      if (e.kind == orchestrator::RunEventKind::note) out += e.message + "\n";
    return out;
  };
  {
    FileVerifier v;
    Recorder rec;
    orchestrator::Orchestrator o(proj.options(), v, rec);
    REQUIRE(o.run()->outcome == "complete");
    INFO(notes(rec));
    CHECK(notes(rec).find("2 documents an older harness's run wrote and never committed") != std::string::npos);
    CHECK(notes(rec).find("ingest") == std::string::npos); // the row-less session directory is no error
  }
  // The marks are committed by the run's write-back; the user's edit is left alone.
  CHECK(sh(proj.dir.path, "git status --porcelain") == " M docs/specs/SPC-001-task-tracker/SPEC.md\n");
  CHECK(sh(proj.dir.path, "git log -1 --format=%s -- docs/specs/SPC-001-task-tracker/execution/phases/02-core-commands/02-02-SUMMARY.md")
            .starts_with("docs(SPC-001-task-tracker): "));
  // Taken over once: a later edit of a SUMMARY is the user's, as in a store this harness made.
  { std::ofstream(phase2 / "02-01-SUMMARY.md", std::ios::app) << "\nedited by the user\n"; }
  FileVerifier v;
  Recorder rec;
  orchestrator::Orchestrator o(proj.options(), v, rec);
  REQUIRE(o.run()->outcome == "complete");
  CHECK(notes(rec).find("older harness") == std::string::npos);
  CHECK(notes(rec).find("ingest") == std::string::npos);
  CHECK(sh(proj.dir.path, "git status --porcelain --short -- docs/specs/SPC-001-task-tracker/execution") ==
        " M docs/specs/SPC-001-task-tracker/execution/phases/02-core-commands/02-01-SUMMARY.md\n");
}

namespace {

/// Refuses every checkpoint of `task` as soon as it opens, as `harness-cli respond` would.
class Refuser final : public orchestrator::Observer {
public:
  Refuser(fs::path state_dir, std::string task) : m_state(std::move(state_dir)), m_task(std::move(task)) {}
  void on_event(const orchestrator::RunEvent& e, const orchestrator::RunView&) override {
    events.push_back(e);
    if (e.kind != orchestrator::RunEventKind::checkpoint_opened || e.task_id != m_task) return;
    for (const auto& cp : orchestrator::pending_checkpoints(m_state))
      if (cp.task == m_task) refused += orchestrator::respond_checkpoint(m_state, cp.id, "refuse", "not like this").has_value();
  }
  std::vector<orchestrator::RunEvent> events;
  int refused = 0;

private:
  fs::path m_state;
  std::string m_task;
};

class HumanFinalVerifier final : public orchestrator::Verifier {
public:
  orchestrator::VerifyOutcome verify_plan(const spec::Spec&, const spec::Plan&) override { return {}; }
  orchestrator::VerifyOutcome verify_phase(const spec::Spec&, spec::PhaseNumber) override { return {}; }
  orchestrator::VerifyOutcome verify_final(const spec::Spec&) override {
    return {sched::Verdict::human_needed, false, "a person must look at the release"};
  }
};

} // namespace

TEST_CASE("a refused verification checkpoint leaves its plan unverified in the SUMMARY") {
  Project proj;
  FileVerifier v;
  Refuser rec(proj.dir.path / ".orchestration", "verify-plan:02-03");
  auto opt = proj.options();
  opt.auto_yes = false;
  orchestrator::Orchestrator o(opt, v, rec);
  auto r = o.run();
  REQUIRE(r);
  CHECK(rec.refused == 1);
  CHECK(r->outcome == "blocked");
  const auto summaries = proj.spec / "execution/phases/02-core-commands";
  CHECK(sh(summaries, "grep -c 'verification: passed' 02-03-SUMMARY.md || true") == "0\n");
  CHECK(sh(summaries, "grep -c 'verification: passed' 02-01-SUMMARY.md") == "1\n");
  bool blocked = false;
  for (const auto& e : rec.events)
    blocked |= e.kind == orchestrator::RunEventKind::task_blocked && e.task_id == "verify-plan:02-03" &&
               e.message.find("refused by a human") != std::string::npos;
  CHECK(blocked);
}

TEST_CASE("a final verification that needs a human opens a checkpoint and the run ends when it is refused") {
  Project proj;
  HumanFinalVerifier v;
  Refuser rec(proj.dir.path / ".orchestration", "final");
  orchestrator::Orchestrator o(proj.options(), v, rec);
  auto r = o.run(); // used to throw std::out_of_range building the checkpoint id of "final"
  REQUIRE(r);
  CHECK(rec.refused == 1);
  CHECK(r->outcome == "blocked");
  CHECK(r->exit_code == 1);
  CHECK(sh(proj.spec, "head -3 STATUS.md").find("run: \"blocked\"") != std::string::npos);
}

namespace {

/// The first plan verification takes a while; an interrupt arrives while it runs.
class SlowVerifier final : public orchestrator::Verifier {
public:
  orchestrator::VerifyOutcome verify_plan(const spec::Spec&, const spec::Plan&) override {
    if (first.exchange(false)) std::this_thread::sleep_for(std::chrono::milliseconds(500));
    return {};
  }
  orchestrator::VerifyOutcome verify_phase(const spec::Spec&, spec::PhaseNumber) override { return {}; }
  orchestrator::VerifyOutcome verify_final(const spec::Spec&) override { return {}; }
  std::atomic<bool> first{true};
};

class Interrupter final : public orchestrator::Observer {
public:
  void on_event(const orchestrator::RunEvent& e, const orchestrator::RunView&) override {
    if (e.kind == orchestrator::RunEventKind::task_started && e.task_id.starts_with("verify-plan:") && !sent) {
      sent = true;
      ::raise(SIGINT); // the run's own signal set takes it, as it would the user's Ctrl-C
    }
    if (e.kind == orchestrator::RunEventKind::note && e.message.starts_with("interrupt:")) interrupt_note = e.message;
  }
  bool sent = false;
  std::string interrupt_note;
};

} // namespace

TEST_CASE("Ctrl-C while a verification runs ends the run once the verification is done") {
  Project proj;
  SlowVerifier v;
  Interrupter rec;
  orchestrator::Orchestrator o(proj.options(), v, rec);
  ::alarm(120); // the bug this guards against was a hang: fail loudly instead of waiting forever
  auto r = o.run();
  ::alarm(0);
  REQUIRE(r);
  CHECK(rec.sent);
  CHECK(r->outcome == "interrupted");
  CHECK(r->exit_code == 130);
  CHECK(rec.interrupt_note == "interrupt: no new tasks; running ones finish (interrupt again, Ctrl-C or the same signal, to stop them)");
}

TEST_CASE("with --stop-on-interrupt the interrupt's note says the running tasks are being stopped") {
  Project proj;
  SlowVerifier v;
  Interrupter rec;
  auto options = proj.options();
  options.interrupt = orchestrator::InterruptMode::stop_running;
  orchestrator::Orchestrator o(std::move(options), v, rec);
  ::alarm(120);
  auto r = o.run();
  ::alarm(0);
  REQUIRE(r);
  CHECK(r->exit_code == 130);
  CHECK(rec.interrupt_note == "interrupt: no new tasks; stopping the running ones (--stop-on-interrupt)");
}

namespace {

/// The first plan verification runs a minute-long command, stoppable through the run's flag.
class MinuteVerifier final : public orchestrator::Verifier {
public:
  orchestrator::VerifyOutcome verify_plan(const spec::Spec&, const spec::Plan&) override {
    if (!first.exchange(false)) return {};
    worker::CommandRequest req;
    req.argv = {"sleep", "60"};
    req.grace = std::chrono::milliseconds(200);
    req.cancel = cancel_flag();
    stopped = worker::run_command(req).cancelled;
    return {};
  }
  orchestrator::VerifyOutcome verify_phase(const spec::Spec&, spec::PhaseNumber) override { return {}; }
  orchestrator::VerifyOutcome verify_final(const spec::Spec&) override { return {}; }
  std::atomic<bool> first{true}, stopped{false};
};

/// Two Ctrl-Cs, a moment apart, once the first plan verification has started.
class DoubleInterrupter final : public orchestrator::Observer {
public:
  void on_event(const orchestrator::RunEvent& e, const orchestrator::RunView&) override {
    if (e.kind == orchestrator::RunEventKind::task_started && e.task_id.starts_with("verify-plan:") && !sent) {
      sent = true;
      std::thread([] {
        ::raise(SIGINT);
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        ::raise(SIGINT);
      }).detach();
    }
  }
  bool sent = false;
};

} // namespace

TEST_CASE("A second Ctrl-C stops a running verification's commands instead of waiting for them") {
  Project proj;
  MinuteVerifier v;
  DoubleInterrupter rec;
  orchestrator::Orchestrator o(proj.options(), v, rec);
  ::alarm(120);
  const auto t0 = std::chrono::steady_clock::now();
  auto r = o.run();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ::alarm(0);
  REQUIRE(r);
  CHECK(r->outcome == "interrupted");
  CHECK(v.stopped);
  CHECK(seconds < 40); // guard: waiting for the command would take 60 s
}

TEST_CASE("agent workers start at least stagger_ms apart; the run still completes") {
  Project proj;
  FileVerifier v;
  Recorder rec;
  auto opt = proj.options();
  // A stand-in agent: records when it started, then does the plan with the script worker, which
  // also leaves the file transport's result.json (its task_completed).
  opt.adapter = worker::AdapterKind::command;
  opt.adapter_settings.command_template =
      "sh -c 'date +%s%N >> .orchestration/starts.txt; exec \"$0\" script-worker' {harness_cli}";
  opt.stagger = std::chrono::milliseconds(300);
  orchestrator::Orchestrator o(opt, v, rec);
  auto r = o.run();
  REQUIRE(r);
  CHECK(r->outcome == "complete");
  std::ifstream in(proj.dir.path / ".orchestration/starts.txt");
  std::vector<long long> starts;
  for (long long ns; in >> ns;) starts.push_back(ns);
  REQUIRE(starts.size() == 12);
  std::sort(starts.begin(), starts.end());
  long long closest = std::numeric_limits<long long>::max();
  for (std::size_t i = 1; i < starts.size(); ++i) closest = std::min(closest, starts[i] - starts[i - 1]);
  // Spaced by the timer; the shell reads the clock some time after its start (over 100 ms seen
  // under TSan on a busy machine), so one gap may shrink by that jitter, the mean may not.
  // Without stagger, parallel starts land within milliseconds of each other.
  CHECK(closest >= 100'000'000);
  CHECK((starts.back() - starts.front()) / static_cast<long long>(starts.size() - 1) >= 250'000'000);
}

TEST_CASE("commits.log gets every trailer commit when its task ends, from git, whatever the worker reports") {
  Project proj;
  FileVerifier v;
  Recorder rec;
  auto opt = proj.options();
  // An agent that does the plan's work but reports no commits (an MCP agent's task_completed
  // often lists none): the log must not depend on the worker's word.
  opt.adapter = worker::AdapterKind::command;
  opt.adapter_settings.command_template =
      "sh -c '\"$0\" script-worker && sed -i \"s/\\\"commits\\\":\\[[^]]*\\]/\\\"commits\\\":[]/\" "
      "\"$HARNESS_STATE_DIR/sessions/$HARNESS_SESSION_ID/result.json\"' {harness_cli}";
  auto r = orchestrator::Orchestrator(opt, v, rec).run();
  REQUIRE(r);
  CHECK(r->outcome == "complete");
  CHECK(sh(proj.dir.path, "grep -c '\"commits\":\\[\\]' .orchestration/sessions/execute-*/result.json | grep -c ':1$'") == "12\n");
  // Logged by this run as each execute ended (not "recovered" by the next run's start-up).
  const auto log = sh(proj.spec, "cat execution/commits.log");
  INFO(log);
  const auto trailer_commits = sh(proj.dir.path, "git log --format=%H --grep '^Plan: ' | sort");
  CHECK(sh(proj.spec, "cut -d' ' -f1 execution/commits.log | sort") == trailer_commits);
  CHECK(sh(proj.dir.path, "git log --format=%H --grep '^Plan: ' | wc -l") == "26\n"); // 14 task commits, 12 SUMMARY commits
  CHECK(sh(proj.spec, "grep -vc ' execute-[0-9-]*-a1-' execution/commits.log || true") == "0\n");
  CHECK(sh(proj.spec, "git status --porcelain execution/commits.log").empty()); // committed by the write-back
}

TEST_CASE("a run shows the spec's warnings at its start, and refuses an invalid spec naming each error") {
  Project proj;
  const fs::path plan = proj.spec / "planning/plans/01-foundation/01-01-PLAN.md";
  sh(proj.dir.path, "sed -i 's/^depends_on:/owner_team: core\\ndepends_on:/' " + plan.string());
  // 01-01 also writes a file outside its files_modified: left uncommitted, and the run says so.
  { std::ofstream(plan, std::ios::app) << "\n### Task 9: stray\n\n```bash\necho stray > stray.txt\n```\n"; }
  sh(proj.dir.path, "git commit -qam 'plan edits'");
  {
    FileVerifier v;
    Recorder rec;
    orchestrator::Orchestrator o(proj.options(), v, rec);
    REQUIRE(o.run());
    bool warned = false;
    for (const auto& e : rec.events)
      warned |= e.kind == orchestrator::RunEventKind::note &&
                e.message.find("01-01-PLAN.md:") != std::string::npos &&
                e.message.ends_with("warning[H014]: unknown frontmatter key 'owner_team' is ignored");
    CHECK(warned);
    bool stray = false;
    for (const auto& e : rec.events)
      stray |= e.kind == orchestrator::RunEventKind::note &&
               e.message.starts_with("changed during the run, declared by no plan's files_modified, left uncommitted: stray.txt (");
    CHECK(stray);
    CHECK(sh(proj.dir.path, "git status --porcelain") == "?? stray.txt\n");
  }
  // A misspelt must_pass would run the plan unchecked: the run refuses and says where.
  sh(proj.dir.path, "sed -i 's/^must_pass:/must-pass:/' " + plan.string());
  FileVerifier v;
  Recorder rec;
  orchestrator::Orchestrator o(proj.options(), v, rec);
  auto r = o.run();
  REQUIRE_FALSE(r);
  CHECK(r.error().exit_code == 2);
  CHECK(r.error().message.starts_with("the spec does not validate:\n"));
  CHECK(r.error().message.find("01-01-PLAN.md:") != std::string::npos);
  CHECK(r.error().message.find("error[H026]: unknown frontmatter key 'must-pass': did you mean 'must_pass'?") != std::string::npos);
}

TEST_CASE("a run in a directory that is not a git repository is refused before it writes anything") {
  test::TempDir dir;
  const auto spec = dir.path / "docs/specs/SPC-001-task-tracker";
  fs::create_directories(spec.parent_path());
  fs::copy(HARNESS_SOURCE_DIR "/examples/specs/SPC-001-task-tracker", spec, fs::copy_options::recursive);
  const auto status_before = sh(spec, "cat STATUS.md");
  FileVerifier v;
  Recorder rec;
  orchestrator::RunOptions opt;
  opt.spec_dir = spec;
  opt.adapter = worker::AdapterKind::script;
  opt.harness_cli = HARNESS_BINARY_DIR "/bin/harness-cli";
  opt.auto_yes = true;
  const auto cwd = fs::current_path();
  fs::current_path(dir.path); // without .git above the spec, the project is the working directory
  auto r = orchestrator::Orchestrator(opt, v, rec).run();
  fs::current_path(cwd);
  REQUIRE_FALSE(r);
  CHECK(r.error().exit_code == 2);
  CHECK(r.error().message.find(dir.path.string() + " is not a git repository") != std::string::npos);
  CHECK(rec.events.empty());
  CHECK_FALSE(fs::exists(dir.path / ".orchestration"));
  CHECK(sh(spec, "cat STATUS.md") == status_before);
  CHECK_FALSE(fs::exists(dir.path / "app")); // no plan's shell block ran
}

TEST_CASE("a worker that fails names its own reason and its log, in the event and in STATUS.md") {
  Project proj;
  const auto plan = proj.spec / "planning/plans/01-foundation/01-01-PLAN.md";
  sh(proj.dir.path, "sed -i 's|^mkdir -p app/tasks$|echo no room for the model >\\&2; exit 3|' '" + plan.string() +
                        "' && git commit -qam 'a plan whose first block fails'");
  FileVerifier v;
  Recorder rec;
  auto opt = proj.options();
  opt.sched.max_attempts = 1;
  auto r = orchestrator::Orchestrator(opt, v, rec).run();
  REQUIRE(r);
  CHECK(r->outcome == "blocked");
  std::string why;
  for (const auto& e : rec.events)
    if (e.kind == orchestrator::RunEventKind::task_failed && e.task_id == "execute:01-01") why = e.message;
  INFO(why);
  CHECK(why.starts_with("exited 1: the worker reported task_failed: Task 1/"));
  CHECK(why.find(": Package layout failed: a shell block exited 3 (log: .orchestration/sessions/execute-01-01-a1-") != std::string::npos);
  CHECK(why.ends_with("/output.log)"));
  const auto log = proj.dir.path / why.substr(why.find("(log: ") + 6, why.size() - why.find("(log: ") - 7);
  CHECK(sh(proj.dir.path, "cat '" + log.string() + "'").find("no room for the model") != std::string::npos);
  const auto status = sh(proj.spec, "cat STATUS.md");
  CHECK(status.find("crashed: " + why) != std::string::npos);
}

namespace {

/// Removes a PLAN file when the first task starts, as a person may during a run, and keeps the
/// live display's last count of plans.
class PlanRemover final : public orchestrator::Observer {
public:
  explicit PlanRemover(fs::path plan) : m_plan(std::move(plan)) {}
  void on_event(const orchestrator::RunEvent& e, const orchestrator::RunView& v) override {
    if (e.kind == orchestrator::RunEventKind::task_started && !m_plan.empty()) {
      fs::remove(m_plan);
      m_plan.clear();
    }
    events.push_back(e);
    plans_total = v.plans_total;
    plans_verified = v.plans_verified;
  }
  std::vector<orchestrator::RunEvent> events;
  int plans_total = 0, plans_verified = 0;

private:
  fs::path m_plan;
};

} // namespace

TEST_CASE("the live progress counts no plan whose PLAN file was removed during the run") {
  Project proj;
  FileVerifier v;
  PlanRemover rec(proj.spec / "planning/plans/04-docs/04-02-PLAN.md");
  auto r = orchestrator::Orchestrator(proj.options(), v, rec).run();
  REQUIRE(r);
  INFO([&] { std::string s; for (const auto& e : rec.events) s += orchestrator::format_event_line(e) + "\n"; return s; }());
  const bool dropped = std::ranges::any_of(rec.events, [](const auto& e) { return e.message == "04-02 removed during the run: dropped"; });
  REQUIRE(dropped);
  CHECK(rec.plans_total == 11); // of the example's 12
  CHECK(rec.plans_verified == 11);
}

namespace {

/// Ctrl-C once execute:01-01 runs.
class ExecuteInterrupter final : public orchestrator::Observer {
public:
  void on_event(const orchestrator::RunEvent& e, const orchestrator::RunView&) override {
    if (e.kind == orchestrator::RunEventKind::task_started && e.task_id == "execute:01-01" && !sent) {
      sent = true;
      ::raise(SIGINT);
    }
  }
  bool sent = false;
};

} // namespace

TEST_CASE("a worker the run stops as it drains is recorded as ended, with why, not as failed") {
  Project proj;
  const auto plan = proj.spec / "planning/plans/01-foundation/01-01-PLAN.md";
  sh(proj.dir.path, "sed -i 's|^mkdir -p app/tasks$|sleep 60; mkdir -p app/tasks|' '" + plan.string() +
                        "' && git commit -qam 'a plan that takes a minute'");
  FileVerifier v;
  ExecuteInterrupter rec;
  auto options = proj.options();
  options.interrupt = orchestrator::InterruptMode::stop_running;
  ::alarm(120);
  auto r = orchestrator::Orchestrator(std::move(options), v, rec).run();
  ::alarm(0);
  REQUIRE(r);
  REQUIRE(rec.sent);
  CHECK(r->outcome == "interrupted");
  auto db = store::Store::open_project(proj.dir.path);
  REQUIRE(db);
  const auto sessions = db->list_sessions().value();
  const auto stopped = std::ranges::find(sessions, std::string("execute:01-01"), &store::SessionRecord::task_id);
  REQUIRE(stopped != sessions.end());
  CHECK(stopped->status == "ended");
  CHECK(stopped->end_reason.value_or("") == "stopped: the run was interrupted");
  for (const auto& s : sessions) CHECK(s.status != "failed");
}
