#pragma once
// JSON as people and jq read it. Boost.JSON (1.81) prints every double in exponent form
// (`"percent":6.7E0`, `"elapsed":2.04731535E-1`): valid JSON, but not what a shell script or a
// person expects. Everything that prints JSON for users goes through json_text.

#include <boost/json/fwd.hpp>

#include <string>

namespace harness::util {

/// `v` serialized compactly, as boost::json::serialize does, except that a double is written in
/// its shortest form that reads back the same, without an exponent (`6.7`, `0.204731535`,
/// `0.00001329`, `3`); a double that is not finite (no JSON number) is `null`.
std::string json_text(const boost::json::value& v);

/// One double as json_text writes it.
std::string json_number(double d);

} // namespace harness::util
