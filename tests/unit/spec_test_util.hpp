#pragma once
// Shared by the unit tests: a temporary directory, file writing, and git projects to run in.

#include <filesystem>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <string_view>
#include <unistd.h>

namespace harness::test {

/// Running, not a zombie: a killed grandchild belongs to init (here the container's first
/// process), which may be slow to reap it; kill(pid, 0) also succeeds on a zombie.
inline bool process_running(int pid) {
  if (pid <= 0 || ::kill(pid, 0) != 0) return false;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const auto close = text.rfind(')');
  return close == std::string::npos || text.substr(close + 2, 1) != "Z";
}

/// Runs `cmd` with /bin/sh in `cwd` and returns its stdout and stderr (tests only).
inline std::string sh(const std::filesystem::path& cwd, const std::string& cmd) {
  std::string full = "cd '" + cwd.string() + "' && " + cmd + " 2>&1";
  std::string out;
  if (FILE* p = ::popen(full.c_str(), "r")) {
    char buf[4096];
    while (size_t n = std::fread(buf, 1, sizeof buf, p)) out.append(buf, n);
    ::pclose(p);
  }
  return out;
}

struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "harness-test-XXXXXX").string();
    path = ::mkdtemp(tmpl.data());
    // The project root is found by walking up to a `.git`: without one here, a `.git` anybody
    // leaves in /tmp would make /tmp the project and every relative path wrong. An empty
    // directory is no repository to git, which goes on looking above it, as before.
    std::filesystem::create_directory(path / ".git");
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  std::filesystem::path write(const std::string& rel, const std::string& content) const {
    auto p = path / rel;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << content;
    return p;
  }
};

/// A worker::SpecOwner that takes the one spec name given (no renamed directories).
inline std::function<bool(std::string_view)> only_spec(std::string name) {
  return [name = std::move(name)](std::string_view s) { return s == name; };
}

/// Commits made by the code under test get a fixed author and committer: the machine running the
/// tests may have no git identity.
inline void set_git_identity() {
  ::setenv("GIT_AUTHOR_NAME", "t", 1);
  ::setenv("GIT_AUTHOR_EMAIL", "t@example.com", 1);
  ::setenv("GIT_COMMITTER_NAME", "t", 1);
  ::setenv("GIT_COMMITTER_EMAIL", "t@example.com", 1);
}

#ifdef HARNESS_SOURCE_DIR
/// The example spec committed in a new git repository at `root` (with set_git_identity); returns
/// its spec directory, root/docs/specs/SPC-001-task-tracker.
inline std::filesystem::path example_project(const std::filesystem::path& root) {
  set_git_identity();
  const auto spec = root / "docs/specs/SPC-001-task-tracker";
  std::filesystem::create_directories(spec.parent_path());
  std::filesystem::copy(HARNESS_SOURCE_DIR "/examples/specs/SPC-001-task-tracker", spec,
                        std::filesystem::copy_options::recursive);
  sh(root, "git init -q && git add -A && git commit -qm init");
  return spec;
}
#endif

} // namespace harness::test
