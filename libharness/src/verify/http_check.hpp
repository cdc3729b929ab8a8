#pragma once
// Internal: the api_response check (HTTP over Boost.Beast, optional server started for it).

#include "harness/spec/check.hpp"
#include "harness/verify/engine.hpp"

namespace harness::verify::detail {

CheckResult run_api_response(const spec::Check& check, const std::filesystem::path& root, const VerifyOptions& opt);

/// True when `pattern` (JSON text) is a subset of `actual` (JSON text): every key of an object
/// present with a matching value, arrays compared element by element, scalars equal.
bool json_subset(std::string_view pattern, std::string_view actual);

} // namespace harness::verify::detail
