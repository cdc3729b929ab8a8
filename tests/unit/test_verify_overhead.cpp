// Per-check overhead: the orchestrator verifies many plans a second, so file checks must not
// spawn processes or do needless work. Timings are generous guards only.
#include "harness/verify/engine.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace harness;
namespace fs = std::filesystem;

TEST_CASE("pytest's failures-first summary is read as counts") {
  auto py = verify::parse_test_counts("==== 1 failed, 5 passed in 0.21s ====");
  CHECK(py.found);
  CHECK(py.passed == 5);
  CHECK(py.failed == 1);
}

TEST_CASE("a file_exists check costs far less than a millisecond") {
  const fs::path dir = fs::temp_directory_path() / ("verify-overhead-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "present.txt") << "hello\n";
  spec::Check c;
  c.type = spec::CheckType::file_exists;
  c.id = "present";
  c.path = "present.txt";
  constexpr int n = 2000;
  const auto t0 = std::chrono::steady_clock::now();
  int passed = 0;
  for (int i = 0; i < n; ++i) passed += verify::run_check(c, dir, {}).status == verify::CheckStatus::passed;
  const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / n;
  std::printf("file_exists check: %.1f us each\n", us);
  fs::remove_all(dir);
  CHECK(passed == n);
  CHECK(us < 1000.0); // generous guard on a loaded debug build
}
