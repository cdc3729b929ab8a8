#pragma once
// Internal: the `{port}` placeholder of checks that start a server. A fixed port in a plan works
// until two verifications run at once (two slots of one run, two clones on one machine) and one
// check talks to the other's server; `{port}` is replaced with a port free at that moment.

#include "harness/spec/check.hpp"

#include <expected>
#include <string>

namespace harness::verify::detail {

/// The check with every `{port}` replaced by `port`.
spec::Check with_port(spec::Check check, int port);

/// A TCP port on 127.0.0.1 that nothing listens on now (the kernel's choice of an ephemeral
/// port); the server must still bind it, so a race with another program is possible but rare.
std::expected<int, std::string> free_local_port();

} // namespace harness::verify::detail
