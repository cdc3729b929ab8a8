// spec::read_done_state: what the documents say is done, against the plans there are now.
#include "harness/spec/document_parsers.hpp"
#include "harness/spec/done_state.hpp"
#include "spec_test_util.hpp"

#include <catch2/catch.hpp>

using namespace harness::spec;

namespace {

std::string plan(const std::string& id) {
  return "---\nplan_id: '" + id + "'\ndepends_on: []\nfiles_modified: ['" + id + ".txt']\n---\n# " + id + "\n";
}

std::string summary(const std::string& id, const std::string& extra = "") {
  return "---\nplan_id: '" + id + "'\nstatus: complete\n" + extra + "---\n";
}

/// Two phases: 01-01 and 01-02, then 02-01; all executed, every verification passed.
void finished_spec(const harness::test::TempDir& dir) {
  dir.write("SPEC.md", "# x\n");
  for (const auto* id : {"01-01", "01-02"}) {
    dir.write(std::string("planning/plans/01-a/") + id + "-PLAN.md", plan(id));
    dir.write(std::string("execution/phases/01-a/") + id + "-SUMMARY.md", summary(id));
  }
  dir.write("planning/plans/02-b/02-01-PLAN.md", plan("02-01"));
  dir.write("execution/phases/02-b/02-01-SUMMARY.md", summary("02-01", "verification: passed\n"));
  dir.write("execution/phases/01-a/VERIFICATION.md", "---\nstatus: passed\nplans: ['01-01', '01-02']\n---\n");
  dir.write("execution/phases/02-b/VERIFICATION.md", "---\nstatus: passed\nplans: ['02-01']\n---\n");
  dir.write("execution/FINAL-VERIFICATION.md", "---\nstatus: passed\nplans: ['01-01', '01-02', '02-01']\n---\n");
}

DoneState load(const harness::test::TempDir& dir) {
  auto spec = load_spec(dir.path);
  REQUIRE(spec);
  REQUIRE(spec->valid());
  return read_done_state(*spec);
}

} // namespace

TEST_CASE("a finished spec's verifications hold and verify the plans their phase covers") {
  harness::test::TempDir dir;
  finished_spec(dir);
  const auto d = load(dir);
  CHECK(d.plans.at("01-01").verified); // by its phase's verification: its SUMMARY has no key of its own
  CHECK(d.phases.at({1, 0}).passed());
  CHECK(d.phases.at({2, 0}).passed());
  CHECK(d.final.passed());
}

TEST_CASE("a plan added to a verified phase is not executed, and its phase and the final verification no longer hold") {
  harness::test::TempDir dir;
  finished_spec(dir);
  dir.write("planning/plans/01-a/01-03-PLAN.md", plan("01-03"));
  const auto d = load(dir);
  CHECK_FALSE(d.plans.at("01-03").executed);
  CHECK_FALSE(d.plans.at("01-03").verified);
  const auto& phase = d.phases.at({1, 0});
  CHECK(phase.status == VerificationStatus::passed);
  CHECK_FALSE(phase.current);
  CHECK_FALSE(phase.passed());
  CHECK(phase.stale == "01-03 added since");
  CHECK_FALSE(d.plans.at("01-01").verified); // the phase must verify it again, with 01-03
  CHECK(d.phases.at({2, 0}).passed());        // another phase is untouched
  CHECK_FALSE(d.final.passed());
  CHECK(d.final.stale == "01-03 added since");
}

TEST_CASE("a phase added to a finished spec makes the final verification stale, not the other phases") {
  harness::test::TempDir dir;
  finished_spec(dir);
  dir.write("planning/plans/03-c/03-01-PLAN.md", plan("03-01"));
  const auto d = load(dir);
  CHECK(d.phases.at({1, 0}).passed());
  CHECK_FALSE(d.phases.at({3, 0}).exists);
  CHECK_FALSE(d.final.passed());
  CHECK(d.final.stale == "03-01 added since");
}

TEST_CASE("a SUMMARY removed (to have the plan done again) or failed leaves the plan unexecuted and the verification stale") {
  harness::test::TempDir dir;
  finished_spec(dir);
  std::filesystem::remove(dir.path / "execution/phases/01-a/01-01-SUMMARY.md");
  dir.write("execution/phases/01-a/01-02-SUMMARY.md", "---\nplan_id: '01-02'\nstatus: failed\n---\n");
  const auto d = load(dir);
  CHECK_FALSE(d.plans.at("01-01").executed);
  CHECK_FALSE(d.plans.at("01-02").executed);
  CHECK(d.plans.at("01-02").failed);
  CHECK(d.phases.at({1, 0}).stale == "01-01 and 01-02 not executed (no SUMMARY)");
  CHECK_FALSE(d.final.passed());
}

TEST_CASE("a plan executed again after its phase was verified (executed_since) keeps that verification from holding") {
  // `redo`, then a run that executed the plan and stopped before its verifications: the reports
  // are about the earlier work, whatever the new SUMMARY says.
  harness::test::TempDir dir;
  finished_spec(dir);
  dir.write("execution/phases/01-a/VERIFICATION.md",
            "---\nstatus: passed\nplans: ['01-01', '01-02']\nexecuted_since: ['01-01']\n---\n");
  dir.write("execution/FINAL-VERIFICATION.md",
            "---\nstatus: passed\nplans: ['01-01', '01-02', '02-01']\nexecuted_since: ['01-01']\n---\n");
  auto d = load(dir);
  CHECK(d.plans.at("01-01").executed);
  CHECK_FALSE(d.plans.at("01-01").verified);
  CHECK_FALSE(d.plans.at("01-02").verified); // its phase verifies it again, with 01-01
  CHECK_FALSE(d.phases.at({1, 0}).passed());
  CHECK(d.phases.at({1, 0}).stale == "01-01 executed again since");
  CHECK(d.phases.at({2, 0}).passed());
  CHECK_FALSE(d.final.passed());
  CHECK(d.final.stale == "01-01 executed again since");
  // Its verify-plan passed (the SUMMARY says so): the plan is verified, the phase still is not.
  dir.write("execution/phases/01-a/01-01-SUMMARY.md", summary("01-01", "verification: passed\n"));
  d = load(dir);
  CHECK(d.plans.at("01-01").verified);
  CHECK_FALSE(d.phases.at({1, 0}).passed());
  // A plan it lists without a SUMMARY now is not executed: that reason, not both.
  std::filesystem::remove(dir.path / "execution/phases/01-a/01-01-SUMMARY.md");
  CHECK(load(dir).phases.at({1, 0}).stale == "01-01 not executed (no SUMMARY)");
}

TEST_CASE("a plan removed since makes the verification stale; a file that names no plans holds for the plans there are") {
  harness::test::TempDir dir;
  finished_spec(dir);
  std::filesystem::remove(dir.path / "planning/plans/01-a/01-02-PLAN.md");
  std::filesystem::remove(dir.path / "execution/phases/01-a/01-02-SUMMARY.md");
  dir.write("execution/phases/02-b/VERIFICATION.md", "---\nstatus: passed\n---\nHand-written.\n");
  const auto d = load(dir);
  CHECK(d.phases.at({1, 0}).stale == "01-02 no longer planned");
  CHECK(d.phases.at({2, 0}).passed());
}

TEST_CASE("a VERIFICATION written before `plans` existed is read by its table's plan column") {
  std::vector<Diagnostic> diags;
  const auto v = parse_verification("---\nstatus: passed\nlevel: 'phase 01'\nscore: 3/3\n---\n# Verification\n\n"
                                    "| plan | check | type | status | seconds | evidence |\n|---|---|---|---|---|---|\n"
                                    "| 01-01 | a | file_exists | passed | 0.00 | x |\n| 01-01 | commits | commits | passed | 0.01 | y |\n"
                                    "| 01-02 | b | file_exists | passed | 0.00 | z |\n| - | criterion-1 | criterion | skipped | 0.00 | c |\n"
                                    "\n## Gaps\nNone.\n",
                                    "V.md", diags);
  CHECK(diags.empty());
  REQUIRE(v.plans);
  CHECK(*v.plans == std::vector<std::string>{"01-01", "01-02"});
  CHECK_FALSE(parse_verification("---\nstatus: passed\n---\nNo table.\n", "V.md", diags).plans);
  // The template's empty table (an agent's report before it filled it in) says nothing either.
  CHECK_FALSE(parse_verification("---\nstatus: passed\n---\n| plan | check | type | status | seconds | evidence |\n"
                                 "|---|---|---|---|---|---|\n\n## Gaps\nNone.\n",
                                 "V.md", diags)
                  .plans);
}

TEST_CASE("a person's recorded answer is read back: an approval passes, a refusal does not") {
  harness::test::TempDir dir;
  finished_spec(dir);
  dir.write("execution/phases/02-b/VERIFICATION.md",
            "---\nstatus: passed\nplans: ['02-01']\nchecks_status: human_needed\napproved_by: \"alice (harness-cli respond)\"\n"
            "approved_at: \"2026-01-02T03:04:05Z\"\napproval_note: \"looked at it\"\n---\n");
  dir.write("execution/FINAL-VERIFICATION.md",
            "---\nstatus: human_needed\nplans: ['01-01', '01-02', '02-01']\nrefused_by: \"bob (on the terminal)\"\n"
            "refused_at: \"2026-01-02T03:04:06Z\"\nrefusal_note: \"too dark\"\n---\n");
  auto spec = load_spec(dir.path);
  REQUIRE(spec);
  const auto& v = spec->verifications.at({2, 0});
  CHECK(v.checks_status == VerificationStatus::human_needed);
  REQUIRE(v.answer);
  CHECK(v.answer->approved);
  CHECK(v.answer->by == "alice (harness-cli respond)");
  CHECK(v.answer->at == "2026-01-02T03:04:05Z");
  CHECK(v.answer->note == "looked at it");
  const auto d = read_done_state(*spec);
  CHECK(d.phases.at({2, 0}).passed());
  CHECK(d.final.current);
  CHECK_FALSE(d.final.passed());
  REQUIRE(d.final.answer);
  CHECK_FALSE(d.final.answer->approved);
  CHECK(d.final.answer->note == "too dark");
}

TEST_CASE("a ROADMAP phase without plans added to a finished spec keeps the final verification from holding") {
  harness::test::TempDir dir;
  finished_spec(dir);
  dir.write("ROADMAP.md", "# Roadmap\n\n## Phase 1: A\n**Goal**: a\n\n## Phase 1.1: Hotfix\n**Goal**: louder\n**Depends on**: "
                          "Phase 1\n\nPlans:\n\n## Phase 2: B\n**Goal**: b\n");
  const auto d = load(dir);
  CHECK(d.phases.at({1, 0}).passed()); // the other phases still hold
  CHECK(d.phases.at({2, 0}).passed());
  CHECK(d.final.status == VerificationStatus::passed);
  CHECK_FALSE(d.final.current);
  CHECK_FALSE(d.final.passed());
  CHECK(d.final.stale == "phase 01.1 has no plans yet");
  // Planned and executed, only the plan is new to the final: its usual reason alone.
  dir.write("planning/plans/01.1-hotfix/01.1-01-PLAN.md", plan("01.1-01"));
  CHECK(load(dir).final.stale == "01.1-01 added since");
}

TEST_CASE("a phase verified again with gaps makes the final verification stale, though it lists every plan") {
  harness::test::TempDir dir;
  finished_spec(dir);
  // `verify --phase 01` after a later commit broke what 01-02 checks.
  dir.write("execution/phases/01-a/VERIFICATION.md", "---\nstatus: gaps_found\nplans: ['01-01', '01-02']\n---\n");
  const auto d = load(dir);
  CHECK(d.phases.at({1, 0}).current);
  CHECK_FALSE(d.phases.at({1, 0}).passed());
  CHECK_FALSE(d.final.passed());
  CHECK(d.final.stale == "phase 01's verification says gaps_found");
  // Approved by a person (status: passed after the gaps): the final holds again.
  dir.write("execution/phases/01-a/VERIFICATION.md",
            "---\nstatus: passed\nchecks_status: gaps_found\nplans: ['01-01', '01-02']\n---\n");
  CHECK(load(dir).final.passed());
}
