#pragma once
// The `must_pass` checks a PLAN declares (seed 000 Phase 4). Parsed by spec, run by verify.

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace harness::spec {

enum class CheckType {
  file_exists,
  file_contains,
  command_output,
  api_response,
  build_succeeds,
  tests_pass,
  ui_element_exists,
  ui_navigation,
  visual_quality, ///< human
  ux_flow,        ///< human
};

std::string_view to_string(CheckType t);
/// Parses a check type name; nullopt for an unknown name.
std::optional<CheckType> parse_check_type(std::string_view name);
/// True for the types only a human can judge (never auto-passed).
bool is_human(CheckType t);

/// A command as written in a check: an argv list, or a string split like a POSIX shell splits
/// words (quotes, backslashes) but never run through a shell unless `shell` is set.
struct Command {
  std::vector<std::string> argv; ///< when `shell`, argv is {"/bin/sh", "-c", text}
  std::string text;              ///< the command as written, for display
  bool shell = false;
  bool empty() const { return argv.empty(); }
};

/// What a command or HTTP check expects. Unset fields are not checked.
struct Expectation {
  std::optional<int> exit_code;          ///< command_output (default 0 when nothing else is set)
  std::optional<std::string> stdout_re;  ///< regex searched in stdout
  std::optional<std::string> stderr_re;  ///< regex searched in stderr
  std::optional<int> status;             ///< api_response HTTP status
  std::optional<std::string> body_re;    ///< api_response: regex searched in the body
  std::optional<std::string> body_json;  ///< api_response: JSON (serialized) that must be a subset of the body
  std::optional<std::string> url;        ///< ui_navigation: expected final URL (regex)
  std::optional<std::string> text;       ///< ui_*: text expected on the page
};

/// One step of a `ui_navigation` check.
struct UiStep {
  std::string action;   ///< goto | click | fill | wait_for | expect_text | expect_url
  std::string selector;
  std::string value;    ///< url for goto, text for fill/expect_text, regex for expect_url
};

/// A `must_pass` entry. A flat struct: the fields a type does not use stay empty.
struct Check {
  std::string id;
  CheckType type = CheckType::file_exists;
  int line = 0; ///< line of the entry in the PLAN file (1-based), for diagnostics and reports

  // file_exists, file_contains
  std::string path;
  std::string pattern;          ///< file_contains: regex (or literal text when `literal`)
  bool literal = false;
  std::optional<int> count;     ///< file_contains: exact number of matches required

  // command_output, build_succeeds, tests_pass; api_response/ui_*: `start` starts a server
  Command command;
  Command start;
  std::optional<std::string> ready_url; ///< polled until it answers before the check runs
  std::map<std::string, std::string> env;

  // api_response
  std::string method;   ///< upper case, from `method:` or "POST /api/auth/login"; GET by default
  std::string endpoint; ///< path part of `endpoint`
  std::string url;      ///< full URL; or base URL joined with `endpoint`; also ui_* page URL
  std::map<std::string, std::string> headers;
  std::string body;     ///< request body (a YAML map is serialized to JSON)

  // ui_element_exists, ui_navigation
  std::string selector;
  std::vector<UiStep> steps;

  // visual_quality, ux_flow
  std::string description;

  Expectation expects;
  std::optional<double> timeout_seconds; ///< default chosen by the verify engine (10 min)
};

/// The placeholder a check that starts a server writes for a port the engine picks per run.
inline constexpr std::string_view k_port_placeholder = "{port}";

/// True when the check's start command, URLs, endpoint, steps or expected URL mention `{port}`.
bool uses_port_placeholder(const Check& check);

} // namespace harness::spec
