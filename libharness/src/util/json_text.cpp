#include "harness/util/json_text.hpp"

#include "harness/util/text.hpp"

#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>
#include <fmt/format.h>

#include <cmath>

namespace harness::util {
namespace {

/// A string as JSON, its invalid UTF-8 bytes replaced by U+FFFD: Boost.JSON copies them as they
/// are, and a JSON reader then refuses the whole output (review FF F5: a byte 0x80 in a SUMMARY
/// made `validate --json` unreadable).
std::string json_string(std::string_view s) {
  if (valid_utf8(s)) return boost::json::serialize(boost::json::string_view(s.data(), s.size()));
  std::string fixed;
  for (std::size_t i = 0; i < s.size();) {
    if (const auto n = utf8_length(s, i); n > 0) {
      fixed.append(s.substr(i, n));
      i += n;
    } else {
      fixed += "\xEF\xBF\xBD";
      ++i;
    }
  }
  return boost::json::serialize(boost::json::string_view(fixed));
}

void write(std::string& out, const boost::json::value& v) {
  switch (v.kind()) {
  case boost::json::kind::double_: out += json_number(v.get_double()); return;
  case boost::json::kind::array: {
    out += '[';
    bool first = true;
    for (const auto& e : v.get_array()) {
      if (!first) out += ',';
      first = false;
      write(out, e);
    }
    out += ']';
    return;
  }
  case boost::json::kind::object: {
    out += '{';
    bool first = true;
    for (const auto& [key, e] : v.get_object()) {
      if (!first) out += ',';
      first = false;
      out += json_string(key); // escaped as Boost escapes it
      out += ':';
      write(out, e);
    }
    out += '}';
    return;
  }
  case boost::json::kind::string: out += json_string(v.get_string()); return;
  default: out += boost::json::serialize(v); return; // integers, booleans, null
  }
}

} // namespace

std::string json_number(double d) {
  if (!std::isfinite(d)) return "null";
  std::string s = fmt::format("{}", d); // shortest round trip; an exponent only far from 1
  if (s.find('e') == std::string::npos) return s;
  // Written out: as many decimals as the shortest form's digits need, trailing zeros dropped.
  const auto e = s.find('e');
  const int exponent = std::stoi(s.substr(e + 1));
  const auto dot = s.find('.');
  const int mantissa_decimals = dot == std::string::npos || dot > e ? 0 : static_cast<int>(e - dot - 1);
  const int decimals = std::max(0, mantissa_decimals - exponent);
  s = fmt::format("{:.{}f}", d, decimals);
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

std::string json_text(const boost::json::value& v) {
  std::string out;
  write(out, v);
  return out;
}

} // namespace harness::util
