#include "harness/orchestrator/uncommitted_verdicts.hpp"

#include "harness/spec/document_parsers.hpp"

#include <algorithm>
#include <filesystem>

namespace harness::orchestrator {
namespace fs = std::filesystem;

namespace {

bool says_passed(const std::optional<std::string>& text, const std::string& path) {
  if (!text) return false;
  std::vector<spec::Diagnostic> ignored;
  return spec::parse_summary(*text, path, ignored).verification == spec::VerificationStatus::passed;
}

bool report_says_passed(const std::optional<std::string>& text, const std::string& path) {
  if (!text) return false;
  std::vector<spec::Diagnostic> ignored;
  return spec::parse_verification(*text, path, ignored).status == spec::VerificationStatus::passed;
}

void not_covering(spec::Verification& v, const std::string& plan_id) {
  if (std::ranges::find(v.executed_since, plan_id) == v.executed_since.end()) v.executed_since.push_back(plan_id);
}

} // namespace

ForgottenVerdicts forget_uncommitted_verdicts(spec::Spec& spec, const std::vector<worker::GitChange>& changes,
                                              const std::set<std::string>& own_writes, const CommittedText& committed) {
  std::set<std::string> changed;
  for (const auto& c : changes)
    if (!c.deleted) changed.insert(c.path);
  ForgottenVerdicts forgotten;
  if (changed.empty()) return forgotten;
  auto relative = [&](const fs::path& file) {
    std::error_code ec;
    auto rel = fs::relative(file, spec.layout.project_root, ec).generic_string();
    return ec ? std::string() : rel;
  };
  // A report that says passed, changed since its last commit (or never committed) and not by us.
  auto doubted_report = [&](const fs::path& file, const spec::Verification& v) {
    const auto rel = relative(file);
    return v.status == spec::VerificationStatus::passed && !rel.empty() && changed.contains(rel) && !own_writes.contains(rel) &&
           !report_says_passed(committed(rel), rel);
  };
  std::vector<spec::PhaseNumber> phases;
  for (const auto& [n, v] : spec.verifications)
    if (const auto* dir = spec.layout.find_phase(n); dir && doubted_report(spec.layout.verification_file(*dir), v))
      phases.push_back(n);
  for (auto n : phases) {
    forgotten.reports.push_back(relative(spec.layout.verification_file(*spec.layout.find_phase(n))));
    spec.verifications.erase(n);
  }
  if (spec.final_verification && doubted_report(spec.layout.final_verification, *spec.final_verification)) {
    forgotten.reports.push_back(relative(spec.layout.final_verification));
    spec.final_verification.reset();
  }
  for (const auto& plan : spec.plans) {
    auto s = spec.summaries.find(plan.id);
    if (s == spec.summaries.end() || s->second.verification != spec::VerificationStatus::passed) continue;
    const auto* dir = spec.layout.find_phase(plan.phase);
    if (!dir) continue;
    std::error_code ec;
    const auto rel = fs::relative(spec.layout.summary_file(*dir, plan.id), spec.layout.project_root, ec).generic_string();
    if (ec || !changed.contains(rel) || own_writes.contains(rel) || says_passed(committed(rel), rel)) continue;
    s->second.verification.reset();
    s->second.answer.reset();
    if (auto v = spec.verifications.find(plan.phase); v != spec.verifications.end()) not_covering(v->second, plan.id);
    if (spec.final_verification) not_covering(*spec.final_verification, plan.id);
    forgotten.plans.push_back(plan.id);
  }
  return forgotten;
}

CommittedText committed_in_head(const fs::path& project_root) {
  return [project_root](const std::string& path) -> std::optional<std::string> {
    auto r = worker::run_git(project_root, {"show", "HEAD:" + path});
    if (r.exit_code != 0) return std::nullopt;
    return std::move(r.out);
  };
}

} // namespace harness::orchestrator
