#include "harness/util/json_text.hpp"

#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>
#include <fmt/format.h>

#include <cmath>

namespace harness::util {
namespace {

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
      out += boost::json::serialize(boost::json::string_view(key)); // escaped as Boost escapes it
      out += ':';
      write(out, e);
    }
    out += '}';
    return;
  }
  default: out += boost::json::serialize(v); return; // strings, integers, booleans, null
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
