#pragma once
// Shared by the spec and graph unit tests: a temporary directory and file writing.

#include <filesystem>
#include <cstdio>
#include <fstream>
#include <string>
#include <unistd.h>

namespace harness::test {

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

} // namespace harness::test
