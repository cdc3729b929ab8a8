// VERIFICATION.md rendering details a gap-closure planner relies on.
#include "harness/verify/result.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace harness;

TEST_CASE("a plan-wide gap names its PLAN file without a meaningless line 0") {
  verify::Report rep{"plan 01-01", "SPC-001-x", spec::VerificationStatus::gaps_found, {}, {}, {}};
  verify::CheckResult commits;
  commits.plan = "01-01";
  commits.id = "commits";
  commits.type = "commits";
  commits.status = verify::CheckStatus::failed;
  commits.message = "no commit carries 'Plan: 01-01'";
  commits.file = "planning/plans/01-foundation/01-01-PLAN.md";
  commits.line = 0;
  rep.results = {commits};
  const auto md = verify::render_verification_md(rep, "2026-01-01T00:00:00Z");
  CHECK(md.find("- **01-01 / commits** (commits, planning/plans/01-foundation/01-01-PLAN.md): no commit carries "
                "'Plan: 01-01'") != std::string::npos);
  CHECK(md.find("01-01-PLAN.md:0") == std::string::npos);
}
