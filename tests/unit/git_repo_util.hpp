#pragma once
// A real git repository in a temporary directory, for the tests that read history back
// (test_worker_git, test_worker_trailer_cache): commit() makes a commit as a worker does.

#include "harness/worker/git.hpp"
#include "spec_test_util.hpp"

#include <catch2/catch.hpp>

#include <string>

namespace harness::test {

struct GitRepo {
  TempDir dir;
  GitRepo() {
    set_git_identity();
    sh(dir.path, "git init -q");
  }
  /// Writes `file` and commits it alone with `message`; the commit's full hash.
  std::string commit(const std::string& file, const std::string& message) {
    dir.write(file, message + "\n");
    auto hash = worker::commit_paths(dir.path, dir.path / ".orchestration/git.lock", {file}, message);
    REQUIRE(hash);
    return *hash;
  }
};

} // namespace harness::test
