// Store benchmarks (run on a Release build):
//   1. messages/s, one message per transaction and batched (100 per transaction), WAL with
//      synchronous=NORMAL and FULL
//   2. cross-process wake latency: a child process inserts a message stamped with
//      CLOCK_MONOTONIC; the parent's ChangeWatcher wakes, reads it, and measures the delay
//      (target <= 20 ms p99), plus the watcher's CPU use while waiting.
// Usage: bench_store [dir]   (default: a fresh directory under /tmp)
#include "harness/protocol/message.hpp"
#include "harness/store/store.hpp"
#include "harness/store/watch.hpp"

#include <boost/json.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <random>
#include <sys/resource.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;
using namespace harness;
using Clock = std::chrono::steady_clock;

namespace {

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[std::min(v.size() - 1, static_cast<std::size_t>(p * static_cast<double>(v.size())))];
}

std::int64_t mono_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

store::Store open(const fs::path& db, store::Synchronous sync) {
  auto s = store::Store::open({.db_path = db, .synchronous = sync});
  if (!s) {
    fmt::print(stderr, "open: {}\n", s.error());
    std::exit(1);
  }
  return std::move(*s);
}

void ensure_session(store::Store& s, const std::string& id) {
  store::SessionRecord r;
  r.id = id;
  r.working_dir = "/tmp";
  (void)s.create_session(r);
}

protocol::Envelope tiny(const std::string& session, int i) {
  return protocol::make_envelope(session, protocol::ProgressUpdate{fmt::format("m{}", i), i, std::nullopt});
}

void throughput(const fs::path& dir, store::Synchronous sync, const char* name) {
  const fs::path db = dir / fmt::format("tp-{}.db", name);
  auto s = open(db, sync);
  ensure_session(s, "s");
  const int single = 20'000;
  auto t0 = Clock::now();
  for (int i = 0; i < single; ++i)
    if (!s.insert_message(tiny("s", i))) std::exit(1);
  const double single_s = std::chrono::duration<double>(Clock::now() - t0).count();
  // Batched on a fresh file so the figure does not depend on the single-insert run before it.
  auto b_store = open(dir / fmt::format("tp-{}-batch.db", name), sync);
  ensure_session(b_store, "s");
  const int batches = 1000, per = 100;
  std::vector<std::vector<protocol::Envelope>> prepared(batches);
  for (auto& batch : prepared)
    for (int i = 0; i < per; ++i) batch.push_back(tiny("s", i));
  t0 = Clock::now();
  for (const auto& batch : prepared)
    if (!b_store.insert_messages(batch)) std::exit(1);
  const double batch_s = std::chrono::duration<double>(Clock::now() - t0).count();
  fmt::print("synchronous={:<6}  1 msg/txn: {:>8.0f} msgs/s   100 msgs/txn: {:>8.0f} msgs/s\n", name,
             single / single_s, batches * per / batch_s);
}

void wake_latency(const fs::path& dir) {
  const fs::path db = dir / "wake.db";
  auto s = open(db, store::Synchronous::normal);
  ensure_session(s, "w");
  auto watcher = store::ChangeWatcher::open(db);
  if (!watcher) {
    fmt::print(stderr, "watcher: {}\n", watcher.error());
    std::exit(1);
  }
  const int count = 1000;
  const pid_t child = ::fork();
  if (child == 0) {
    auto w = open(db, store::Synchronous::normal);
    std::mt19937 rng(7);
    for (int i = 0; i < count; ++i) {
      std::this_thread::sleep_for(std::chrono::microseconds(std::uniform_int_distribution<int>(1000, 6000)(rng)));
      auto e = protocol::make_envelope("w", protocol::ProgressUpdate{std::to_string(mono_ns()), i, std::nullopt});
      if (!w.insert_message(e)) ::_exit(1);
    }
    ::_exit(0);
  }
  rusage before{};
  getrusage(RUSAGE_SELF, &before);
  const auto wall0 = Clock::now();
  std::vector<double> ms;
  std::int64_t cursor = 0;
  while (static_cast<int>(ms.size()) < count) {
    if (watcher->wait_for_change(std::chrono::seconds(5)) != store::WaitResult::changed) break;
    const auto woke = mono_ns();
    auto fresh = s.messages_after(cursor);
    if (!fresh) break;
    for (const auto& m : *fresh) {
      const auto sent = std::stoll(std::string(boost::json::parse(m.payload).at("message").as_string()));
      ms.push_back(static_cast<double>(woke - sent) / 1e6);
      cursor = m.seq;
    }
  }
  const double wall = std::chrono::duration<double>(Clock::now() - wall0).count();
  rusage after{};
  getrusage(RUSAGE_SELF, &after);
  auto secs = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; };
  const double cpu = secs(after.ru_utime) - secs(before.ru_utime) + secs(after.ru_stime) - secs(before.ru_stime);
  ::waitpid(child, nullptr, 0);
  fmt::print("cross-process wake: {} messages  p50 {:.2f} ms  p99 {:.2f} ms  max {:.2f} ms  (target p99 <= 20 ms)\n",
             ms.size(), percentile(ms, 0.5), percentile(ms, 0.99), percentile(ms, 1.0));
  fmt::print("watcher CPU while waiting: {:.1f}% of one core over {:.1f} s\n", 100 * cpu / wall, wall);
}

}  // namespace

int main(int argc, char** argv) {
  const fs::path dir = argc > 1 ? fs::path(argv[1])
                                : fs::temp_directory_path() / fmt::format("harness-bench-store-{}", ::getpid());
  fs::create_directories(dir);
  throughput(dir, store::Synchronous::normal, "NORMAL");
  throughput(dir, store::Synchronous::full, "FULL");
  wake_latency(dir);
  if (argc <= 1) fs::remove_all(dir);
  return 0;
}
