// Requests to the running orchestrator, and the run lock that says whether one is running.
#include "harness/store/ask_orchestrator.hpp"
#include "harness/store/run_lock.hpp"

#include "test_store_support.hpp"

#include "harness/util/atomic_file.hpp"

#include <fmt/format.h>

#include <chrono>
#include <fcntl.h>
#include <spawn.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace harness;
using namespace harness::store;
using store_test::TempDir;

TEST_CASE("A request is pending until answered once, in arrival order", "[store][requests]") {
  TempDir dir;
  auto s = store_test::open_store(dir.path);
  auto a = s.add_request("start_session", "01-02", R"({"plan_id":"01-02"})");
  auto b = s.add_request("end_session", "sess-1");
  REQUIRE(a);
  REQUIRE(b);
  CHECK(a->seq < b->seq);
  CHECK(a->id != b->id);
  auto pending = s.pending_requests();
  REQUIRE(pending->size() == 2);
  CHECK((*pending)[0].kind == "start_session");
  CHECK((*pending)[0].body == R"({"plan_id":"01-02"})");
  CHECK(s.pending_requests(a->seq)->size() == 1); // only what came after
  CHECK(s.finish_request(a->id, "done", R"({"session_id":"x"})") == true);
  CHECK(s.finish_request(a->id, "refused", "{}") == false); // answered once
  CHECK(s.finish_request("no-such-id", "done", "{}") == false);
  auto got = s.request(a->id);
  REQUIRE(got->has_value());
  CHECK((*got)->status == "done");
  CHECK((*got)->result == R"({"session_id":"x"})");
  CHECK(s.pending_requests()->size() == 1);
  CHECK(!s.request("no-such-id")->has_value());
}

TEST_CASE("The run lock admits one orchestrator and says who holds it", "[store][run_lock]") {
  TempDir dir;
  const auto state = dir.path / ".orchestration";
  CHECK(!running_orchestrator(state).has_value());
  {
    auto first = RunLock::acquire(state, {0, "docs/specs/SPC-001-x", "", ""});
    REQUIRE(first);
    auto second = RunLock::acquire(state, {0, "docs/specs/SPC-002-y", "", ""});
    REQUIRE(!second);
    CHECK(second.error().find("another harness-cli orchestrate is running") != std::string::npos);
    CHECK(second.error().find("SPC-001-x") != std::string::npos);
    auto info = running_orchestrator(state);
    REQUIRE(info);
    CHECK(info->pid == static_cast<long>(::getpid()));
    CHECK(info->spec == "docs/specs/SPC-001-x");
  }
  CHECK(!running_orchestrator(state).has_value()); // released with the object
}

TEST_CASE("A lock taken a moment ago is named by its holder's pid, not by an earlier run's orchestrator.json", "[store][run_lock]") {
  TempDir dir;
  const auto state = dir.path / ".orchestration";
  std::filesystem::create_directories(state);
  // An earlier run's record, and an orchestrator that holds the lock but has not written its own
  // yet: the window in which two orchestrates started together used to print "pid 0, spec unknown".
  REQUIRE(util::write_file_atomic(state / "orchestrator.json", R"({"pid":999999999,"spec":"docs/specs/SPC-009-old","started_at":"x"})"));
  const int fd = ::open((state / "orchestrator.lock").c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644);
  REQUIRE(fd >= 0);
  REQUIRE(::flock(fd, LOCK_EX | LOCK_NB) == 0);
  auto second = RunLock::acquire(state, {0, "docs/specs/SPC-002-y", "", ""});
  REQUIRE(!second);
  INFO(second.error());
  CHECK(second.error().find(fmt::format("pid {}, which has not recorded its spec yet", ::getpid())) != std::string::npos);
  CHECK(second.error().find("SPC-009-old") == std::string::npos);
  auto info = running_orchestrator(state);
  REQUIRE(info);
  CHECK(info->pid == static_cast<long>(::getpid()));
  CHECK(info->spec.empty());
  ::close(fd);
}

TEST_CASE("The run is described plainly when its holder or spec is unknown", "[store][run_lock]") {
  CHECK(describe_run({4242, "docs/specs/SPC-001-x", "2026-01-01T00:00:00Z", ""}) == "pid 4242, docs/specs/SPC-001-x, since 2026-01-01T00:00:00Z");
  CHECK(describe_run({4242, "", "", ""}) == "pid 4242, which has not recorded its spec yet");
  CHECK(describe_run({0, "", "", ""}).find("holder is unknown") != std::string::npos);
}

TEST_CASE("/proc/locks names the holder of an exclusive flock, not a waiter or a reader", "[store][run_lock]") {
  const std::string text = "1: POSIX  ADVISORY  READ 27681 fe:00:11357280 128 128\n"
                           "2: FLOCK  ADVISORY  WRITE 4242 fe:00:11357275 0 EOF\n"
                           "2: -> FLOCK  ADVISORY  WRITE 5555 fe:00:11357275 0 EOF\n"
                           "3: FLOCK  ADVISORY  READ 6666 08:01:77 0 EOF\n";
  CHECK(exclusive_flock_holder(text, 0xfe, 0, 11357275) == 4242);
  CHECK(!exclusive_flock_holder(text, 8, 1, 77).has_value());
  CHECK(!exclusive_flock_holder(text, 0xfe, 0, 1).has_value());
}

TEST_CASE("A command holding runs off makes a starting orchestrator wait, and is refused while one runs", "[store][run_lock]") {
  TempDir dir;
  const auto state = dir.path / ".orchestration";
  std::filesystem::create_directories(state);
  {
    auto held = hold_off_runs(state);
    REQUIRE(held);
    CHECK(!running_orchestrator(state).has_value()); // a hold is no run
    // An orchestrator starting meanwhile waits for the hold to go, then runs.
    std::optional<RunsHeldOff> moved(std::move(*held));
    std::thread release([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      moved.reset();
    });
    const auto start = std::chrono::steady_clock::now();
    auto lock = RunLock::acquire(state, {0, "docs/specs/SPC-001-x", "", ""});
    const auto waited = std::chrono::steady_clock::now() - start;
    release.join();
    REQUIRE(lock);
    CHECK(waited >= std::chrono::milliseconds(250));
    // While it runs, nothing holds runs off: the refusal names the run.
    auto refused = hold_off_runs(state);
    REQUIRE(!refused);
    CHECK(refused.error().pid == static_cast<long>(::getpid()));
    CHECK(refused.error().spec == "docs/specs/SPC-001-x");
  }
  CHECK(hold_off_runs(state).has_value()); // the run ended
  CHECK(hold_off_runs(dir.path / "missing").has_value()); // no directory: nothing to hold, no error
}

TEST_CASE("A killed orchestrator leaves no lock behind, and its workers never held it", "[store][run_lock]") {
  TempDir dir;
  const auto state = dir.path / ".orchestration";
  int ready[2];
  REQUIRE(::pipe(ready) == 0);
  const pid_t pid = ::fork();
  if (pid == 0) {
    auto lock = RunLock::acquire(state, {0, "spec", "", ""});
    // A worker started by the orchestrator (started here with posix_spawn; worker::spawn_process, too,
    // returns once the child has exec'd) outlives it: it must not carry the lock.
    pid_t worker = 0;
    char arg0[] = "sleep", arg1[] = "3";
    char* argv[] = {arg0, arg1, nullptr};
    (void)::posix_spawn(&worker, "/bin/sleep", nullptr, nullptr, argv, environ);
    const char c = lock ? 'y' : 'n';
    (void)!::write(ready[1], &c, 1);
    ::pause();
    ::_exit(0);
  }
  char c = 0;
  REQUIRE(::read(ready[0], &c, 1) == 1);
  CHECK(c == 'y');
  CHECK(running_orchestrator(state).has_value());
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  CHECK(!running_orchestrator(state).has_value());
  CHECK(RunLock::acquire(state, {0, "spec", "", ""}).has_value());
  ::close(ready[0]);
  ::close(ready[1]);
}

TEST_CASE("A task's earlier sessions are found whatever run made them, for its own spec only", "[store][requests]") {
  TempDir dir;
  auto s = store_test::open_store(dir.path);
  CHECK(s.has_session_for_task("execute:01-01", "SPC-001-a") == false);
  auto rec = store_test::session("s1");
  rec.task_id = "execute:01-01";
  rec.spec = "SPC-001-a";
  REQUIRE(s.create_session(rec));
  CHECK(s.has_session_for_task("execute:01-01", "SPC-001-a") == true);
  CHECK(s.has_session_for_task("execute:01-02", "SPC-001-a") == false);
  // Every spec numbers its plans from 01-01: another spec's 01-01 is not this one's.
  CHECK(s.has_session_for_task("execute:01-01", "SPC-002-b") == false);
  CHECK(s.session("s1")->value().spec == "SPC-001-a");
}

TEST_CASE("A session an older harness recorded without its spec counts as an earlier session of every spec", "[store][requests]") {
  TempDir dir;
  auto s = store_test::open_store(dir.path);
  auto rec = store_test::session("s1");
  rec.task_id = "execute:01-01"; // spec unknown: it may have been any spec's 01-01
  REQUIRE(s.create_session(rec));
  CHECK(s.has_session_for_task("execute:01-01", "SPC-001-a") == true);
  CHECK(s.has_session_for_task("execute:01-01", "SPC-002-b") == true);
  CHECK(s.has_session_for_task("execute:01-02", "SPC-002-b") == false);
}

TEST_CASE("Finding a task's session leaves no read snapshot open: another process's writes stay visible", "[store][requests]") {
  TempDir dir;
  auto orchestrator = store_test::open_store(dir.path);
  auto rec = store_test::session("s1");
  rec.task_id = "execute:01-01";
  REQUIRE(orchestrator.create_session(rec));
  REQUIRE(orchestrator.has_session_for_task("execute:01-01", "") == true); // stops on a row
  auto mcp = store_test::open_store(dir.path); // harness-mcp's own connection
  REQUIRE(mcp.add_request("start_session", "01-02"));
  auto pending = orchestrator.pending_requests();
  REQUIRE(pending);
  CHECK(pending->size() == 1);
}

TEST_CASE("ask_orchestrator gets the running orchestrator's answer, or says why there is none", "[store][requests]") {
  TempDir dir;
  const auto state = dir.path / ".orchestration";
  auto db = store_test::open_store(dir.path);
  auto no_wait = [](std::chrono::milliseconds) { return false; };
  auto r = ask_orchestrator(db, state, "start_session", "01-01", "{}", std::chrono::seconds(5), no_wait);
  REQUIRE(!r);
  CHECK(r.error().find("orchestrator not running") != std::string::npos);
  CHECK(db.pending_requests()->empty()); // nothing is left behind for a later run

  auto lock = RunLock::acquire(state, {0, "spec", "", ""});
  REQUIRE(lock);
  // Stands in for the orchestrator's loop: answers the first request, refuses the second.
  auto loop_db = store_test::open_store(dir.path);
  std::thread loop([&] {
    for (int answered = 0; answered < 2;) {
      const auto pending = loop_db.pending_requests(); // no REQUIRE off the main thread (Catch2)
      for (const auto& q : pending.value_or(std::vector<RequestRecord>{})) {
        (void)loop_db.finish_request(q.id, answered == 0 ? "done" : "refused",
                                     answered == 0 ? R"({"plan_id":"01-01","status":"queued"})" : R"({"error":"no"})");
        ++answered;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  });
  auto sleep = [](std::chrono::milliseconds step) {
    std::this_thread::sleep_for(step);
    return false;
  };
  auto first = ask_orchestrator(db, state, "start_session", "01-01", "{}", std::chrono::seconds(10), sleep);
  auto second = ask_orchestrator(db, state, "end_session", "s1", "{}", std::chrono::seconds(10), sleep);
  loop.join();
  REQUIRE(first);
  CHECK(first->done);
  CHECK(first->result_json == R"({"plan_id":"01-01","status":"queued"})");
  REQUIRE(second);
  CHECK(!second->done);
  CHECK(second->result_json == R"({"error":"no"})");

  auto cancelled = ask_orchestrator(db, state, "end_session", "s2", "{}", std::chrono::seconds(10),
                                    [](std::chrono::milliseconds) { return true; });
  REQUIRE(!cancelled);
  CHECK(cancelled.error() == "cancelled");
  auto late = ask_orchestrator(db, state, "end_session", "s3", "{}", std::chrono::seconds(0), no_wait);
  REQUIRE(!late);
  CHECK(late.error().find("did not answer within 0 s") != std::string::npos);
  // Neither is left for the orchestrator to act on after its caller was told it failed.
  CHECK(db.pending_requests()->empty());
}

TEST_CASE("The running sessions are listed only while an orchestrator runs, and no database is created for it",
          "[store][requests]") {
  TempDir dir;
  const auto state = dir.path / ".orchestration";
  auto none = running_sessions(state);
  REQUIRE(none);
  CHECK(none->empty());
  CHECK(!std::filesystem::exists(state)); // asking created nothing

  auto db = store_test::open_store(dir.path);
  auto a = store_test::session("execute-01-01-a1", "execute:01-01");
  auto b = store_test::session("execute-01-02-a1", "execute:01-02");
  b.slot = 2;
  b.spec = "SPC-001-x";
  REQUIRE(db.create_session(a));
  REQUIRE(db.create_session(b));
  REQUIRE(db.set_session_status(a.id, "completed"));
  CHECK(running_sessions(state)->empty()); // no orchestrator holds the lock: nothing to end
  auto lock = RunLock::acquire(state, {0, "spec", "", ""});
  REQUIRE(lock);
  auto live = running_sessions(state);
  REQUIRE(live);
  REQUIRE(live->size() == 1);
  CHECK((*live)[0].id == "execute-01-02-a1");
  CHECK(sessions_text(*live) == "execute-01-02-a1  execute:01-02  slot 3, attempt 1, script\n");
  CHECK(sessions_json(*live) ==
        R"({"sessions":[{"session_id":"execute-01-02-a1","task_id":"execute:01-02","spec":"SPC-001-x","slot":3,"attempt":1,)"
        R"("adapter":"script"}]})");
}

TEST_CASE("A request the asker withdrew is not acted on; one the orchestrator took cannot be withdrawn",
          "[store][requests]") {
  TempDir dir;
  auto s = store_test::open_store(dir.path);
  auto a = s.add_request("start_session", "01-01");
  auto b = s.add_request("start_session", "01-02");
  REQUIRE(a);
  REQUIRE(b);
  CHECK(s.withdraw_request(a->id, R"({"error":"withdrawn"})") == true);
  CHECK(s.claim_request(a->id) == false); // the orchestrator skips it
  CHECK((*s.request(a->id))->status == "refused");
  CHECK(s.claim_request(b->id) == true);
  CHECK(s.claim_request(b->id) == false); // taken once
  CHECK(s.pending_requests()->empty());
  CHECK(s.withdraw_request(b->id, "{}") == false); // being answered: too late to withdraw
  CHECK(s.finish_request(b->id, "done", R"({"status":"queued"})") == true);
  CHECK((*s.request(b->id))->status == "done");
}

TEST_CASE("A new run refuses what an earlier one left pending or half-handled, not what came after it", "[store][requests]") {
  TempDir dir;
  auto s = store_test::open_store(dir.path);
  auto waiting = s.add_request("start_session", "01-01");
  auto taken = s.add_request("start_session", "01-02");
  REQUIRE(waiting);
  REQUIRE(taken);
  REQUIRE(s.claim_request(taken->id) == true); // the killed run took it and never answered
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const auto lock_taken_at = harness::protocol::now_iso8601();
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  auto fresh = s.add_request("end_session", "s1");
  REQUIRE(fresh);
  CHECK(s.refuse_requests_before(lock_taken_at, R"({"error":"ask again"})") == 2);
  CHECK((*s.request(waiting->id))->status == "refused");
  CHECK((*s.request(taken->id))->status == "refused");
  CHECK((*s.request(taken->id))->result == R"({"error":"ask again"})");
  CHECK((*s.request(fresh->id))->status == "pending");
}

TEST_CASE("ask_orchestrator that gives up while the orchestrator handles the request returns its answer",
          "[store][requests]") {
  TempDir dir;
  const auto state = dir.path / ".orchestration";
  auto db = store_test::open_store(dir.path);
  auto lock = RunLock::acquire(state, {0, "spec", "", ""});
  REQUIRE(lock);
  auto loop_db = store_test::open_store(dir.path);
  std::thread loop([&] { // takes the request, then answers only after the asker's deadline
    for (;;) {
      const auto pending = loop_db.pending_requests();
      if (pending && !pending->empty()) {
        (void)loop_db.claim_request(pending->front().id);
        std::this_thread::sleep_for(std::chrono::milliseconds(1500));
        (void)loop_db.finish_request(pending->front().id, "done", R"({"status":"started"})");
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  });
  auto sleep = [](std::chrono::milliseconds step) {
    std::this_thread::sleep_for(step);
    return false;
  };
  auto r = ask_orchestrator(db, state, "start_session", "01-01", "{}", std::chrono::seconds(1), sleep);
  loop.join();
  REQUIRE(r);
  CHECK(r->done);
  CHECK(r->result_json == R"({"status":"started"})");
}
