#include "harness/spec/report.hpp"
#include "harness/util/json_text.hpp"

#include <boost/json.hpp>
#include <fmt/format.h>

#include <set>

namespace harness::spec {

namespace {

/// The phases of the spec: those the ROADMAP lists and those with a phase directory. A roadmap
/// not planned yet has phases and no directories: "0 plans in 0 phases" would say it has none.
std::size_t phase_count(const Spec& spec) {
  std::set<PhaseNumber> phases;
  for (const auto& d : spec.layout.phases) phases.insert(d.number);
  if (spec.roadmap)
    for (const auto& p : spec.roadmap->phases) phases.insert(p.number);
  return phases.size();
}

std::string counted(std::size_t n, std::string_view noun) { return fmt::format("{} {}{}", n, noun, n == 1 ? "" : "s"); }

} // namespace

std::string validation_text(const Spec& spec) {
  std::string out;
  std::size_t errors = 0, warnings = 0;
  for (const auto& d : spec.diagnostics) {
    out += render(d);
    errors += d.severity == Severity::error;
    warnings += d.severity == Severity::warning;
  }
  out += fmt::format("{}: {} in {}, {}, {}\n", spec.layout.spec_name, counted(spec.plans.size(), "plan"),
                     counted(phase_count(spec), "phase"), counted(errors, "error"), counted(warnings, "warning"));
  return out;
}

boost::json::array diagnostics_json(const std::vector<Diagnostic>& diagnostics) {
  boost::json::array diags;
  for (const auto& d : diagnostics)
    diags.push_back(boost::json::object{{"file", d.file},
                                        {"line", d.line},
                                        {"col", d.col},
                                        {"severity", to_string(d.severity)},
                                        {"code", d.code},
                                        {"message", d.message}});
  return diags;
}

std::string validation_json(const Spec& spec) {
  boost::json::object o{{"valid", spec.valid()}, {"diagnostics", diagnostics_json(spec.diagnostics)}, {"plans", spec.plans.size()}};
  return harness::util::json_text(o) + "\n";
}

} // namespace harness::spec
