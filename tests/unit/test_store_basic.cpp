// Store CRUD: sessions, tokens, idempotent messages, responses, state, tasks, attempts, events.
#include "harness/protocol/codec.hpp"
#include "harness/store/schema.hpp"

#include <sqlite3.h>

#include <fstream>
#include "test_store_support.hpp"

using namespace harness;
using namespace harness::store;
using store_test::TempDir;

TEST_CASE("A new store is created at the project's default path with the newest schema", "[store]") {
  TempDir dir;
  auto s = store_test::open_store(dir.path);
  CHECK(std::filesystem::exists(dir.path / ".orchestration" / "harness.db"));
  CHECK(s.user_version() == schema_version);
  CHECK(s.integrity_check() == "ok");
}

TEST_CASE("unreadable_state is empty where the state can be read or is not there, and names a file in its place", "[store]") {
  TempDir dir;
  const auto state = dir.path / ".orchestration";
  CHECK(unreadable_state(state).empty()); // nothing ran here
  std::filesystem::create_directories(state / "sessions");
  CHECK(unreadable_state(state).empty());
  std::filesystem::remove_all(state);
  { std::ofstream(state) << "x"; }
  CHECK(unreadable_state(state).find(".orchestration is not a directory, and harness keeps its run state there") != std::string::npos);
  // A link to nothing: its state cannot be reached, which is no "nothing ran here" (review QQ F8).
  std::filesystem::remove(state);
  std::filesystem::create_directory_symlink(dir.path / "gone", state);
  CHECK(unreadable_state(state) == state.string() + " is a symbolic link to " + (dir.path / "gone").string() +
                                       ", which does not exist, and harness keeps its run state there");
  CHECK(unreadable_checkpoints(state) == unreadable_state(state));
}

TEST_CASE("A store path too long for SQLite is refused with the cause, before anything is made", "[store]") {
  // Review II F4: SQLite said "unable to open database file" after the directories were made.
  TempDir dir;
  auto deep = dir.path;
  while (deep.string().size() < 520) deep /= std::string(100, 'd');
  auto db = Store::open_project(deep);
  REQUIRE_FALSE(db);
  CHECK(db.error().find("SQLite opens no database at a path longer than 504 bytes") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(deep));
  // 504 bytes, the longest it opens: made, with its WAL beside it.
  auto fits = dir.path / std::string(100, 'e') / std::string(100, 'f') / std::string(100, 'g');
  const auto rest = 504 - (fits / ".orchestration/harness.db").string().size();
  REQUIRE(rest > 1);
  fits = fits / std::string(rest - 1, 'h');
  REQUIRE((fits / ".orchestration/harness.db").string().size() == 504);
  auto ok = Store::open_project(fits);
  REQUIRE(ok);
  CHECK(ok->set_value("k", "v"));
}

TEST_CASE("Sessions are created, read, updated and authenticated by token", "[store]") {
  TempDir dir;
  auto s = store_test::open_store(dir.path);
  auto rec = store_test::session("s1");
  rec.pid = 123;
  rec.pid_start_time = 99;
  rec.log_path = "logs/s1.log";
  REQUIRE(s.create_session(rec));
  CHECK_FALSE(s.create_session(rec).has_value());  // duplicate id
  auto got = s.session("s1");
  REQUIRE(got);
  REQUIRE(got->has_value());
  CHECK((*got)->pid == 123);
  CHECK((*got)->pid_start_time == 99u);
  CHECK((*got)->log_path == "logs/s1.log");
  CHECK((*got)->task_id == "01-01");
  CHECK(s.check_token("s1", "tok-s1") == true);
  CHECK(s.check_token("s1", "tok-s") == false);
  CHECK(s.check_token("s1", "tok-s1x") == false);
  CHECK(s.check_token("nope", "tok-s1") == false);
  CHECK(s.set_session_status("s1", "completed", 0) == true);
  got = s.session("s1");
  CHECK((*got)->status == "completed");
  CHECK((*got)->exit_code == 0);
  CHECK((*got)->ended_at.has_value());
  CHECK(s.set_session_status("nope", "failed") == false);
  CHECK_FALSE((*got)->end_reason.has_value());
  // Ended by the harness on purpose: ended, with why.
  REQUIRE(s.create_session(store_test::session("s2")));
  CHECK(s.set_session_status("s2", "ended", 143, "stopped: the run was interrupted") == true);
  got = s.session("s2");
  CHECK((*got)->status == "ended");
  CHECK((*got)->end_reason == "stopped: the run was interrupted");
  CHECK((*got)->ended_at.has_value());
  rec.adapter = "claude";
  CHECK(s.update_session(rec) == true);
  CHECK((*s.session("s1"))->adapter == "claude");
  REQUIRE(s.create_session(store_test::session("s0")));
  auto all = s.list_sessions();
  REQUIRE(all->size() == 3);
  CHECK((*all)[0].id == "s0");
}

TEST_CASE("Inserting the same message id twice stores it once", "[store]") {
  TempDir dir;
  auto s = store_test::open_store(dir.path);
  REQUIRE(s.create_session(store_test::session("s1")));
  auto m = protocol::make_envelope("s1", protocol::DecisionNeeded{"Which?", {"a", "b"}, std::nullopt});
  CHECK(s.insert_message(m) == InsertOutcome::inserted);
  CHECK(s.insert_message(m) == InsertOutcome::duplicate);
  CHECK(s.message_count() == 1);
  auto got = s.message(m.id);
  REQUIRE(got->has_value());
  CHECK((*got)->type == "decision_needed");
  auto payload = protocol::payload_from_json((*got)->type, boost::json::parse((*got)->payload));
  REQUIRE(payload);
  CHECK(std::get<protocol::DecisionNeeded>(*payload).options.size() == 2);
  std::vector<protocol::Envelope> batch{m, protocol::make_envelope("s1", protocol::AbortTask{"x"}),
                                        protocol::make_envelope("s1", protocol::AbortTask{"y"})};
  CHECK(s.insert_messages(batch) == 2u);
  CHECK(s.message_count() == 3);
}

TEST_CASE("Messages for an unknown session are refused", "[store]") {
  TempDir dir;
  auto s = store_test::open_store(dir.path);
  auto r = s.insert_message(protocol::make_envelope("ghost", protocol::AbortTask{"x"}));
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().find("FOREIGN KEY") != std::string::npos);
}

TEST_CASE("Questions are pending in arrival order until answered; other reports never are", "[store]") {
  TempDir dir;
  auto s = store_test::open_store(dir.path);
  REQUIRE(s.create_session(store_test::session("a")));
  REQUIRE(s.create_session(store_test::session("b")));
  auto m1 = protocol::make_envelope("a", protocol::ActionNeeded{"login", "browser"});
  auto m2 = protocol::make_envelope("b", protocol::DecisionNeeded{"q", {"x"}, std::nullopt});
  auto m3 = protocol::make_envelope("a", protocol::ProgressUpdate{"p", 1, 2});
  REQUIRE(s.insert_message(m1));
  REQUIRE(s.insert_message(m2));
  REQUIRE(s.insert_message(m3));
  auto all = s.pending_messages();
  REQUIRE(all->size() == 2); // the progress report waits for nobody
  CHECK((*all)[0].id == m1.id);
  CHECK((*all)[1].id == m2.id);
  CHECK((*all)[0].seq < (*all)[1].seq);
  CHECK(s.message(m3.id).value()->status == "received");
  CHECK(s.respond(m3.id, "{}") == false); // nothing to answer
  CHECK(s.pending_messages("b")->size() == 1);
  CHECK(s.respond(m2.id, R"({"choice":"x"})") == true);
  CHECK(s.respond(m2.id, R"({"choice":"x"})") == false);  // already answered
  CHECK(s.respond("unknown", "{}") == false);
  auto answered = s.message(m2.id);
  CHECK((*answered)->status == "responded");
  CHECK((*answered)->response == R"({"choice":"x"})");
  CHECK(s.pending_messages("b")->empty());
  CHECK(s.expire_pending("a") == 1u);
  CHECK(s.pending_messages()->empty());
  auto after = s.messages_after((*all)[0].seq);
  REQUIRE(after->size() == 2);
  CHECK((*after)[0].id == m2.id);
}

TEST_CASE("A run's start reads the newest seq and the messages of the sessions it asks about", "[store]") {
  TempDir dir;
  auto s = store_test::open_store(dir.path);
  CHECK(s.last_message_seq() == 0);
  CHECK(s.messages_of_sessions({"a"})->empty());
  const std::vector<std::string> ids = {"a", "b", "c'd"}; // a quote: the ids travel as data
  for (const auto& id : ids) REQUIRE(s.create_session(store_test::session(id)));
  std::vector<protocol::Envelope> batch;
  for (int i = 0; i < 30; ++i)
    batch.push_back(protocol::make_envelope(ids[static_cast<std::size_t>(i % 3)], protocol::ProgressUpdate{"step", i, 30}));
  REQUIRE(s.insert_messages(batch) == 30u);
  auto all = s.messages_after(0, 1000);
  REQUIRE(all->size() == 30);
  CHECK(s.last_message_seq() == all->back().seq);
  auto mine = s.messages_of_sessions({"a", "c'd", "nobody"});
  REQUIRE(mine);
  REQUIRE(mine->size() == 20);
  for (std::size_t i = 0; i < mine->size(); ++i) {
    CHECK((*mine)[i].session_id != "b");
    if (i > 0) CHECK((*mine)[i - 1].seq < (*mine)[i].seq); // arrival order
  }
  CHECK(s.messages_of_sessions({})->empty());
}

TEST_CASE("Execution state, values, tasks, attempts and events persist across reopen", "[store]") {
  TempDir dir;
  {
    auto s = store_test::open_store(dir.path);
    ExecutionState e;
    e.project_path = "/p";
    e.highest_executed_phase = "02.1";
    e.highest_executing_plan = "03-02";
    REQUIRE(s.set_execution_state(e));
    REQUIRE(s.set_value("k", R"({"a":1})"));
    REQUIRE(s.upsert_task({"01-01", "execute", "running", R"({"x":1})", ""}));
    REQUIRE(s.begin_attempt({"01-01", 1, "s1", "running", "", std::nullopt, std::nullopt}));
    CHECK_FALSE(s.begin_attempt({"01-01", 1, "s1", "running", "", std::nullopt, std::nullopt}).has_value());
    CHECK(s.finish_attempt("01-01", 1, "failed", "boom") == true);
    CHECK(s.finish_attempt("01-01", 7, "failed") == false);
    CHECK(s.append_event("task_started", R"({"task":"01-01"})") == 1);
    CHECK(s.append_event("task_done", R"({"task":"01-01"})") == 2);
  }
  auto s = store_test::open_store(dir.path);
  auto e = s.execution_state("/p");
  REQUIRE(e->has_value());
  CHECK((*e)->highest_executed_phase == "02.1");
  CHECK((*e)->highest_executing_plan == "03-02");
  CHECK((*e)->pending_verify_phase == std::nullopt);
  CHECK(s.execution_state("/q")->has_value() == false);
  CHECK(s.values()->at(0).second == R"({"a":1})");
  REQUIRE(s.erase_value("k"));
  REQUIRE(s.erase_value("never-set"));
  CHECK(s.values()->empty());
  CHECK((*s.task("01-01"))->detail == R"({"x":1})");
  CHECK(s.list_tasks()->size() == 1);
  auto a = s.attempts("01-01");
  REQUIRE(a->size() == 1);
  CHECK((*a)[0].status == "failed");
  CHECK((*a)[0].error == "boom");
  auto ev = s.events_after(1);
  REQUIRE(ev->size() == 1);
  CHECK((*ev)[0].kind == "task_done");
}

TEST_CASE("A database from a newer build is refused rather than misread", "[store]") {
  TempDir dir;
  { auto s = store_test::open_store(dir.path); }
  {
    auto db = store::Store::open({.db_path = default_db_path(dir.path)});
    REQUIRE(db);
  }
  // Bump the version behind the store's back.
  REQUIRE(create_schema_at(dir.path / "x.db", 1));
  sqlite3* raw = nullptr;
  REQUIRE(sqlite3_open((dir.path / "x.db").c_str(), &raw) == SQLITE_OK);
  REQUIRE(sqlite3_exec(raw, "PRAGMA user_version=99", nullptr, nullptr, nullptr) == SQLITE_OK);
  sqlite3_close(raw);
  auto r = Store::open({.db_path = dir.path / "x.db"});
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().find("newer than this build") != std::string::npos);
}
