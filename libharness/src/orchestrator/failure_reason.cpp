#include "harness/orchestrator/failure_reason.hpp"

#include <fmt/format.h>

namespace harness::orchestrator {
namespace {

/// Length of the valid UTF-8 sequence starting at `s[i]`, or 0 for an invalid byte.
std::size_t utf8_length(std::string_view s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = byte(i);
  if (c < 0x80) return 1;
  std::size_t n = 0;
  unsigned char lo = 0x80, hi = 0xbf; // the range of the second byte, narrowed against overlongs and surrogates
  if (c >= 0xc2 && c <= 0xdf) n = 2;
  else if (c >= 0xe0 && c <= 0xef) n = 3, lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
  else if (c >= 0xf0 && c <= 0xf4) n = 4, lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
  else return 0;
  if (i + n > s.size() || byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k)
    if (byte(i + k) < 0x80 || byte(i + k) > 0xbf) return 0;
  return n;
}

/// Valid UTF-8 with '\n' between lines; other control characters and invalid bytes dropped.
std::string clean(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (c == '\n' || c == '\r') out += '\n', ++i;
    else if (c == '\t') out += ' ', ++i;
    else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ++i;
    else if (const std::size_t n = utf8_length(text, i); n > 0) out.append(text.substr(i, n)), i += n;
    else ++i;
  }
  return out;
}

std::string_view trim(std::string_view s) {
  const auto b = s.find_first_not_of(' ');
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(' ') - b + 1);
}

} // namespace

std::string one_line(std::string_view text, std::size_t limit) {
  const std::string cleaned = clean(text);
  std::string out;
  std::string_view rest = cleaned;
  while (!rest.empty()) {
    const auto nl = rest.find('\n');
    const auto line = trim(rest.substr(0, nl));
    rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
    if (!line.empty()) out.append(out.empty() ? "" : "; ").append(line);
  }
  if (out.size() <= limit) return out;
  std::size_t cut = 0;
  for (std::size_t n; cut < out.size() && cut + (n = utf8_length(out, cut)) + 3 <= limit;) cut += n;
  return out.substr(0, cut) + "...";
}

std::string last_said_line(std::string_view output) {
  while (!output.empty()) {
    const auto nl = output.find_last_of('\n', output.size() - 1);
    const std::string_view line = nl == std::string_view::npos ? output : output.substr(nl + 1);
    output = nl == std::string_view::npos ? std::string_view() : output.substr(0, nl);
    const std::string text = one_line(line, std::string::npos);
    if (!text.empty() && !text.starts_with('{')) return text;
  }
  return {};
}

std::string failure_reason(const AttemptEnd& e) {
  const std::string how = e.signal ? fmt::format("killed by signal {}", e.signal)
                          : e.exit_code != 0 ? fmt::format("exited {}", e.exit_code)
                                             : std::string();
  std::string what;
  if (!e.reported.empty()) what = "the worker reported task_failed: " + one_line(e.reported, worker_text_limit);
  else {
    if (!e.agent_failure.empty()) what = one_line(e.agent_failure, worker_text_limit);
    // A process that failed without a word: what it printed last is the best clue there is.
    if (!how.empty())
      if (auto said = last_said_line(e.output_tail); !said.empty())
        what += (what.empty() ? "its output ends: " : "; its output ends: ") + one_line(said, worker_text_limit);
    if (how.empty() && what.empty()) what = e.finding;
  }
  if (how.empty() && what.empty()) return {};
  std::string out = how + (!how.empty() && !what.empty() ? ": " : "") + what;
  if (!e.refused_tools.empty()) out += "; the agent was refused " + e.refused_tools;
  if (!e.log_path.empty()) out += " (log: " + e.log_path + ")";
  return out;
}

} // namespace harness::orchestrator
