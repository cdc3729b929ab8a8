#pragma once
// The time now in UTC as text, for the stamps harness writes into documents and names.

#include <string>

namespace harness::util {

/// Now in UTC formatted by strftime's `format` ("%Y-%m-%dT%H:%M:%SZ", "%Y-%m-%d"); at most 63
/// characters.
std::string utc_now(const char* format);

} // namespace harness::util
