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

TEST_CASE("find_shell_syntax finds the operators and expansions a shell would act on") {
  using harness::util::find_shell_syntax;
  using Kind = harness::util::ShellSyntax::Kind;
  auto found = [](std::string_view text) {
    auto s = find_shell_syntax(text);
    return s ? s->text : std::string("(none)");
  };
  CHECK(found("npm test && npm run lint") == "&&");
  CHECK(found("make || true") == "||");
  CHECK(found("pytest | tee x") == "|");
  CHECK(found("cd app; make") == ";");
  CHECK(found("make > out.txt") == ">");
  CHECK(found("make >>log") == ">>");
  CHECK(found("wc -l < in.txt") == "<");
  CHECK(found("make 2>&1") == "2>&1");
  CHECK(found("make &>log") == "&>");
  CHECK(found("server --port 8 &") == "&");
  CHECK(found("echo $HOME") == "$HOME");
  CHECK(found("echo ${HOME}") == "${");
  CHECK(found("echo $(date)") == "$(");
  CHECK(found("echo `date`") == "`");
  CHECK(found("test $? = 0") == "$?");
  CHECK(find_shell_syntax("FOO=1 make")->kind == Kind::assignment);
  CHECK(found("  FOO=1 make") == "FOO=1");
  CHECK(found("FOO='a b' make") == "FOO='a b'");
  CHECK(find_shell_syntax("a && b")->kind == Kind::operator_);
  CHECK(find_shell_syntax("echo $X")->kind == Kind::expansion);
  // A shell expands inside double quotes too, and expands file patterns and a leading ~.
  CHECK(found("test -n \"$UNSET\"") == "$UNSET");
  CHECK(found("test -z \"$(git status --porcelain)\"") == "$(");
  CHECK(found("echo \"`date`\"") == "`");
  CHECK(found("pytest tests/test_*.py") == "tests/test_*.py");
  CHECK(find_shell_syntax("ls *.txt")->kind == Kind::glob);
  CHECK(found("cat ~/.config/x") == "~");
  CHECK(found("ls ~") == "~");
}

TEST_CASE("find_shell_syntax ignores quoted and escaped text and what runs the same without a shell") {
  using harness::util::find_shell_syntax;
  for (const char* text : {"npm test", "npm test -- --grep \"auth flow\"", "grep -E 'a|b' f", "sh -c 'a && b > c'",
                           "echo \"a && b | c\"", "echo \"cost \\$5 and \\`x\\`\"", "find . -name x -exec rm {} \\;",
                           "echo a\\|b \\$HOME \\&\\&", "ls 'a*b' \\*.txt a~b", "curl http://h/*/x",
                           "curl http://127.0.0.1/x?a=1&b=2", "grep -q 'end$' f", "grep foo$ f", "price $ 3",
                           "python3 -m app --flag=1", "make VAR=1", "./FOO=1", "'FOO=1' make",
                           "echo 'unterminated && x"})
    CHECK_FALSE(find_shell_syntax(text));
}
