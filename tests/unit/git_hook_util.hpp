#pragma once
// Git hooks for the tests that commit in a real repository (test_worker_git, test_worker_commit,
// test_worker_index_sync, test_worker_commit_hooks, test_worker_script_worker): each test states
// only its hook's script.

#include "spec_test_util.hpp"

#include <filesystem>
#include <string>

namespace harness::test {

/// Writes `script` to `rel` under `dir` (".git/hooks/pre-commit", or a core.hooksPath's) and
/// makes it executable, as git runs it (`mode` 0644: present but never run). Returns its path.
inline std::filesystem::path write_hook(const TempDir& dir, const std::string& rel, const std::string& script,
                                        std::filesystem::perms mode = std::filesystem::perms(0755)) {
  auto file = dir.write(rel, script);
  std::filesystem::permissions(file, mode);
  return file;
}

} // namespace harness::test
