// A plan whose files git ignores: the run names them, the rule, and the tasks left without a
// commit, rather than verify work that was never committed and say nothing.
#include "harness/orchestrator/ignored_outputs.hpp"

#include <catch2/catch.hpp>

using harness::orchestrator::ignored_outputs_note;

TEST_CASE("ignored files of a plan whose tasks committed nothing are named with their rule", "[orchestrator][ignored]") {
  CHECK(ignored_outputs_note("01-01", {"out/01-01/a.txt", "out/01-01/b.txt"}, "'*.txt' in /home/u/.gitignore", 2, 2) ==
        "01-01: the files it changed, out/01-01/a.txt and out/01-01/b.txt, are ignored by git (rule '*.txt' in "
        "/home/u/.gitignore): none of them was committed, and 2 of its 2 tasks have no commit; if they are the plan's "
        "work, change that rule (git check-ignore -v out/01-01/a.txt names it) or declare files git keeps");
  const auto one = ignored_outputs_note("02-01", {"a", "b", "c", "d", "e", "f", "g"}, "", 1, 3);
  CHECK(one.starts_with("02-01: the files it changed, a, b, c, d, e and 2 more, are ignored by git (a .gitignore, "
                        ".git/info/exclude or core.excludesFile rule)"));
  CHECK(one.find("1 of its 3 tasks has no commit") != std::string::npos);
}

TEST_CASE("no note without ignored files, or when every task has its commit", "[orchestrator][ignored]") {
  CHECK(ignored_outputs_note("01-01", {}, "", 2, 2).empty());
  CHECK(ignored_outputs_note("01-01", {"build/x.o"}, "'*.o' in .gitignore", 0, 2).empty());
}
