#pragma once
// Shared helpers for the store tests: a temporary directory and a store with one session.
#include "harness/store/store.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <random>
#include <string>

namespace store_test {

/// A fresh directory removed at scope exit.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::random_device rd;
    path = std::filesystem::temp_directory_path() / ("harness-store-" + std::to_string(rd()) + std::to_string(rd()));
    std::filesystem::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

/// A session record with the fields tests care about.
inline harness::store::SessionRecord session(const std::string& id, const std::string& task = "01-01") {
  harness::store::SessionRecord s;
  s.id = id;
  s.slot = 1;
  s.working_dir = "/tmp";
  s.task_id = task;
  s.token = "tok-" + id;
  s.adapter = "script";
  return s;
}

/// Opens the store at `dir/.orchestration/harness.db` or fails the test.
inline harness::store::Store open_store(const std::filesystem::path& dir,
                                        harness::store::Synchronous sync = harness::store::Synchronous::normal) {
  auto s = harness::store::Store::open({.db_path = harness::store::default_db_path(dir), .synchronous = sync});
  if (!s) FAIL(s.error());
  return std::move(*s);
}

}  // namespace store_test
