// JSON for people and jq: numbers as they are written by hand (`6.7`, not Boost's `6.7E0`),
// everything else as Boost.JSON writes it.
#include "harness/util/json_text.hpp"

#include <catch2/catch.hpp>

#include <boost/json.hpp>

#include <limits>

using harness::util::json_number;
using harness::util::json_text;

TEST_CASE("a double is written in its shortest plain form, without an exponent", "[util][json]") {
  CHECK(json_number(6.7) == "6.7");
  CHECK(json_number(0.204731535) == "0.204731535");
  CHECK(json_number(1.329e-05) == "0.00001329");
  CHECK(json_number(3.0) == "3");
  CHECK(json_number(-0.5) == "-0.5");
  CHECK(json_number(0.0) == "0");
  CHECK(json_number(1e16) == "10000000000000000");
  CHECK(json_number(123456.789) == "123456.789");
  CHECK(json_number(std::numeric_limits<double>::infinity()) == "null");
  CHECK(json_number(std::numeric_limits<double>::quiet_NaN()) == "null");
  for (const double d : {6.7, 0.204731535, 1.329e-05, 2.5e-7, 1e21, 0.1 + 0.2, 12345678.9})
    CHECK(std::stod(json_number(d)) == d); // reads back the same
}

TEST_CASE("json_text writes what boost::json::serialize writes, but for doubles", "[util][json]") {
  const boost::json::value v = {{"event", "run_finished"}, {"elapsed", 0.204731535},
                                {"percent", 6.7},        {"slot", -1},
                                {"seconds", 1.329e-05},  {"nested", {{"a", boost::json::array{1, 2.5, true, nullptr}}}},
                                {"text", "quote \" and\nnewline \xc3\xa9"}};
  const std::string text = json_text(v);
  CHECK(text.find('E') == std::string::npos);
  CHECK(text.find("\"elapsed\":0.204731535") != std::string::npos);
  CHECK(text.find("\"percent\":6.7") != std::string::npos);
  CHECK(text.find("\"seconds\":0.00001329") != std::string::npos);
  CHECK(text.find("[1,2.5,true,null]") != std::string::npos);
  CHECK(boost::json::parse(text) == v); // the same value, read back
  const boost::json::value no_doubles = {{"a", 1}, {"b", "x\ty"}, {"c", boost::json::array{}}, {"d", boost::json::object{}}};
  CHECK(json_text(no_doubles) == boost::json::serialize(no_doubles));
}

TEST_CASE("json_text writes valid UTF-8 whatever bytes its strings hold", "[util][json]") {
  // Review FF F5: a byte 0x80 from a SUMMARY went into `validate --json` as it was, and a JSON
  // reader refused the whole output. Invalid bytes become U+FFFD; valid text is untouched.
  const boost::json::value v = {{"message", "passe\x80 caf\xc3\xa9 \xff\xfe"}, {"k\xc0y", "v"}};
  const std::string text = json_text(v);
  CHECK(text == "{\"message\":\"passe\xEF\xBF\xBD caf\xc3\xa9 \xEF\xBF\xBD\xEF\xBF\xBD\",\"k\xEF\xBF\xBDy\":\"v\"}");
  CHECK(boost::json::parse(text).at("message").as_string() == "passe\xEF\xBF\xBD caf\xc3\xa9 \xEF\xBF\xBD\xEF\xBF\xBD");
}
