// verify::with_executed_since: a VERIFICATION file notes a plan executed again after it.
#include "harness/spec/document_parsers.hpp"
#include "harness/verify/executed_since.hpp"

#include <catch2/catch.hpp>

using harness::verify::with_executed_since;

namespace {

harness::spec::Verification read(const std::string& text) {
  std::vector<harness::spec::Diagnostic> diags;
  auto v = harness::spec::parse_verification(text, "V.md", diags);
  CHECK(diags.empty());
  return v;
}

} // namespace

TEST_CASE("a plan the verification covered is added to executed_since, once; the rest of the file stays") {
  const std::string text = "---\nstatus: passed # checked by hand too\nplans: ['01-01', '01-02']\n---\n# Phase 1\n\n| plan |\n";
  auto once = with_executed_since(text, "V.md", "01-02");
  REQUIRE(once);
  REQUIRE(*once);
  CHECK(**once == "---\nstatus: passed # checked by hand too\nplans: ['01-01', '01-02']\nexecuted_since: ['01-02']\n---\n"
                  "# Phase 1\n\n| plan |\n");
  auto twice = with_executed_since(**once, "V.md", "01-02");
  REQUIRE(twice);
  CHECK_FALSE(*twice); // listed already: nothing to write
  auto other = with_executed_since(**once, "V.md", "01-01");
  REQUIRE(other);
  REQUIRE(*other);
  CHECK(read(**other).executed_since == std::vector<std::string>{"01-02", "01-01"});
}

TEST_CASE("a plan the verification did not cover is not its business; a file naming no plans covers every plan") {
  auto not_covered = with_executed_since("---\nstatus: passed\nplans: ['01-01']\n---\n", "V.md", "01-03");
  REQUIRE(not_covered);
  CHECK_FALSE(*not_covered);
  auto hand_written = with_executed_since("---\nstatus: passed\n---\nAll good.\n", "V.md", "01-03");
  REQUIRE(hand_written);
  REQUIRE(*hand_written);
  CHECK(read(**hand_written).executed_since == std::vector<std::string>{"01-03"});
}

TEST_CASE("a list harness cannot extend in place is an error naming the file, and nothing is returned to write") {
  // A person wrote the list as a block: replacing its first line would leave the items behind.
  auto block = with_executed_since("---\nstatus: passed\nexecuted_since:\n  - '01-01'\n---\n", "docs/V.md", "01-02");
  REQUIRE_FALSE(block);
  CHECK(block.error() == "docs/V.md: cannot add 01-02 to its executed_since list in place (write it as [...] on one line)");
  // A flow-style frontmatter map cannot be extended in place either.
  auto flow = with_executed_since("---\n{status: passed}\n---\n", "docs/V.md", "01-02");
  REQUIRE_FALSE(flow);
  CHECK(flow.error().starts_with("docs/V.md: "));
}

TEST_CASE("a report without a status (no frontmatter, a GSD file written by hand) vouches for nothing: nothing to mark") {
  auto none = with_executed_since("# Verification\n\nAll good.\n", "docs/V.md", "01-02");
  REQUIRE(none);
  CHECK_FALSE(*none);
}
