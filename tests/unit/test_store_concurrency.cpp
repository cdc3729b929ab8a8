// Several processes writing at once, and writers SIGKILLed mid-stream. Long-running: the TSan job
// runs these ([store][concurrent] / [store][crash]). HARNESS_STORE_TEST_SCALE (default 1.0)
// scales the counts down for slow sanitizer builds; the default run meets the numbers
// (8 writers x 10,000 messages, 50 crash runs).
#include "harness/protocol/message.hpp"
#include "test_store_support.hpp"

#include <fmt/format.h>

#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <set>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace harness;
using namespace harness::store;
using store_test::TempDir;

namespace {

double scale() {
  const char* s = std::getenv("HARNESS_STORE_TEST_SCALE");
  return s ? std::max(0.001, std::atof(s)) : 1.0;
}

/// Deterministic id of message `i` of writer `w`: 32 characters, like protocol ids.
std::string message_id(int w, int i) { return fmt::format("w{:03d}-{:027d}", w, i); }

protocol::Envelope message(int w, int i) {
  protocol::Envelope e;
  e.id = message_id(w, i);
  e.session_id = fmt::format("s{}", w);
  e.created_at = protocol::now_iso8601();
  e.payload = protocol::ProgressUpdate{fmt::format("message {}", i), i, std::nullopt};
  return e;
}

/// Child body: writes `count` messages in transactions of 1..16, then re-sends the first
/// tenth again (must be no-ops). Exit status 0 on success.
[[noreturn]] void writer(const std::filesystem::path& db, int w, int count) {
  auto s = Store::open({.db_path = db, .busy_timeout = std::chrono::seconds(60)});
  if (!s) ::_exit(2);
  int i = 0;
  while (i < count) {
    const int n = std::min(count - i, 1 + (i * 7 + w) % 16);
    std::vector<protocol::Envelope> batch;
    for (int k = 0; k < n; ++k) batch.push_back(message(w, i + k));
    if (n == 1) {
      if (s->insert_message(batch[0]) != InsertOutcome::inserted) ::_exit(3);
    } else {
      auto r = s->insert_messages(batch);
      if (!r || *r != static_cast<std::size_t>(n)) ::_exit(3);
    }
    i += n;
  }
  for (int k = 0; k < count / 10; ++k)
    if (s->insert_message(message(w, k)) != InsertOutcome::duplicate) ::_exit(4);
  ::_exit(0);
}

}  // namespace

TEST_CASE("Eight writer processes lose no message and re-sent ids stay single", "[store][concurrent]") {
  const int writers = 8;
  const int count = std::max(10, static_cast<int>(10'000 * scale()));
  TempDir dir;
  auto s = store_test::open_store(dir.path);
  for (int w = 0; w < writers; ++w) REQUIRE(s.create_session(store_test::session(fmt::format("s{}", w))));
  std::vector<pid_t> kids;
  for (int w = 0; w < writers; ++w) {
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) writer(s.path(), w, count);
    kids.push_back(pid);
  }
  for (pid_t pid : kids) {
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
  }
  CHECK(s.message_count() == static_cast<std::int64_t>(writers) * count);
  std::set<std::string> ids;
  std::int64_t cursor = 0;
  while (true) {
    auto page = s.messages_after(cursor, 5000);
    REQUIRE(page);
    if (page->empty()) break;
    for (const auto& m : *page) ids.insert(m.id);
    cursor = page->back().seq;
  }
  REQUIRE(ids.size() == static_cast<std::size_t>(writers * count));
  for (int w = 0; w < writers; ++w) {
    CHECK(ids.count(message_id(w, 0)) == 1);
    CHECK(ids.count(message_id(w, count - 1)) == 1);
  }
  CHECK(s.integrity_check() == "ok");
}

TEST_CASE("A writer killed at random points never loses a committed message", "[store][crash]") {
  const int runs = std::max(5, static_cast<int>(50 * scale()));
  TempDir dir;
  const auto db = default_db_path(dir.path);
  {
    auto s = store_test::open_store(dir.path);
    REQUIRE(s.create_session(store_test::session("s0")));
  }
  std::set<std::string> committed;
  std::mt19937 rng(12345);
  for (int run = 0; run < runs; ++run) {
    int fds[2];
    REQUIRE(::pipe(fds) == 0);
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      ::close(fds[0]);
      auto s = Store::open({.db_path = db});
      if (!s) ::_exit(2);
      for (int i = 0;; ++i) {
        auto e = message(0, run * 1'000'000 + i);
        if (!s->insert_message(e)) ::_exit(3);
        const std::string line = e.id + "\n";  // < PIPE_BUF: written whole or not at all
        if (::write(fds[1], line.data(), line.size()) != static_cast<ssize_t>(line.size())) ::_exit(4);
      }
    }
    ::close(fds[1]);
    // A random moment: sometimes during open/migration, mostly mid-stream.
    std::this_thread::sleep_for(std::chrono::microseconds(std::uniform_int_distribution<int>(0, 30'000)(rng)));
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    CHECK((WIFSIGNALED(status) || WEXITSTATUS(status) == 0));
    std::string buf;
    char chunk[4096];
    ssize_t n;
    while ((n = ::read(fds[0], chunk, sizeof chunk)) > 0) buf.append(chunk, static_cast<std::size_t>(n));
    ::close(fds[0]);
    for (std::size_t pos = 0; pos + 33 <= buf.size(); pos += 33) committed.insert(buf.substr(pos, 32));
  }
  auto s = store_test::open_store(dir.path);
  CHECK(s.integrity_check() == "ok");
  std::size_t missing = 0;
  for (const auto& id : committed)
    if (!s.message(id)->has_value()) ++missing;
  CHECK(missing == 0);
  INFO("committed messages reported by killed writers: " << committed.size());
  CHECK(committed.size() > 0);
  CHECK(*s.message_count() >= static_cast<std::int64_t>(committed.size()));
}
