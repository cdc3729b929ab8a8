#pragma once
// Rendering validation results for the CLI: text (compiler style) and JSON.

#include "harness/spec/spec.hpp"

#include <boost/json/array.hpp>

#include <string>

namespace harness::spec {

/// Every diagnostic rendered with source line and caret, then a one-line summary.
std::string validation_text(const Spec& spec);

/// `{"valid": bool, "diagnostics": [{"file","line","col","severity","code","message"}], "plans": N}`.
std::string validation_json(const Spec& spec);

/// The `diagnostics` array of validation_json, for any list (a durations file's, say).
boost::json::array diagnostics_json(const std::vector<Diagnostic>& diagnostics);

} // namespace harness::spec
