#pragma once
// Compiler-style diagnostics: `path:line:col: error[H012]: message`, the source line, a caret.
// Codes are stable; docs/diagnostics.md lists every one.

#include <string>
#include <string_view>
#include <vector>

namespace harness::spec {

enum class Severity { error, warning, note };

/// One finding about an input file. `line` and `col` are 1-based; 0 means "whole file".
struct Diagnostic {
  std::string file;        ///< path as the user should see it (relative to the spec dir)
  int line = 0;
  int col = 0;
  Severity severity = Severity::error;
  std::string code;        ///< stable code, e.g. "H012"
  std::string message;
  std::string source_line; ///< the offending line's text, if known, for the caret display
};

std::string_view to_string(Severity s);

/// `file:line:col: error[CODE]: message` followed, when the source line is known, by the line and
/// a caret under column `col`.
std::string render(const Diagnostic& d);
/// Its first line alone, without the line break: `file:line:col: error[code]: message`, as a note
/// or a finding quotes it (printable, and without `:0` for a whole-file diagnostic).
std::string render_line(const Diagnostic& d);

/// True when any diagnostic is an error.
bool has_errors(const std::vector<Diagnostic>& ds);

} // namespace harness::spec
