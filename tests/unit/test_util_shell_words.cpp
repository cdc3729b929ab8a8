#include "harness/util/shell_words.hpp"

#include <catch2/catch.hpp>

using harness::util::quote_shell_word;
using harness::util::split_shell_words;
using V = std::vector<std::string>;

TEST_CASE("split_shell_words splits on blanks and keeps quoted blanks") {
  CHECK(split_shell_words("npm test").value() == V{"npm", "test"});
  CHECK(split_shell_words("  a\t b \n").value() == V{"a", "b"});
  CHECK(split_shell_words("echo 'a b' \"c d\"").value() == V{"echo", "a b", "c d"});
  CHECK(split_shell_words("x'y'\"z\"").value() == V{"xyz"});
  CHECK(split_shell_words("''").value() == V{""});
  CHECK(split_shell_words("").value().empty());
}

TEST_CASE("split_shell_words applies backslash rules like a POSIX shell and expands nothing") {
  CHECK(split_shell_words(R"(a\ b)").value() == V{"a b"});
  CHECK(split_shell_words(R"("a\"b" "\$HOME" "\n")").value() == V{"a\"b", "$HOME", "\\n"});
  CHECK(split_shell_words(R"('a\b' $HOME *.txt ~)").value() == V{"a\\b", "$HOME", "*.txt", "~"});
}

TEST_CASE("split_shell_words rejects unterminated quotes and a trailing backslash with the column") {
  auto r = split_shell_words("echo 'oops");
  REQUIRE_FALSE(r);
  CHECK(r.error() == "unterminated single quote at column 6");
  CHECK_FALSE(split_shell_words("echo \"oops"));
  CHECK_FALSE(split_shell_words("echo \\"));
}

TEST_CASE("quote_shell_word round-trips through split_shell_words") {
  for (std::string w : {"plain", "a b", "it's", "", "$x", "\"q\"", "back\\slash", "tab\there"}) {
    auto q = quote_shell_word(w);
    auto back = split_shell_words(q);
    REQUIRE(back);
    REQUIRE(back->size() == 1);
    CHECK(back->front() == w);
  }
}
