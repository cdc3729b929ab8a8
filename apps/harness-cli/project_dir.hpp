#pragma once
// The project a command works on: --project when given, else the repository the working
// directory lies in (util::find_project_root), else the working directory.

#include "print_error.hpp"

#include "harness/util/project_root.hpp"

#include <CLI/CLI.hpp>

#include <filesystem>
#include <optional>
#include <string>

namespace harness::cli {

/// The `--project DIR` option, the same on every command that takes it.
inline void add_project_option(CLI::App* cmd, std::string& into) {
  cmd->add_option("--project", into, "project root (default: the nearest directory up holding .git, as git finds it)");
}

/// `given` is --project's value, empty when the flag was not given.
inline std::filesystem::path project_dir(const std::string& given) {
  if (!given.empty()) return given;
  return util::find_project_root(".").value_or(".");
}

/// project_dir, or nullopt after saying so (exit 2) when --project names no directory, or one
/// that is no project's root (neither .git nor .orchestration in it: a subdirectory, a sibling):
/// a mistyped path must not read as a project where nothing waits and nothing runs.
inline std::optional<std::filesystem::path> existing_project_dir(const std::string& given, Output output, int& exit_code) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::string why;
  if (!given.empty() && !fs::is_directory(given, ec)) why = "--project " + given + " is not a directory";
  else if (!given.empty() && !fs::exists(fs::path(given) / ".git", ec) && !fs::exists(fs::path(given) / ".orchestration", ec))
    why = "--project " + given + " is not a project's root: it holds neither .git nor .orchestration";
  if (why.empty()) return project_dir(given);
  print_error(why, output);
  exit_code = 2;
  return std::nullopt;
}

} // namespace harness::cli
