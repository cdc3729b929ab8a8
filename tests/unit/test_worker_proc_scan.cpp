// processes_with_env finds a live process by one variable of its starting environment (and a
// second one naming a path, when asked).
#include "harness/worker/proc_scan.hpp"
#include "harness/worker/spawn.hpp"

#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

using namespace harness;

TEST_CASE("processes_with_env finds a process by its variable's value, and only a live one", "[proc_scan]") {
  const std::string value = "env-scan-" + std::to_string(::getpid());
  auto env = worker::current_environment();
  env["HARNESS_TEST_SCAN"] = value;
  env["HARNESS_TEST_SCOPE"] = "/tmp/harness-scope-" + std::to_string(::getpid());
  auto pid = worker::spawn_process({"/bin/sleep", {"sleep", "30"}, env, {}, -1, -1, true});
  REQUIRE(pid);
  // Until the child has exec'd, /proc shows the parent's environment: wait for the sleep.
  auto found = worker::processes_with_env("HARNESS_TEST_SCAN", {value, "another"});
  for (int i = 0; i < 500 && found.empty(); ++i, ::usleep(10'000)) found = worker::processes_with_env("HARNESS_TEST_SCAN", {value, "another"});
  REQUIRE(found.size() == 1);
  CHECK(found[0].pid == *pid);
  CHECK(found[0].pgid == *pid); // a group of its own
  CHECK(found[0].value == value);
  CHECK(worker::processes_with_env("HARNESS_TEST_SCAN", {value + "x"}).empty()); // a prefix is no match
  CHECK(worker::processes_with_env("HARNESS_TEST_SCA", {value}).empty());
  CHECK(worker::processes_with_env("HARNESS_TEST_SCAN", {}).empty());
  // Scoped to a path variable: the same path however it is written, and no other path.
  const std::string scope = "/tmp/harness-scope-" + std::to_string(::getpid());
  CHECK(worker::processes_with_env("HARNESS_TEST_SCAN", {value}, worker::EnvPath{"HARNESS_TEST_SCOPE", scope}).size() == 1);
  CHECK(worker::processes_with_env("HARNESS_TEST_SCAN", {value}, worker::EnvPath{"HARNESS_TEST_SCOPE", "/tmp/./harness-scope-" + std::to_string(::getpid())}).size() == 1);
  CHECK(worker::processes_with_env("HARNESS_TEST_SCAN", {value}, worker::EnvPath{"HARNESS_TEST_SCOPE", scope + "-other"}).empty());
  CHECK(worker::processes_with_env("HARNESS_TEST_SCAN", {value}, worker::EnvPath{"HARNESS_TEST_UNSET", scope}).empty());
  ::kill(*pid, SIGKILL);
  for (int i = 0; i < 100 && !worker::processes_with_env("HARNESS_TEST_SCAN", {value}).empty(); ++i) ::usleep(10'000);
  CHECK(worker::processes_with_env("HARNESS_TEST_SCAN", {value}).empty()); // a zombie is not listed
  int status = 0;
  ::waitpid(*pid, &status, 0);
}

TEST_CASE("group_has_live_process counts a group of zombies as ended", "[proc_scan]") {
  auto pid = worker::spawn_process({"/bin/sleep", {"sleep", "30"}, std::nullopt, {}, -1, -1, true});
  REQUIRE(pid);
  CHECK(worker::group_has_live_process(*pid));
  ::kill(*pid, SIGKILL);
  // Not reaped yet: kill(-group, 0) still succeeds, yet nothing in the group runs.
  for (int i = 0; i < 100 && worker::group_has_live_process(*pid); ++i) ::usleep(10'000);
  CHECK(::kill(-*pid, 0) == 0);
  CHECK_FALSE(worker::group_has_live_process(*pid));
  int status = 0;
  ::waitpid(*pid, &status, 0);
  CHECK_FALSE(worker::group_has_live_process(*pid));
  CHECK_FALSE(worker::group_has_live_process(0));
}
