// Which commits are a spec's: its name, or its SPC number after the directory was renamed, unless
// a directory of the old name is still there beside it.
#include "harness/spec/layout.hpp"
#include "harness/spec/spec_identity.hpp"
#include "spec_test_util.hpp"

#include <catch2/catch.hpp>

using namespace harness;

TEST_CASE("A spec directory's SPC number", "[spec][identity]") {
  CHECK(spec::spec_number("SPC-007-auth") == 7);
  CHECK(spec::spec_number("SPC-12") == 12);
  CHECK(spec::spec_number("SPC-001-alpha-v2") == 1);
  CHECK_FALSE(spec::spec_number("SPC-x"));
  CHECK_FALSE(spec::spec_number("SPC-007auth"));
  CHECK_FALSE(spec::spec_number("my-spec"));
  CHECK_FALSE(spec::spec_number(""));
}

TEST_CASE("A Spec trailer of the same number is the spec's after a rename, unless its old directory exists", "[spec][identity]") {
  CHECK(spec::same_spec("SPC-001-alpha", "SPC-001-alpha", {}));
  CHECK(spec::same_spec("SPC-001-alpha", "SPC-001-alpha-v2", {}));          // renamed
  CHECK(spec::same_spec("SPC-1-alpha", "SPC-001-alpha-v2", {}));            // the number, not its spelling
  CHECK_FALSE(spec::same_spec("SPC-001-alpha", "SPC-001-beta", {"SPC-001-alpha"})); // two specs of one number
  CHECK_FALSE(spec::same_spec("SPC-001-alpha", "SPC-001-beta", {"SPC-001-gamma"}));  // a renamed one and another
  CHECK(spec::same_spec("SPC-001-alpha", "SPC-001-beta", {"SPC-002-x"}));
  CHECK_FALSE(spec::same_spec("SPC-002-alpha", "SPC-001-alpha", {}));
  CHECK_FALSE(spec::same_spec("", "SPC-001-alpha", {}));
  CHECK_FALSE(spec::same_spec("alpha", "beta", {}));
  CHECK(spec::same_spec("alpha", "alpha", {}));
}

TEST_CASE("A layout knows the numbered spec directories beside it", "[spec][identity]") {
  test::TempDir d;
  d.write("docs/specs/SPC-001-alpha-v2/SPEC.md", "# a\n");
  d.write("docs/specs/SPC-002-beta/SPEC.md", "# b\n");
  d.write("docs/specs/notes/README.md", "x\n");
  d.write("docs/specs/SPC-003-file.md", "not a directory\n");
  auto l = spec::discover_layout(d.path / "docs/specs/SPC-001-alpha-v2", d.path);
  REQUIRE(l);
  CHECK(l->sibling_specs == std::vector<std::string>{"SPC-002-beta"});
  CHECK(l->owns_spec_trailer("SPC-001-alpha")); // its old name
  CHECK(l->owns_spec_trailer("SPC-001-alpha-v2"));
  CHECK_FALSE(l->owns_spec_trailer("SPC-002-beta"));
  // A second directory of number 1: the old name is nobody's any more, each keeps its own.
  d.write("docs/specs/SPC-001-gamma/SPEC.md", "# c\n");
  auto both = spec::discover_layout(d.path / "docs/specs/SPC-001-alpha-v2", d.path);
  REQUIRE(both);
  CHECK_FALSE(both->owns_spec_trailer("SPC-001-alpha"));
  CHECK(both->owns_spec_trailer("SPC-001-alpha-v2"));
  CHECK_FALSE(both->owns_spec_trailer("SPC-001-gamma"));
}
