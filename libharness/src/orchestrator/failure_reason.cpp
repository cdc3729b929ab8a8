#include "harness/orchestrator/failure_reason.hpp"

#include "harness/util/redact.hpp"
#include "harness/util/text.hpp"

#include <fmt/format.h>

#include <cerrno>

namespace harness::orchestrator {
namespace {

std::string_view trim(std::string_view s) {
  const auto b = s.find_first_not_of(' ');
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(' ') - b + 1);
}

} // namespace

bool out_of_resources(int error_number) {
  return error_number == EMFILE || error_number == ENFILE || error_number == EAGAIN || error_number == ENOMEM;
}

std::string one_line(std::string_view text, std::size_t limit) {
  const std::string cleaned = util::printable(text, true);
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
  for (std::size_t n; cut < out.size() && cut + (n = util::utf8_length(out, cut)) + 3 <= limit;) cut += n;
  return out.substr(0, cut) + "...";
}

std::string last_said_line(std::string_view output) {
  while (!output.empty()) {
    const auto nl = output.find_last_of('\n', output.size() - 1);
    const std::string_view line = nl == std::string_view::npos ? output : output.substr(nl + 1);
    output = nl == std::string_view::npos ? std::string_view() : output.substr(0, nl);
    const std::string text = one_line(line, std::string::npos);
    // The reason goes into STATUS.md, which is committed: no secret of this environment.
    if (!text.empty() && !text.starts_with('{')) return util::redact_environment_secrets(text);
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
  if (!e.log_error.empty()) {
    // The log holds nothing to look at: what the worker said last is given here instead.
    out += fmt::format(" (its log {} could not be written: {}", e.log_path, e.log_error);
    if (const auto said = one_line(last_said_line(e.output_tail), worker_text_limit); !said.empty() && out.find(said) == std::string::npos)
      out += "; its output ends: " + said;
    out += ")";
  } else if (!e.log_path.empty()) {
    out += " (log: " + e.log_path + ")";
  }
  return out;
}

} // namespace harness::orchestrator
