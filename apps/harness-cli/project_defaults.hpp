#pragma once
// What orchestrate would start with no flags typed: the built-in defaults, then the project's
// .orchestration/config.yaml. status and simulate answer for that run (its gate, its slots).

#include "harness/orchestrator/run_config.hpp"
#include "harness/orchestrator/run_options.hpp"
#include "harness/spec/diagnostic.hpp"
#include "harness/spec/spec.hpp"

#include <iostream>

namespace harness::cli {

/// A config.yaml with errors is said on stderr and left out: status and simulate still answer
/// (orchestrate refuses to run with it, and says so itself).
inline orchestrator::RunOptions project_defaults(const spec::Layout& layout) {
  orchestrator::RunOptions ro;
  if (auto applied = orchestrator::apply_project_config(ro, layout); !applied) {
    std::cerr << "harness-cli: warning: .orchestration/config.yaml is not valid; the built-in defaults are used here "
                 "(orchestrate refuses to run until it is fixed):\n";
    for (const auto& d : applied.error()) std::cerr << spec::render(d);
    return {};
  }
  return ro;
}

} // namespace harness::cli
