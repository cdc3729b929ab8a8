#pragma once
// Putting harness into a user's project: the /harness:* commands, agents, templates and
// references under `.claude/`, the harness MCP server in `.mcp.json`, and new spec directories.

#include <cstddef>
#include <expected>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace harness::setup {

/// Why install_skills or init_spec did nothing: the user's input (a project that is not a
/// directory, an unusable name, a .mcp.json that cannot be merged) or the machine (a file that
/// cannot be read or written).
struct SetupError {
  std::string message;
  bool bad_input = false; ///< true when the user can fix it by changing what they asked
};

/// What install_skills did, path by path (relative to the project).
struct InstallReport {
  std::vector<std::string> written;   ///< created or changed
  std::vector<std::string> unchanged; ///< already identical
  /// Files changed since harness installed them (a user's edit): left as they are, the new
  /// version written beside as `<file>.harness-new`.
  std::vector<std::string> kept;
  /// Files replaced that no earlier install recorded (installed before records were kept, or a
  /// user's own file of that name): the old content saved beside as `<file>.harness-old`.
  std::vector<std::string> backed_up;
};

/// The skills directory for a program in `exe_dir`: <exe_dir>/../share/harness/skills when
/// installed, else `source_dir`/skills; empty when neither holds skills/commands/harness.
std::filesystem::path find_skills_dir(const std::filesystem::path& exe_dir, const std::filesystem::path& source_dir);

/// Copies skills/commands/harness/*.md to .claude/commands/harness/, skills/agents/*.md to
/// .claude/agents/, skills/templates and skills/references to .claude/harness/, and merges the
/// `harness` server into .mcp.json. Idempotent: unchanged files are not rewritten. A .mcp.json
/// that is not a JSON object is an error naming it and is left as it was.
std::expected<InstallReport, SetupError> install_skills(const std::filesystem::path& skills_dir,
                                                         const std::filesystem::path& project,
                                                         const std::filesystem::path& harness_mcp);

/// `existing` (.mcp.json text, empty when there is none) with mcpServers.harness set to run
/// `harness_mcp`; every other key and server is kept as it was.
std::expected<std::string, std::string> merge_mcp_json(std::string_view existing, const std::filesystem::path& harness_mcp);

/// "User sign-in!" -> "user-sign-in": lower case, runs of other characters become one '-'. A
/// Latin letter with a diacritic is its base letter ("Über Straße" -> "uber-strasse"); other
/// non-ASCII text (CJK, emoji) is a separator, so a name of nothing else gives "".
std::string slug(std::string_view name);

/// The longest slug init_spec takes for a spec's directory name.
inline constexpr std::size_t max_slug_length = 100;

/// Whether init_spec may create a spec whose name another spec already has (with its own number).
enum class SameName { refuse, allow };

/// Creates docs/specs/SPC-NNN-<slug>/SPEC.md from skills/templates/spec.md (NNN: one more than
/// the highest SPC number under docs/specs, from 001). `project` must exist. Returns the new
/// directory. A name whose slug is empty or longer than max_slug_length is bad input. With
/// SameName::refuse, an existing SPC-MMM-<slug> is bad input naming it: a second
/// `init --spec notifications` is more often a repeated command than a second feature.
std::expected<std::filesystem::path, SetupError> init_spec(const std::filesystem::path& project, std::string_view name,
                                                           const std::filesystem::path& skills_dir,
                                                           SameName same_name = SameName::refuse);

} // namespace harness::setup
