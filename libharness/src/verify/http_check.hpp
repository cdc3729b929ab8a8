#pragma once
// Internal: the api_response check (HTTP over Boost.Beast, optional server started for it).

#include "harness/spec/check.hpp"
#include "harness/verify/engine.hpp"

#include <expected>
#include <memory>

namespace harness::verify::detail {

CheckResult run_api_response(const spec::Check& check, const std::filesystem::path& root, const VerifyOptions& opt);

/// True when `pattern` (JSON text) is a subset of `actual` (JSON text): every key of an object
/// present with a matching value, arrays compared element by element, scalars equal.
bool json_subset(std::string_view pattern, std::string_view actual);

class Server;
/// Starts `check.start` (when the check has one) and waits, up to `timeout`, until
/// `check.ready_url` or else `url` answers over HTTP (any status). The result keeps the server
/// running; destroying it stops the server's process group. The error says why not.
std::expected<std::shared_ptr<Server>, std::string> serve_and_wait(const spec::Check& check, const std::filesystem::path& root,
                                                                   const std::string& url, std::chrono::milliseconds timeout);

} // namespace harness::verify::detail
