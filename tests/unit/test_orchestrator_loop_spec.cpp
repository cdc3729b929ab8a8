// LoopSpec: the verifications share one copy of the loop's spec until the loop changes it, and
// every change (a new reading, an edit in place) gives the next verification a new copy.
#include "../../libharness/src/orchestrator/loop_spec.hpp"

#include <catch2/catch.hpp>

using harness::orchestrator::LoopSpec;
using harness::spec::Spec;

TEST_CASE("Verifications share one copy of the spec until the loop changes it", "[orchestrator][loop_spec]") {
  LoopSpec s;
  Spec first;
  first.layout.spec_name = "SPC-001-a";
  s.replace(first);
  const auto a = s.shared();
  CHECK(s.shared() == a); // unchanged: no second copy
  CHECK(a->layout.spec_name == "SPC-001-a");
}

TEST_CASE("An edit in place gives the next verification a new copy and leaves the running one's alone", "[orchestrator][loop_spec]") {
  LoopSpec s;
  const auto before = s.shared();
  s.edit([](Spec& spec) { spec.layout.spec_name = "edited"; });
  CHECK(s.get().layout.spec_name == "edited");
  const auto after = s.shared();
  CHECK(after != before);
  CHECK(after->layout.spec_name == "edited");
  CHECK(before->layout.spec_name.empty());
}

TEST_CASE("A new reading of the spec gives the next verification a copy of it", "[orchestrator][loop_spec]") {
  LoopSpec s;
  const auto before = s.shared();
  Spec reread;
  reread.layout.spec_name = "reread";
  s.replace(std::move(reread));
  CHECK(s.shared() != before);
  CHECK(s.shared()->layout.spec_name == "reread");
}
