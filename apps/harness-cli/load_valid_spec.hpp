#pragma once
// The first step of every command that needs a valid spec: load it, or print why not and set
// exit code 2 (invalid input). With --json, stdout gets an object either way: {"error": ...}, or
// the validation result ({"valid": false, "diagnostics": [...]}).

#include "commands.hpp"
#include "print_error.hpp"

#include "harness/spec/report.hpp"
#include "harness/spec/spec.hpp"

#include <iostream>
#include <optional>
#include <string>

namespace harness::cli {

inline std::optional<spec::Spec> load_valid_spec(const std::string& dir, ExitCode& exit, Output output) {
  auto spec = spec::load_spec(dir);
  if (!spec) {
    print_error(spec.error(), output);
    exit.value = 2;
    return std::nullopt;
  }
  if (!spec->valid()) {
    std::cerr << spec::validation_text(*spec);
    if (output == Output::json) std::cout << spec::validation_json(*spec);
    exit.value = 2;
    return std::nullopt;
  }
  return std::move(*spec);
}

} // namespace harness::cli
