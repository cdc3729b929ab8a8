#include "harness/orchestrator/checkpoint_question.hpp"

#include "harness/util/text.hpp"

#include <fmt/format.h>

namespace harness::orchestrator {
namespace {

/// "human_needed: human_needed (5/7): ..." -> "human_needed (5/7): ...": the scheduler names the
/// verdict before the verifier's message, which names it too.
std::string without_repeated_verdict(const std::string& reason) {
  const auto colon = reason.find(": ");
  if (colon == std::string::npos) return reason;
  const std::string verdict = reason.substr(0, colon), rest = reason.substr(colon + 2);
  return rest.starts_with(verdict) || rest.starts_with("final " + verdict) ? rest : reason;
}

} // namespace

std::string checkpoint_question(const sched::Action& a, const std::vector<std::string>& findings) {
  // A plan's verification checkpoint or a worker's question: the detail says it all.
  if (a.reason.starts_with("checkpoint: ")) return a.reason.substr(12);
  const std::string why = without_repeated_verdict(a.reason);
  // What a loop's limit leaves for the person to judge: the scheduler's reason says only that the
  // loop ran out. Clipped: the question is one line in `respond --list` and on the terminal.
  std::string found;
  for (std::size_t i = 0; i < findings.size() && i < 3; ++i) found += (i ? "; " : "") + findings[i];
  if (findings.size() > 3) found += fmt::format("; and {} more", findings.size() - 3);
  found = util::clipped(util::printable(found, false), 400);
  const bool say = !found.empty() && why.find(found) == std::string::npos;
  switch (a.kind) {
  case sched::TaskKind::verify_phase:
    return fmt::format("phase {} verification: {}{}; approve to count the phase as verified, refuse to block it", a.subject,
                       why, say ? "; last found: " + found : "");
  case sched::TaskKind::verify_final:
    return fmt::format("final verification: {}; approve to accept the spec as complete, refuse to block it", why);
  case sched::TaskKind::check_plans:
    return fmt::format("plans of phase {}: {}{}; approve to execute them as they are, refuse to block the phase", a.subject,
                       why, say ? "; the checker's last findings: " + found : "");
  default: return why;
  }
}

std::string checkpoint_opened_message(const std::string& question, const std::string& checkpoint_id,
                                      const std::string& forms) {
  return fmt::format("{} -- answer with: harness-cli respond {} {}", question, checkpoint_id, forms);
}

} // namespace harness::orchestrator
