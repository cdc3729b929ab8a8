// Migrations from every earlier schema version, recovery of dead sessions, the change watcher.
#include "harness/protocol/codec.hpp"
#include "harness/store/recovery.hpp"
#include "harness/store/run_lock.hpp"
#include "harness/store/schema.hpp"
#include "harness/store/watch.hpp"
#include "test_store_support.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <fstream>
#include <csignal>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace harness;
using namespace harness::store;
using store_test::TempDir;

namespace {

void exec(const std::filesystem::path& db, const std::string& sql) {
  sqlite3* raw = nullptr;
  REQUIRE(sqlite3_open(db.c_str(), &raw) == SQLITE_OK);
  char* err = nullptr;
  const int rc = sqlite3_exec(raw, sql.c_str(), nullptr, nullptr, &err);
  INFO((err ? err : ""));
  sqlite3_free(err);
  sqlite3_close(raw);
  REQUIRE(rc == SQLITE_OK);
}

}  // namespace

TEST_CASE("Every earlier schema version migrates forward keeping its rows", "[store][migrate]") {
  for (int from = 1; from < schema_version; ++from) {
    INFO("from version " << from);
    TempDir dir;
    const auto db = dir.path / "old.db";
    REQUIRE(create_schema_at(db, from));
    exec(db, "INSERT INTO sessions (id, slot, status, working_dir, pid) VALUES ('s1', 1, 'running', '/w', 42);"
             "INSERT INTO worker_messages (id, session_id, message_type, payload, created_at) "
             "VALUES ('m2', 's1', 'decision_needed', '{\"question\":\"q\",\"options\":[\"a\"]}', 't1');"
             "INSERT INTO worker_messages (id, session_id, message_type, payload, status, created_at, response) "
             "VALUES ('m1', 's1', 'abort_task', '{\"reason\":\"r\"}', 'responded', 't2', '{}');"
             "INSERT INTO worker_messages (id, session_id, message_type, payload, created_at) "
             "VALUES ('m3', 's1', 'progress_update', '{\"message\":\"p\"}', 't3');"
             "INSERT INTO execution_state (project_path, highest_executed_phase, highest_verified_phase) "
             "VALUES ('/p', 3, 2);");
    if (from >= 2) exec(db, "UPDATE sessions SET token='tok', task_id='01-01'; INSERT INTO events (created_at, kind, body) VALUES ('t','k','{}');");
    if (from >= 5) exec(db, "UPDATE worker_messages SET status='received' WHERE id='m3';"); // as a v5 harness wrote it
    auto s = Store::open({.db_path = db});
    REQUIRE(s);
    CHECK(s->user_version() == schema_version);
    CHECK(s->integrity_check() == "ok");
    auto all = s->messages_after(0);
    REQUIRE(all->size() == 3);
    CHECK((*all)[0].id == "m2");  // original insertion order kept
    CHECK((*all)[1].status == "responded");
    CHECK((*all)[2].status == "received"); // v5: a report that needs no answer was never pending
    auto pending = s->pending_messages("s1");
    REQUIRE(pending->size() == 1);
    CHECK(pending->front().status == "pending");
    auto e = s->execution_state("/p");
    REQUIRE(e->has_value());
    CHECK((*e)->highest_executed_phase == "3");
    CHECK((*e)->highest_verified_phase == "2");
    auto sess = s->session("s1");
    CHECK((*sess)->pid == 42);
    CHECK((*sess)->token == (from >= 2 ? "tok" : ""));
    // v6: a session of an older harness names no spec, and counts as an earlier one of every spec.
    CHECK((*sess)->spec.empty());
    if (from >= 2) CHECK(s->has_session_for_task("01-01", "SPC-002-b") == true);
    CHECK(s->events_after(0)->size() == (from >= 2 ? 1u : 0u));
    // Migrated schema accepts new writes like a fresh one.
    CHECK(s->insert_message(protocol::make_envelope("s1", protocol::AbortTask{"x"})) == InsertOutcome::inserted);
    CHECK(s->append_event("k", "{}").has_value());
    CHECK(migration_sql(from - 1) != nullptr);
    // The version it was found at is kept, for what an older build left without a record.
    const auto values = s->values();
    REQUIRE(values);
    CHECK(std::ranges::count(*values, std::pair<std::string, std::string>(upgraded_from_key, std::to_string(from))) == 1);
  }
  CHECK(migration_sql(schema_version) == nullptr);
  TempDir fresh;
  auto s = Store::open({.db_path = fresh.path / "new.db"});
  REQUIRE(s);
  CHECK(s->values()->empty()); // a database this build made was never upgraded
}

TEST_CASE("A current schema opens while another connection holds the write lock", "[store][migrate]") {
  TempDir dir;
  { auto first = store_test::open_store(dir.path); } // created, migrated
  // A running orchestrator in the middle of a write: `status` and harness-mcp open the store now.
  sqlite3* writer = nullptr;
  REQUIRE(sqlite3_open(default_db_path(dir.path).c_str(), &writer) == SQLITE_OK);
  REQUIRE(sqlite3_exec(writer, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) == SQLITE_OK);
  const auto t0 = std::chrono::steady_clock::now();
  auto s = Store::open({.db_path = default_db_path(dir.path), .busy_timeout = std::chrono::milliseconds(500)});
  const auto waited = std::chrono::steady_clock::now() - t0;
  sqlite3_exec(writer, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(writer);
  REQUIRE(s); // before: "database is locked" after the whole busy timeout
  CHECK(waited < std::chrono::milliseconds(400));
  CHECK(s->user_version() == schema_version);
}

TEST_CASE("Process start time distinguishes a live process from a reused pid", "[store][recovery]") {
  const auto self = static_cast<std::int64_t>(::getpid());
  auto start = process_start_time(self);
  REQUIRE(start.has_value());
  CHECK(process_alive(self, start));
  CHECK(process_alive(self, std::nullopt));
  CHECK_FALSE(process_alive(self, *start + 1));
  CHECK_FALSE(process_start_time(-5).has_value());
}

TEST_CASE("An older store is not upgraded while another process runs an orchestrator on it", "[store][migrate]") {
  // Review EE F1: a newer build's `status` upgraded the store under an older build's run, whose
  // workers' reports then failed on a schema newer than that build knew.
  TempDir dir;
  const auto db = dir.path / "harness.db";
  REQUIRE(create_schema_at(db, schema_version - 1));
  int ready[2], release[2];
  REQUIRE(::pipe(ready) == 0);
  REQUIRE(::pipe(release) == 0);
  const pid_t child = ::fork();
  if (child == 0) { // the "older run": holds the run lock until told to let go
    const int fd = ::open((dir.path / "orchestrator.lock").c_str(), O_CREAT | O_RDWR, 0644);
    const bool locked = fd >= 0 && ::flock(fd, LOCK_EX) == 0;
    char c = locked ? 'y' : 'n';
    (void)!::write(ready[1], &c, 1);
    (void)!::read(release[0], &c, 1);
    ::_exit(0);
  }
  char c = 0;
  REQUIRE(::read(ready[0], &c, 1) == 1);
  REQUIRE(c == 'y');
  const auto user_version = [&] {
    sqlite3* raw = nullptr;
    REQUIRE(sqlite3_open(db.c_str(), &raw) == SQLITE_OK);
    sqlite3_stmt* st = nullptr;
    REQUIRE(sqlite3_prepare_v2(raw, "PRAGMA user_version", -1, &st, nullptr) == SQLITE_OK);
    REQUIRE(sqlite3_step(st) == SQLITE_ROW);
    const int v = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(raw);
    return v;
  };
  const auto record = [&](const std::string& extra) {
    std::ofstream(dir.path / "orchestrator.json")
        << "{\"pid\":" << child << ",\"spec\":\"docs/specs/SPC-001-x\",\"started_at\":\"t\",\"run_id\":\"r\"" << extra << "}\n";
  };
  SECTION("a run that has not described itself yet, then one of a build older than the schema record") {
    auto refused = Store::open({.db_path = db});
    REQUIRE_FALSE(refused);
    CHECK(refused.error().find("while an older harness works on it (pid " + std::to_string(child)) != std::string::npos);
    CHECK(refused.error().find("Use the harness that run belongs to") != std::string::npos);
    record("");
    refused = Store::open({.db_path = db});
    REQUIRE_FALSE(refused);
    CHECK(refused.error().find("docs/specs/SPC-001-x") != std::string::npos);
    CHECK(user_version() == schema_version - 1); // nothing was upgraded
  }
  SECTION("a worker of that run, whose harness-mcp this build was installed over mid-run") {
    record("");
    auto s = Store::open({.db_path = db, .upgrade_under_run = true});
    REQUIRE(s);
    CHECK(s->user_version() == schema_version);
  }
  SECTION("a run of this build (it upgrades the store itself)") {
    record(",\"schema\":" + std::to_string(schema_version));
    auto s = Store::open({.db_path = db});
    REQUIRE(s);
    CHECK(s->user_version() == schema_version);
  }
  (void)!::write(release[1], "x", 1);
  ::waitpid(child, nullptr, 0);
  for (int fd : {ready[0], ready[1], release[0], release[1]}) ::close(fd);
  // Once the other run has ended the store is upgraded.
  auto s = Store::open({.db_path = db});
  REQUIRE(s);
  CHECK(s->user_version() == schema_version);
}

TEST_CASE("An orchestrator upgrades the store under its own run lock", "[store][migrate]") {
  TempDir dir;
  const auto db = dir.path / "harness.db";
  REQUIRE(create_schema_at(db, schema_version - 1));
  auto own = RunLock::acquire(dir.path, {0, "docs/specs/SPC-001-x", "", "run"});
  REQUIRE(own);
  auto s = Store::open({.db_path = db});
  REQUIRE(s);
  CHECK(s->user_version() == schema_version);
}

TEST_CASE("Recovery fails sessions whose process is gone and surfaces pending checkpoints", "[store][recovery]") {
  TempDir dir;
  auto s = store_test::open_store(dir.path);
  // A child that has exited and been reaped: its pid no longer runs.
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ::waitpid(child, nullptr, 0);
  auto dead = store_test::session("dead", "01-01");
  dead.pid = child;
  auto reused = store_test::session("reused", "01-02");
  reused.pid = ::getpid();  // our pid, but "started" at another time: a reused pid
  reused.pid_start_time = *process_start_time(::getpid()) + 1;
  auto live = store_test::session("live", "01-03");
  live.pid = ::getpid();
  live.pid_start_time = process_start_time(::getpid());
  auto done = store_test::session("done", "01-04");
  done.status = "completed";
  for (const auto& r : {dead, reused, live, done}) {
    REQUIRE(s.create_session(r));
    REQUIRE(s.begin_attempt({r.task_id, 1, r.id, "running", "", std::nullopt, std::nullopt}));
  }
  auto q_dead = protocol::make_envelope("dead", protocol::DecisionNeeded{"q", {"a"}, std::nullopt});
  auto q_live = protocol::make_envelope("live", protocol::VerificationNeeded{"ui", {"look"}, std::nullopt});
  REQUIRE(s.insert_message(q_dead));
  REQUIRE(s.insert_message(q_live));
  REQUIRE(s.insert_message(protocol::make_envelope("live", protocol::ProgressUpdate{"p", {}, {}})));
  REQUIRE(s.append_event("plan_started", R"({"plan":"01-01"})"));

  auto report = recover(s);
  REQUIRE(report);
  CHECK(report->failed_sessions == std::vector<std::string>{"dead", "reused"});
  CHECK(report->live_sessions == std::vector<std::string>{"live"});
  REQUIRE(report->pending_checkpoints.size() == 1);
  CHECK(report->pending_checkpoints[0].id == q_live.id);
  REQUIRE(report->events.size() == 1);
  CHECK(report->events[0].kind == "plan_started");
  CHECK((*s.session("dead"))->status == "failed");
  CHECK((*s.session("done"))->status == "completed");
  CHECK(s.attempts("01-01")->front().status == "failed");
  CHECK(s.attempts("01-01")->front().error == "worker process gone");
  CHECK(s.attempts("01-03")->front().status == "running");
  CHECK((*s.message(q_dead.id))->status == "expired");
  // A second pass finds nothing new to fail.
  auto again = recover(s);
  CHECK(again->failed_sessions.empty());
}

TEST_CASE("The change watcher wakes on another connection's commit, times out and cancels", "[store][watch]") {
  TempDir dir;
  auto s = store_test::open_store(dir.path);
  REQUIRE(s.create_session(store_test::session("s1")));
  auto w = ChangeWatcher::open(s.path());
  REQUIRE(w);
  CHECK(w->wait_for_change(std::chrono::milliseconds(30)) == WaitResult::timeout);
  std::thread writer([&] {
    auto other = store_test::open_store(dir.path);
    (void)other.insert_message(protocol::make_envelope("s1", protocol::AbortTask{"x"}));
  });
  CHECK(w->wait_for_change(std::chrono::seconds(10)) == WaitResult::changed);
  writer.join();
  CHECK_FALSE(w->changed());
  std::thread canceller([&] { w->cancel(); });
  CHECK(w->wait_for_change(std::chrono::seconds(10)) == WaitResult::cancelled);
  canceller.join();
  w->reset_cancel();
  CHECK(w->wait_for_change(std::chrono::milliseconds(10)) == WaitResult::timeout);
  CHECK(w->native_handle() >= 0);
}

TEST_CASE("The change watcher sees a commit made by another process", "[store][watch]") {
  TempDir dir;
  auto s = store_test::open_store(dir.path);
  REQUIRE(s.create_session(store_test::session("s1")));
  auto w = ChangeWatcher::open(s.path());
  REQUIRE(w);
  const pid_t child = ::fork();
  if (child == 0) {
    auto st = Store::open({.db_path = default_db_path(dir.path)});
    const bool ok = st && st->insert_message(protocol::make_envelope("s1", protocol::AbortTask{"x"})).has_value();
    ::_exit(ok ? 0 : 1);
  }
  CHECK(w->wait_for_change(std::chrono::seconds(10)) == WaitResult::changed);
  int status = 0;
  ::waitpid(child, &status, 0);
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(s.message_count() == 1);
}
