// The answer line the orchestrator echoes itself on a terminal: edited as cooked mode edits it.
#include "harness/util/terminal_line.hpp"

#include <catch2/catch.hpp>

using harness::util::LineEditor;

TEST_CASE("LineEditor ends lines at Enter and keeps what is typed after", "[util]") {
  LineEditor e;
  CHECK(e.feed("App").empty());
  CHECK(e.partial() == "App");
  CHECK(e.feed("rove\rn") == std::vector<std::string>{"Approve"});
  CHECK(e.partial() == "n");
  CHECK(e.feed("\n\n") == std::vector<std::string>{"n", ""});
}

TEST_CASE("LineEditor edits as a terminal does: Backspace, Ctrl-U, Ctrl-W", "[util]") {
  LineEditor e;
  e.feed("hi th\x7f\x7f\x08");
  CHECK(e.partial() == "hi");
  e.feed(" there\x17");
  CHECK(e.partial() == "hi ");
  e.feed("\x15yes");
  CHECK(e.partial() == "yes");
  e.feed("\xc3\xa7\x7f"); // one Backspace takes a whole character
  CHECK(e.partial() == "yes");
}

TEST_CASE("LineEditor drops escape sequences and control characters; Ctrl-D on an empty line ends", "[util]") {
  LineEditor e;
  e.feed("a\x1b[Ab\x1bOC\x01" "c\t");
  CHECK(e.partial() == "abc");
  e.feed("\x04");
  CHECK_FALSE(e.ended());
  e.feed("\x15\x04");
  CHECK(e.ended());
}
