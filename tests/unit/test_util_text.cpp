// Outside text made printable: what a plan title, a worker's line or a --reason may hold must not
// reach the terminal as an escape sequence or a commit subject as invalid UTF-8.
#include "harness/util/text.hpp"

#include <catch2/catch.hpp>

using harness::util::printable;
using harness::util::utf8_length;

TEST_CASE("printable drops control characters and invalid bytes, keeps every valid character", "[util]") {
  CHECK(printable("d\xffo \x1b[2J\a end", false) == "do [2J end");
  CHECK(printable("ç ü 日本 😀", false) == "ç ü 日本 😀");
  CHECK(printable("a\r\nb\tc", true) == "a\n\nb c");
  CHECK(printable("a\nb", false) == "a b");
  CHECK(printable(std::string("n\0ul\x7f", 5), false) == "nul");
  CHECK(printable("\xc0\xaf overlong, \xed\xa0\x80 surrogate", false) == " overlong,  surrogate");
}

TEST_CASE("utf8_length measures valid sequences and rejects broken ones", "[util]") {
  CHECK(utf8_length("a", 0) == 1);
  CHECK(utf8_length("ç", 0) == 2);
  CHECK(utf8_length("日", 0) == 3);
  CHECK(utf8_length("😀", 0) == 4);
  CHECK(utf8_length("\xe6\x97", 0) == 0); // cut short
  CHECK(utf8_length("\xff", 0) == 0);
}

TEST_CASE("clipped keeps short text and cuts long text at a character boundary", "[util]") {
  using harness::util::clipped;
  CHECK(clipped("short", 10) == "short");
  CHECK(clipped("0123456789", 10) == "0123456789");
  CHECK(clipped("0123456789ab", 10) == "0123456789 ... (2 more bytes)");
  CHECK(clipped("ab\xc3\xa9" "cd", 3) == "ab ... (4 more bytes)"); // é is not split
  CHECK(clipped(std::string(2'000'000, 'x'), 1000).size() < 1100);
}
