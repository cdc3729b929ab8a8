#pragma once
// Internal: ui_element_exists and ui_navigation, run in a headless Chromium by ui_driver.cjs.
#include "harness/spec/check.hpp"
#include "harness/verify/engine.hpp"

namespace harness::verify::detail {

CheckResult run_ui_check(const spec::Check& check, const std::filesystem::path& root, const VerifyOptions& opt);

/// The JSON the driver reads for `check` (type, url, selector, steps, expects, timeout_ms).
std::string ui_driver_input(const spec::Check& check, std::chrono::milliseconds timeout);

} // namespace harness::verify::detail
