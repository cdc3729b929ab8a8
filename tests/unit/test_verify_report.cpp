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

TEST_CASE("the table clips a list of files changed outside files_modified at a name, with how many more") {
  verify::Report rep{"phase 01", "SPC-001-x", spec::VerificationStatus::passed, {}, {}, {}};
  verify::CheckResult commits;
  commits.plan = "01-02";
  commits.id = "commits";
  commits.type = "commits";
  commits.outside_files = {"out/01-01.txt (plan 01-01's)", "elsewhere/01-02-1.txt", "elsewhere/01-02-2.txt",
                           "elsewhere/01-02-3.txt", "elsewhere/01-02-4.txt", "elsewhere/01-02-5.txt"};
  commits.message = "3 commits, 2 of 2 tasks covered; changed outside files_modified: out/01-01.txt (plan 01-01's), "
                    "elsewhere/01-02-1.txt, elsewhere/01-02-2.txt, elsewhere/01-02-3.txt, elsewhere/01-02-4.txt and 1 more "
                    "(declare them: only declared writes keep parallel plans apart)";
  rep.results = {commits};
  const auto md = verify::render_verification_md(rep, "2026-01-01T00:00:00Z");
  CHECK(md.find("| 3 commits, 2 of 2 tasks covered; changed outside files_modified: out/01-01.txt (plan 01-01's) and 5 "
                "more |") != std::string::npos);
  CHECK(md.find("...") == std::string::npos);
}
