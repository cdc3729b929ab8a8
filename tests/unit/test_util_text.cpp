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

TEST_CASE("display_width counts terminal columns, fit_columns cuts and pads to them", "[util]") {
  using harness::util::display_width;
  using harness::util::fit_columns;
  CHECK(display_width("abc") == 3);
  CHECK(display_width("\xc3\xa7" "a") == 2);        // ç: one column in two bytes
  CHECK(display_width("\xe6\x97\xa5\xe6\x9c\xac") == 4); // 日本: wide
  CHECK(display_width("e\xcc\x81") == 1);          // e + combining acute
  CHECK(display_width("\xf0\x9f\x98\x80") == 2);   // 😀
  CHECK(fit_columns("ab", 4) == "ab  ");
  CHECK(fit_columns("abcd", 4) == "abcd");
  CHECK(fit_columns("abcde", 4) == "abc\xe2\x80\xa6");
  // A cut never splits a character, and the cell keeps its width.
  const std::string accents = "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"; // ééééé
  CHECK(fit_columns(accents, 4) == "\xc3\xa9\xc3\xa9\xc3\xa9\xe2\x80\xa6");
  CHECK(fit_columns("\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e", 4) == "\xe6\x97\xa5\xe2\x80\xa6 "); // 日… and a blank
  for (std::size_t cols = 1; cols < 12; ++cols) {
    CHECK(display_width(fit_columns("a\xe6\x97\xa5\xc3\xa9z\xf0\x9f\x98\x80xyzw", cols)) == cols);
    CHECK(harness::util::printable(fit_columns(accents + "x", cols), false) == fit_columns(accents + "x", cols)); // valid UTF-8
  }
}

TEST_CASE("utf8_prefix never ends inside a character", "[util]") {
  using harness::util::utf8_prefix;
  CHECK(utf8_prefix("abc", 5) == "abc");
  CHECK(utf8_prefix("abc", 2) == "ab");
  CHECK(utf8_prefix("a\xc3\xa9z", 2) == "a"); // é would be split
  CHECK(utf8_prefix("a\xc3\xa9z", 3) == "a\xc3\xa9");
  CHECK(utf8_prefix("\xe6\x97\xa5", 2).empty());
}
