#pragma once
// Command-line options of harness-mcp, parsed in the library so that they are tested.
#include <expected>
#include <filesystem>
#include <string>
#include <vector>

namespace harness::mcp {

/// Which tool set a harness-mcp process serves.
enum class Role { orchestrator, worker, conformance_fixture };

/// Parsed harness-mcp options.
struct McpOptions {
  Role role = Role::orchestrator;
  /// Project root; state lives in <project>/.orchestration/. Empty (no --project): the repository
  /// the working directory lies in, found as git finds it, else the working directory.
  std::filesystem::path project;
  std::vector<std::string> tools;       ///< non-empty: expose only these tools
  std::size_t page_size = 100;
};

/// Parses argv (after the program name); an error message for unknown or malformed flags.
std::expected<McpOptions, std::string> parse_options(const std::vector<std::string>& args);

/// The --help text.
std::string usage();

}  // namespace harness::mcp
