// ChildWatch: a child's exit reaches the loop with its status, and waiting never blocks the loop.
#include "harness/worker/child_watch.hpp"
#include "harness/worker/spawn.hpp"

#include <catch2/catch.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <sys/wait.h>
#include <unistd.h>

using namespace harness;
namespace asio = boost::asio;
using namespace std::chrono_literals;

namespace {

int spawn_sh(const std::string& script) {
  auto pid = worker::spawn_process({"/bin/sh", {"sh", "-c", script}, std::nullopt, std::filesystem::current_path(), -1, -1, false});
  REQUIRE(pid);
  return *pid;
}

} // namespace

TEST_CASE("A watched child's exit status reaches the loop once", "[worker][child_watch]") {
  asio::io_context ctx;
  worker::ChildWatch watch(ctx.get_executor(), spawn_sh("exit 7"));
  int calls = 0, status = 0;
  watch.async_wait([&](int st) {
    ++calls;
    status = st;
  });
  ctx.run_for(5s);
  CHECK(calls == 1);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 7);
}

TEST_CASE("The loop keeps running while a watched child runs, and its exit is not reported early", "[worker][child_watch]") {
  asio::io_context ctx;
  const auto started = std::chrono::steady_clock::now();
  worker::ChildWatch watch(ctx.get_executor(), spawn_sh("sleep 1"));
  bool exited = false;
  double exit_after = 0;
  watch.async_wait([&](int) {
    exited = true;
    exit_after = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  });
  int ticks = 0;
  asio::steady_timer tick(ctx);
  std::function<void()> next = [&] {
    tick.expires_after(50ms);
    tick.async_wait([&](const boost::system::error_code& e) {
      if (e) return;
      ++ticks;
      if (!exited) next();
    });
  };
  next();
  ctx.run_for(5s);
  CHECK(exited);
  CHECK(exit_after > 0.8); // not before the child really ended
  CHECK(ticks >= 10);      // the loop kept running while it waited
}

TEST_CASE("A watch destroyed before its child exits leaves the loop clean", "[worker][child_watch]") {
  asio::io_context ctx;
  const int pid = spawn_sh("sleep 0.3");
  bool called = false;
  {
    worker::ChildWatch watch(ctx.get_executor(), pid);
    watch.async_wait([&](int) { called = true; });
  }
  ctx.run_for(1s); // the cancelled wait completes without touching the destroyed watch
  CHECK(!called);
  int status = 0;
  CHECK(::waitpid(pid, &status, 0) == pid); // nobody else reaped it
}
