// forget_uncommitted_verdicts: a SUMMARY's `verification: passed` that no run wrote and nobody
// committed is not believed (review BB M1).
#include "harness/orchestrator/uncommitted_verdicts.hpp"
#include "harness/spec/done_state.hpp"
#include "spec_test_util.hpp"

#include <catch2/catch.hpp>

using namespace harness;

TEST_CASE("A SUMMARY's verdict that is uncommitted and not a run's own is forgotten, with its phase's and the final's cover",
          "[orchestrator]") {
  test::TempDir dir;
  const std::string s = "docs/specs/SPC-001-v";
  dir.write(s + "/SPEC.md", "# V\n");
  for (const char* id : {"01-01", "01-02", "01-03"}) {
    dir.write(s + "/planning/plans/01-core/" + std::string(id) + "-PLAN.md",
              "---\nplan_id: '" + std::string(id) + "'\ndepends_on: []\nfiles_modified: ['" + id + ".txt']\n---\n# x\n");
    dir.write(s + "/execution/phases/01-core/" + std::string(id) + "-SUMMARY.md",
              "---\nplan_id: '" + std::string(id) + "'\nstatus: complete\nverification: passed\napproved_by: alice\n---\n");
  }
  const std::string report = "---\nstatus: passed\nplans: ['01-01', '01-02', '01-03']\n---\n";
  dir.write(s + "/execution/phases/01-core/VERIFICATION.md", report);
  dir.write(s + "/execution/FINAL-VERIFICATION.md", report);
  auto spec = spec::load_spec(dir.path / s, dir.path);
  REQUIRE(spec);
  REQUIRE(spec::read_done_state(*spec).plans.at("01-01").verified);
  const std::string summaries = s + "/execution/phases/01-core/";
  // 01-01: untracked, nobody's; 01-02: modified, but a run of ours wrote it; 01-03: a person's
  // edit of a SUMMARY whose committed version has the verdict.
  std::vector<worker::GitChange> changes{{.untracked = true, .path = summaries + "01-01-SUMMARY.md"},
                                         {.path = summaries + "01-02-SUMMARY.md"},
                                         {.path = summaries + "01-03-SUMMARY.md"},
                                         {.path = "unrelated.txt"}};
  const std::set<std::string> own{summaries + "01-02-SUMMARY.md"};
  std::vector<std::string> asked;
  const auto committed = [&](const std::string& path) -> std::optional<std::string> {
    asked.push_back(path);
    if (path.ends_with("01-03-SUMMARY.md")) return "---\nplan_id: '01-03'\nstatus: complete\nverification: passed\n---\n";
    return std::nullopt;
  };
  CHECK(orchestrator::forget_uncommitted_verdicts(*spec, changes, own, committed).plans == std::vector<std::string>{"01-01"});
  CHECK(asked == std::vector<std::string>{summaries + "01-01-SUMMARY.md", summaries + "01-03-SUMMARY.md"}); // git only for those
  CHECK_FALSE(spec->summaries.at("01-01").verification);
  CHECK_FALSE(spec->summaries.at("01-01").answer); // a forged approval goes with it
  CHECK(spec->summaries.at("01-02").verification == spec::VerificationStatus::passed);
  const auto done = spec::read_done_state(*spec);
  CHECK(done.plans.at("01-01").executed);
  CHECK_FALSE(done.plans.at("01-01").verified); // nor through its phase's verification
  CHECK(done.plans.at("01-02").verified);
  CHECK(done.plans.at("01-03").verified);
  CHECK_FALSE(done.phases.at(spec::PhaseNumber{1, 0}).passed());
  CHECK(done.phases.at(spec::PhaseNumber{1, 0}).stale == "01-01 executed again since");
  CHECK_FALSE(done.final.passed());
  // A deleted SUMMARY is no verdict; with nothing changed, nothing is forgotten.
  auto again = spec::load_spec(dir.path / s, dir.path);
  REQUIRE(again);
  CHECK(orchestrator::forget_uncommitted_verdicts(*again, {{.path = summaries + "01-03-SUMMARY.md", .deleted = true}}, {}, committed)
            .plans.empty());
  CHECK(orchestrator::forget_uncommitted_verdicts(*again, {}, {}, committed).plans.empty());
  // A committed version without the verdict does not vouch for it.
  CHECK(orchestrator::forget_uncommitted_verdicts(*again, {{.path = summaries + "01-02-SUMMARY.md"}}, {},
                                                  [](const std::string&) -> std::optional<std::string> {
                                                    return "---\nplan_id: '01-02'\nstatus: complete\n---\n";
                                                  }).plans == std::vector<std::string>{"01-02"});
}

TEST_CASE("A phase's or the final report saying passed, uncommitted and not a run's own, is forgotten whole",
          "[orchestrator]") {
  // Review HH F1: a forged phase VERIFICATION.md beside a SUMMARY without a verdict counted the
  // plan verified, and the run executed it never.
  test::TempDir dir;
  const std::string s = "docs/specs/SPC-001-v";
  dir.write(s + "/SPEC.md", "# V\n");
  dir.write(s + "/planning/plans/01-core/01-01-PLAN.md", "---\nplan_id: '01-01'\ndepends_on: []\nfiles_modified: [a]\n---\n# x\n");
  dir.write(s + "/execution/phases/01-core/01-01-SUMMARY.md", "---\nplan_id: '01-01'\nstatus: complete\n---\n");
  const std::string report = "---\nstatus: passed\nplans: ['01-01']\n---\n";
  dir.write(s + "/execution/phases/01-core/VERIFICATION.md", report);
  dir.write(s + "/execution/FINAL-VERIFICATION.md", report);
  auto spec = spec::load_spec(dir.path / s, dir.path);
  REQUIRE(spec);
  REQUIRE(spec::read_done_state(*spec).plans.at("01-01").verified); // through its phase's report
  const std::string phase_report = s + "/execution/phases/01-core/VERIFICATION.md";
  const std::string final_report = s + "/execution/FINAL-VERIFICATION.md";
  const auto none = [](const std::string&) -> std::optional<std::string> { return std::nullopt; };
  SECTION("both untracked and nobody's") {
    const auto f = orchestrator::forget_uncommitted_verdicts(*spec, {{.untracked = true, .path = phase_report},
                                                                     {.untracked = true, .path = final_report}}, {}, none);
    CHECK(f.reports == std::vector<std::string>{phase_report, final_report});
    CHECK(f.plans.empty());
    const auto done = spec::read_done_state(*spec);
    CHECK_FALSE(done.plans.at("01-01").verified);
    CHECK_FALSE(done.phases.at(spec::PhaseNumber{1, 0}).exists);
    CHECK_FALSE(done.final.exists);
  }
  SECTION("a run's own, or one whose commit says passed too") {
    const auto committed = [&](const std::string& path) -> std::optional<std::string> {
      return path == final_report ? std::optional<std::string>(report) : std::nullopt;
    };
    const auto f = orchestrator::forget_uncommitted_verdicts(*spec, {{.path = phase_report}, {.path = final_report}},
                                                             {phase_report}, committed);
    CHECK(f.reports.empty());
    CHECK(spec::read_done_state(*spec).plans.at("01-01").verified);
  }
}
