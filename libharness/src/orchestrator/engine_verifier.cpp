#include "harness/orchestrator/engine_verifier.hpp"

#include "harness/verify/engine.hpp"

#include <fmt/format.h>

namespace harness::orchestrator {
namespace {

sched::Verdict verdict_of(spec::VerificationStatus s) {
  switch (s) {
  case spec::VerificationStatus::passed: return sched::Verdict::passed;
  case spec::VerificationStatus::gaps_found: return sched::Verdict::gaps_found;
  case spec::VerificationStatus::human_needed: return sched::Verdict::human_needed;
  }
  return sched::Verdict::gaps_found;
}

/// "; a person must check (<report>): 03-02 looks-right: ..." for the items `pick` selects, up
/// to three: the checkpoint that follows a human_needed or gaps_found report asks about these.
template <class Pick>
std::string listed(const verify::Report& r, std::string_view label, std::string_view report_name, Pick pick) {
  std::vector<std::string> items;
  for (const auto& c : r.results)
    if (pick(c.status))
      items.push_back(fmt::format("{}{}{}", c.plan.empty() ? "" : c.plan + " ", c.id, c.message.empty() ? "" : ": " + c.message));
  if (items.empty()) return {};
  std::string out = fmt::format("; {} ({}): ", label, report_name);
  for (std::size_t i = 0; i < items.size() && i < 3; ++i) out += (i ? "; " : "") + items[i];
  if (items.size() > 3) out += fmt::format("; and {} more", items.size() - 3);
  return out;
}

/// The report's items for a person, then its gaps.
std::string items(const verify::Report& r, std::string_view report_name) {
  return listed(r, "a person must check", report_name, [](verify::CheckStatus s) { return s == verify::CheckStatus::human; }) +
         listed(r, "gaps", report_name, [](verify::CheckStatus s) {
           return s == verify::CheckStatus::failed || s == verify::CheckStatus::error;
         });
}

/// Where the phase's report is, as the spec directory names it.
std::string report_name(const spec::Spec& spec, spec::PhaseNumber phase) {
  const auto* dir = spec.layout.find_phase(phase);
  return dir ? spec.layout.relative(spec.layout.verification_file(*dir)) : std::string("VERIFICATION.md");
}

/// The plans whose `summary` check failed: their SUMMARY is gone (VerifyOptions::check_summaries).
std::vector<std::string> missing_summaries(const verify::Report& r) {
  std::vector<std::string> out;
  for (const auto& c : r.results)
    if (c.id == "summary" && c.status == verify::CheckStatus::failed) out.push_back(c.plan);
  return out;
}

/// "; changed outside files_modified: a, b and 3 more": what a passed plan wrote undeclared, for
/// the run's verify-plan line, the one place a user reads at a plan's end (the undeclared write is
/// a conflict the scheduler could not see). Empty when none.
std::string outside(const verify::Report& r) {
  for (const auto& c : r.results) {
    if (c.outside_files.empty()) continue;
    std::string names;
    constexpr std::size_t shown = 5;
    for (std::size_t i = 0; i < c.outside_files.size() && i < shown; ++i) names += (i ? ", " : "") + c.outside_files[i];
    if (c.outside_files.size() > shown) names += fmt::format(" and {} more", c.outside_files.size() - shown);
    return fmt::format("; {}{}", verify::outside_files_label, names);
  }
  return {};
}

std::string first_gap(const verify::Report& r) {
  for (const auto& c : r.results)
    if (c.status == verify::CheckStatus::failed || c.status == verify::CheckStatus::error)
      return fmt::format("{} {}: {}", c.plan, c.id, c.message);
  return {};
}

class EngineVerifier final : public Verifier {
public:
  explicit EngineVerifier(verify::VerifyOptions checks) : m_checks(std::move(checks)) {}

  VerifyOutcome verify_plan(const spec::Spec& spec, const spec::Plan& plan) override {
    verify::VerifyOptions opt = m_checks;
    opt.trailers = trailer_index();
    opt.cancel = cancel_flag();
    auto r = verify::verify_plan(spec, plan, opt);
    if (cancelled()) return stopped();
    if (r.status == spec::VerificationStatus::gaps_found) return {sched::Verdict::passed, true, first_gap(r)};
    // A check only a human can judge does not hold the plan: the phase gate asks for it.
    return {sched::Verdict::passed, false, fmt::format("{}/{} checks passed{}", r.passed(), r.total(), outside(r))};
  }
  VerifyOutcome verify_phase(const spec::Spec& spec, spec::PhaseNumber phase) override {
    verify::VerifyOptions opt = m_checks;
    opt.trailers = trailer_index();
    opt.cancel = cancel_flag();
    opt.check_summaries = true;
    auto r = verify::verify_phase(spec, phase, opt);
    if (cancelled()) return stopped(); // a half-run verification is not a verdict: nothing written
    auto file = verify::write_report(spec, phase, r);
    return {verdict_of(r.status), false,
            fmt::format("{} ({}/{}){}{}", spec::to_string(r.status), r.passed(), r.total(), items(r, report_name(spec, phase)),
                        file ? "" : "; could not write VERIFICATION.md: " + file.error()),
            file ? "" : file.error(), missing_summaries(r)};
  }
  VerifyOutcome verify_final(const spec::Spec& spec) override {
    verify::VerifyOptions opt = m_checks;
    opt.trailers = trailer_index();
    opt.cancel = cancel_flag();
    opt.check_summaries = true;
    auto r = verify::verify_final(spec, opt);
    if (cancelled()) return stopped();
    auto file = verify::write_report(spec, std::nullopt, r);
    return {verdict_of(r.status), false,
            fmt::format("final {} ({}/{}){}{}", spec::to_string(r.status), r.passed(), r.total(),
                        items(r, spec.layout.relative(spec.layout.final_verification)),
                        file ? "" : "; could not write FINAL-VERIFICATION.md: " + file.error()),
            file ? "" : file.error(), missing_summaries(r)};
  }

private:
  static VerifyOutcome stopped() { return {sched::Verdict::passed, true, "cancelled: the run is stopping"}; }
  verify::VerifyOptions m_checks;
};

} // namespace

std::unique_ptr<Verifier> make_engine_verifier(verify::VerifyOptions checks) { return std::make_unique<EngineVerifier>(std::move(checks)); }

} // namespace harness::orchestrator
