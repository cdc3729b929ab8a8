#include "harness/spec/diagnostic.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace harness::spec {

std::string_view to_string(Severity s) {
  switch (s) {
  case Severity::error: return "error";
  case Severity::warning: return "warning";
  case Severity::note: return "note";
  }
  return "error";
}

std::string render(const Diagnostic& d) {
  std::string out = d.file;
  if (d.line > 0) out += fmt::format(":{}", d.line);
  if (d.line > 0 && d.col > 0) out += fmt::format(":{}", d.col);
  out += fmt::format(": {}[{}]: {}\n", to_string(d.severity), d.code, d.message);
  if (d.line > 0 && !d.source_line.empty()) {
    out += fmt::format("  {}\n", d.source_line);
    // Tabs stay tabs so the caret lines up under the same column as in the editor.
    std::string pad;
    const int col = std::max(1, d.col);
    for (int i = 0; i < col - 1 && i < static_cast<int>(d.source_line.size()); ++i)
      pad += d.source_line[static_cast<size_t>(i)] == '\t' ? '\t' : ' ';
    out += fmt::format("  {}^\n", pad);
  }
  return out;
}

bool has_errors(const std::vector<Diagnostic>& ds) {
  return std::any_of(ds.begin(), ds.end(), [](const Diagnostic& d) { return d.severity == Severity::error; });
}

} // namespace harness::spec
