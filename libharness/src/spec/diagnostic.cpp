#include "harness/spec/diagnostic.hpp"

#include "harness/util/text.hpp"

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

namespace {

/// The quoted line with each control character and invalid byte shown as '?': one byte for one,
/// so the caret stays under its column (tabs stay, for the same reason).
std::string shown_line(std::string_view line) {
  std::string out;
  for (std::size_t i = 0; i < line.size();) {
    const auto c = static_cast<unsigned char>(line[i]);
    const auto n = util::utf8_length(line, i);
    if (c == '\t' || (n > 0 && c >= 0x20 && c != 0x7f)) {
      out.append(line.substr(i, std::max<std::size_t>(n, 1)));
      i += std::max<std::size_t>(n, 1);
    } else {
      out += '?';
      ++i;
    }
  }
  return out;
}

} // namespace

std::string render_line(const Diagnostic& d) {
  // A spec's text reaches the terminal here: its escape sequences would set the window title or
  // clear the screen (review FF F8), so the file and the message are shown printable.
  std::string out = util::printable(d.file, false);
  if (d.line > 0) out += fmt::format(":{}", d.line); // line 0: the whole file
  if (d.line > 0 && d.col > 0) out += fmt::format(":{}", d.col);
  return out + fmt::format(": {}[{}]: {}", to_string(d.severity), d.code, util::printable(d.message, true));
}

std::string render(const Diagnostic& d) {
  std::string out = render_line(d) + "\n";
  if (d.line > 0 && !d.source_line.empty()) {
    out += fmt::format("  {}\n", shown_line(d.source_line));
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
