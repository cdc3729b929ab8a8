#include "harness/spec/report.hpp"

#include <boost/json.hpp>
#include <fmt/format.h>

namespace harness::spec {

std::string validation_text(const Spec& spec) {
  std::string out;
  int errors = 0, warnings = 0;
  for (const auto& d : spec.diagnostics) {
    out += render(d);
    errors += d.severity == Severity::error;
    warnings += d.severity == Severity::warning;
  }
  out += fmt::format("{}: {} plans in {} phases, {} error{}, {} warning{}\n", spec.layout.spec_name, spec.plans.size(),
                     spec.layout.phases.size(), errors, errors == 1 ? "" : "s", warnings, warnings == 1 ? "" : "s");
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
  return boost::json::serialize(o) + "\n";
}

} // namespace harness::spec
