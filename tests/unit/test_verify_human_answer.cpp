// A person's answer in a VERIFICATION file: recorded, read back, and carried over when the same
// verification is written again with the same findings.
#include "harness/spec/document_parsers.hpp"
#include "harness/spec/spec.hpp"
#include "harness/util/atomic_file.hpp"
#include "harness/verify/engine.hpp"
#include "harness/verify/human_answer.hpp"
#include "harness/verify/result.hpp"
#include "spec_test_util.hpp"

#include <catch2/catch.hpp>

#include <boost/json.hpp>

using namespace harness;

namespace {

verify::Report phase_report(std::string message = "d.txt reads well") {
  verify::Report r{"phase 02", "SPC-001-x", spec::VerificationStatus::human_needed, {}, {"02-01", "02-02"}, "0123456789abcdef0123456789abcdef"};
  verify::CheckResult looks;
  looks.plan = "02-02";
  looks.id = "looks-good";
  looks.type = "visual_quality";
  looks.status = verify::CheckStatus::human;
  looks.message = std::move(message);
  r.results.push_back(looks);
  return r;
}

/// A committed project whose spec docs/specs/SPC-001-x/ has plan 01-01 (`plan`, the PLAN file's
/// text) executed (`summary`), and the work tree files `files` (path, text) beside it.
void committed_plan(const harness::test::TempDir& dir, const std::string& plan, const std::string& summary,
                    const std::vector<std::pair<std::string, std::string>>& files) {
  test::set_git_identity();
  const std::string s = "docs/specs/SPC-001-x/";
  dir.write(s + "SPEC.md", "# x\n");
  dir.write(s + "planning/plans/01-core/01-01-PLAN.md", plan);
  dir.write(s + "execution/phases/01-core/01-01-SUMMARY.md", summary);
  for (const auto& [path, text] : files) dir.write(path, text);
  test::sh(dir.path, "git init -q && git add -A && git commit -qm init");
}

} // namespace

TEST_CASE("a person's answer to a verification is recorded in its file and read back", "[verify][answer]") {
  harness::test::TempDir dir;
  verify::Report r{"phase 02", "SPC-001-x", spec::VerificationStatus::human_needed, {}, {"02-01", "02-02"}, {}};
  verify::CheckResult looks;
  looks.plan = "02-02";
  looks.id = "looks-good";
  looks.type = "visual_quality";
  looks.status = verify::CheckStatus::human;
  looks.message = "d.txt reads well";
  r.results.push_back(looks);
  const auto file = dir.write("VERIFICATION.md", verify::render_verification_md(r, "2026-01-02T00:00:00Z"));

  SECTION("an approval makes it passed, keeps what the checks found, and is recorded once") {
    const spec::HumanAnswer yes{true, "alice (harness-cli respond)", "2026-01-02T03:04:05Z", "looked: \"fine\""};
    REQUIRE(verify::record_verification_answer(file, yes));
    REQUIRE(verify::record_verification_answer(file, yes)); // again: the same document
    const auto text = *util::read_file(file);
    std::vector<spec::Diagnostic> diags;
    const auto v = spec::parse_verification(text, "V.md", diags);
    CHECK(diags.empty());
    CHECK(v.status == spec::VerificationStatus::passed);
    CHECK(v.checks_status == spec::VerificationStatus::human_needed);
    REQUIRE(v.plans);
    CHECK(*v.plans == std::vector<std::string>{"02-01", "02-02"});
    REQUIRE(v.answer);
    CHECK(v.answer->approved);
    CHECK(v.answer->by == yes.by);
    CHECK(v.answer->at == yes.at);
    CHECK(v.answer->note == yes.note);
    CHECK(text.ends_with("## Answered by a person\n\n**approved** by alice (harness-cli respond) at 2026-01-02T03:04:05Z: "
                         "looked: \"fine\". The checks found human_needed; the person accepted it as it is, so it counts "
                         "as passed.\n"));
    CHECK(text.find("## Answered by a person") == text.rfind("## Answered by a person"));
  }
  SECTION("a refusal is recorded and leaves the status") {
    REQUIRE(verify::record_verification_answer(file, {false, "bob (on the terminal)", "2026-01-02T03:04:06Z", ""}));
    std::vector<spec::Diagnostic> diags;
    const auto v = spec::parse_verification(*util::read_file(file), "V.md", diags);
    CHECK(v.status == spec::VerificationStatus::human_needed);
    CHECK_FALSE(v.checks_status);
    REQUIRE(v.answer);
    CHECK_FALSE(v.answer->approved);
    CHECK(v.answer->by == "bob (on the terminal)");
  }
}

TEST_CASE("an approval holds for the same verification written again, and only while the checks find the same",
          "[verify][answer]") {
  const spec::HumanAnswer yes{true, "alice (harness-cli respond)", "2026-01-02T03:04:05Z", "fine"};
  const auto approved = *verify::with_human_answer(verify::render_verification_md(phase_report(), "2026-01-02T00:00:00Z"), "V", yes);
  // Written again later: other timestamps and timings, the same findings.
  auto again = phase_report();
  again.results[0].seconds = 1.5;
  const auto held = verify::approval_still_holding(approved, verify::render_verification_md(again, "2026-02-03T00:00:00Z"));
  REQUIRE(held.kept);
  CHECK_FALSE(held.dropped);
  CHECK(held.kept->by == yes.by);
  CHECK(held.kept->note == "fine");
  auto dropped_because = [&](const verify::Report& fresh) {
    const auto carry = verify::approval_still_holding(approved, verify::render_verification_md(fresh, "t"));
    CHECK_FALSE(carry.kept);
    REQUIRE(carry.dropped);
    CHECK(carry.dropped->by == yes.by);
    return carry.why;
  };
  // Something else for a person to look at, another plan covered, a gap, a refusal: asked again.
  CHECK(dropped_because(phase_report("d.txt and e.txt read well")) == "the checks found something else");
  auto more = phase_report();
  more.plans.push_back("02-03");
  CHECK(dropped_because(more) == "the checks found something else");
  auto gap = phase_report();
  gap.status = spec::VerificationStatus::gaps_found;
  verify::CheckResult failed;
  failed.plan = "02-01";
  failed.id = "tests";
  failed.type = "tests_pass";
  failed.status = verify::CheckStatus::failed;
  failed.message = "1 failed";
  gap.results.push_back(failed);
  CHECK(dropped_because(gap) == "the checks found something else");
  const auto refused = *verify::with_human_answer(verify::render_verification_md(phase_report(), "t"), "V",
                                                   {false, "bob", "2026-01-02T03:04:06Z", ""});
  const auto no_approval = verify::approval_still_holding(refused, verify::render_verification_md(phase_report(), "t"));
  CHECK_FALSE(no_approval.kept);
  CHECK_FALSE(no_approval.dropped);
}

TEST_CASE("an approval holds only for the work it approved: the same findings over changed work ask again",
          "[verify][answer]") {
  const spec::HumanAnswer yes{true, "alice (harness-cli respond)", "2026-01-02T03:04:05Z", "fine"};
  const auto approved = *verify::with_human_answer(verify::render_verification_md(phase_report(), "2026-01-02T00:00:00Z"), "V", yes);
  CHECK(approved.find("\nwork_hash: '0123456789abcdef0123456789abcdef'\n") != std::string::npos);
  auto changed = phase_report();
  changed.work_hash = "fedcba9876543210fedcba9876543210";
  auto carry = verify::approval_still_holding(approved, verify::render_verification_md(changed, "t"));
  CHECK_FALSE(carry.kept);
  REQUIRE(carry.dropped);
  CHECK(carry.why == "the plans' files changed since it was given");
  CHECK(carry.dropped_work_hash == "0123456789abcdef0123456789abcdef");
  // `verify --json` says so, with the work approved and the work now.
  const auto json = boost::json::parse(verify::report_json(
      changed, std::nullopt, verify::DroppedApproval{*carry.dropped, carry.why, carry.dropped_work_hash}));
  CHECK_FALSE(json.as_object().contains("kept_approval"));
  const auto expected = boost::json::parse(R"j({"by": "alice (harness-cli respond)", "at": "2026-01-02T03:04:05Z",
      "note": "fine", "reason": "the plans' files changed since it was given",
      "approved_work_hash": "0123456789abcdef0123456789abcdef", "work_hash": "fedcba9876543210fedcba9876543210"})j");
  CHECK(json.at("dropped_approval") == expected);
  CHECK_FALSE(boost::json::parse(verify::report_json(changed)).as_object().contains("dropped_approval"));
  // A file written before work_hash existed cannot say what was approved: asked again, once.
  auto before = phase_report();
  before.work_hash.clear();
  const auto old_file = *verify::with_human_answer(verify::render_verification_md(before, "2026-01-02T00:00:00Z"), "V", yes);
  REQUIRE(old_file.find("work_hash") == std::string::npos);
  carry = verify::approval_still_holding(old_file, verify::render_verification_md(phase_report(), "t"));
  CHECK_FALSE(carry.kept);
  REQUIRE(carry.dropped);
  CHECK(carry.why.starts_with("it was given before harness recorded the work it approved (work_hash)"));
  CHECK(carry.dropped_work_hash.empty());
}

TEST_CASE("verify --phase keeps a person's approval while the checks find the same; the final verification does not "
          "ask again what the phase's approval covers",
          "[verify][answer]") {
  harness::test::TempDir dir;
  const std::string s = "docs/specs/SPC-001-x/";
  committed_plan(dir,
                 "---\nplan_id: '01-01'\ndepends_on: []\nfiles_modified: ['out/a.txt']\nmust_pass:\n"
                 "  - id: looks\n    type: visual_quality\n    description: a.txt reads well\n---\n# 01-01\n\n"
                 "### Task 1: a\n\n```bash\necho a > out/a.txt\n```\n",
                 "---\nplan_id: '01-01'\nstatus: complete\nverification: passed\n---\n# done\n", {{"out/a.txt", "a\n"}});
  auto load = [&] {
    auto spec = spec::load_spec(dir.path / s, dir.path);
    REQUIRE(spec);
    return std::move(*spec);
  };
  verify::VerifyOptions opt;
  opt.check_commits = false;
  const spec::PhaseNumber one{1, 0};
  auto first = verify::write_report(load(), one, verify::verify_phase(load(), one, opt), verify::KeepApproval::when_unchanged);
  REQUIRE(first);
  CHECK_FALSE(first->kept_approval);
  REQUIRE(verify::record_verification_answer(first->file, {true, "alice", "2026-01-02T03:04:05Z", ""}));

  // The orchestrator's write (a phase verified again because its work changed) asks again...
  const auto approved_text = *util::read_file(first->file);
  auto strict = verify::write_report(load(), one, verify::verify_phase(load(), one, opt));
  REQUIRE(strict);
  CHECK_FALSE(strict->kept_approval);
  REQUIRE(util::write_file_atomic(first->file, approved_text));
  // ...`verify --phase` looking again at the same work keeps the answer.
  auto again = verify::write_report(load(), one, verify::verify_phase(load(), one, opt), verify::KeepApproval::when_unchanged);
  REQUIRE(again);
  REQUIRE(again->kept_approval);
  CHECK(again->kept_approval->by == "alice");
  const auto spec = load();
  REQUIRE(spec.verifications.count(one));
  CHECK(spec.verifications.at(one).status == spec::VerificationStatus::passed);

  // The final verification counts the phase's approval for its items for a person.
  const auto final_report = verify::verify_final(spec, opt);
  CHECK(final_report.status == spec::VerificationStatus::passed);
  REQUIRE(final_report.results.size() == 1);
  CHECK(final_report.results[0].message.find("approved by alice") != std::string::npos);
}

TEST_CASE("verify --phase drops a person's approval once the plans' files changed since, committed or not",
          "[verify][answer]") {
  harness::test::TempDir dir;
  const std::string s = "docs/specs/SPC-001-x/";
  committed_plan(dir,
                 "---\nplan_id: '01-01'\ndepends_on: []\nfiles_modified: ['out/**']\nmust_pass:\n"
                 "  - id: looks\n    type: visual_quality\n    description: a.txt reads well\n---\n# 01-01\n\n"
                 "### Task 1: a\n\n```bash\necho a > out/a.txt\n```\n",
                 "---\nplan_id: '01-01'\nstatus: complete\n---\n# done\n", {{"out/a.txt", "a\n"}, {"other.txt", "not the plan's\n"}});
  auto write = [&] {
    auto spec = spec::load_spec(dir.path / s, dir.path);
    REQUIRE(spec);
    verify::VerifyOptions opt;
    opt.check_commits = false;
    auto w = verify::write_report(*spec, spec::PhaseNumber{1, 0}, verify::verify_phase(*spec, {1, 0}, opt),
                                  verify::KeepApproval::when_unchanged);
    REQUIRE(w);
    return *w;
  };
  const auto first = write();
  REQUIRE(verify::record_verification_answer(first.file, {true, "alice", "2026-01-02T03:04:05Z", ""}));
  const auto approved_text = *util::read_file(first.file);
  // Other files changed, committed: the approval holds.
  dir.write("other.txt", "edited\n");
  test::sh(dir.path, "git commit -qam 'not the plan'");
  CHECK(write().kept_approval);

  SECTION("a commit to the plan's files") {
    dir.write("out/b.txt", "b\n");
    test::sh(dir.path, "git add out && git commit -qm 'by hand'");
    const auto w = write();
    CHECK_FALSE(w.kept_approval);
    REQUIRE(w.dropped_approval);
    CHECK(w.dropped_approval->answer.by == "alice");
    CHECK(w.dropped_approval->reason == "the plans' files changed since it was given");
    CHECK(approved_text.find("\nwork_hash: '" + w.dropped_approval->approved_work_hash + "'\n") != std::string::npos);
    std::vector<spec::Diagnostic> diags;
    CHECK(spec::parse_verification(*util::read_file(w.file), "V", diags).status == spec::VerificationStatus::human_needed);
  }
  SECTION("an edit not committed") {
    dir.write("out/a.txt", "edited by hand\n");
    CHECK(write().dropped_approval);
    // Undone, the work is the one approved again (the file as approved, put back).
    dir.write("out/a.txt", "a\n");
    REQUIRE(util::write_file_atomic(first.file, approved_text));
    CHECK(write().kept_approval);
  }
}

TEST_CASE("the final verification counts the gaps a person accepted at the phase as passed while the work is the same, "
          "and no other gap",
          "[verify][answer]") {
  harness::test::TempDir dir;
  const std::string s = "docs/specs/SPC-001-x/";
  // `alpha` fails over the plan's own file; `other` reads a file no plan writes.
  committed_plan(dir,
                 "---\nplan_id: '01-01'\ndepends_on: []\nfiles_modified: ['out/a.txt']\nmust_pass:\n"
                 "  - id: alpha\n    type: file_contains\n    path: out/a.txt\n    pattern: 'alpha'\n"
                 "  - id: other\n    type: file_contains\n    path: other.txt\n    pattern: 'fine'\n---\n# 01-01\n\n"
                 "### Task 1: a\n\n```bash\necho beta > out/a.txt\n```\n",
                 "---\nplan_id: '01-01'\nstatus: complete\nverification: passed\n---\n# done\n", {{"out/a.txt", "beta\n"}, {"other.txt", "fine\n"}});
  auto load = [&] {
    auto spec = spec::load_spec(dir.path / s, dir.path);
    REQUIRE(spec);
    return std::move(*spec);
  };
  verify::VerifyOptions opt;
  opt.check_commits = false;
  const spec::PhaseNumber one{1, 0};
  const auto phase = verify::verify_phase(load(), one, opt);
  REQUIRE(phase.status == spec::VerificationStatus::gaps_found);
  auto written = verify::write_report(load(), one, phase);
  REQUIRE(written);
  CHECK_FALSE(verify::verify_final(load(), opt).status == spec::VerificationStatus::passed); // not approved yet
  REQUIRE(verify::record_verification_answer(written->file, {true, "alice", "2026-01-02T03:04:05Z", ""}));
  const auto spec = load();
  REQUIRE(spec.verifications.count(one));
  CHECK(spec.verifications.at(one).gaps == std::vector<std::pair<std::string, std::string>>{{"01-01", "alpha"}});

  auto final_report = verify::verify_final(spec, opt);
  CHECK(final_report.status == spec::VerificationStatus::passed);
  REQUIRE(final_report.results.size() == 2);
  CHECK(final_report.results[0].status == verify::CheckStatus::passed);
  CHECK(final_report.results[0].message.starts_with("gap accepted by alice at 2026-01-02T03:04:05Z in phase 01's verification: "));

  SECTION("a gap the phase did not have is asked about") {
    dir.write("other.txt", "broken\n"); // not the plans' files: the work hash holds
    final_report = verify::verify_final(load(), opt);
    CHECK(final_report.status == spec::VerificationStatus::gaps_found);
    CHECK(final_report.results[0].status == verify::CheckStatus::passed);
    CHECK(final_report.results[1].status == verify::CheckStatus::failed);
  }
  SECTION("the same gap over other work is asked about") {
    dir.write("out/a.txt", "gamma\n");
    final_report = verify::verify_final(load(), opt);
    CHECK(final_report.status == spec::VerificationStatus::gaps_found);
    CHECK(final_report.results[0].status == verify::CheckStatus::failed);
  }
}

TEST_CASE("a plan whose verification checkpoint waits (or was refused) keeps a phase or final report run by hand "
          "from passing over it",
          "[verify][answer]") {
  harness::test::TempDir dir;
  const std::string s = "docs/specs/SPC-001-x/";
  const std::string plan = "---\nplan_id: '01-01'\ndepends_on: []\nfiles_modified: ['out/a.txt']\ncheckpoints: "
                           "['verification']\nmust_pass:\n  - id: a\n    type: file_exists\n    path: out/a.txt\n---\n"
                           "# 01-01\n\n### Task 1: a\n\n```bash\necho a > out/a.txt\n```\n";
  const std::string head = "---\nplan_id: '01-01'\nstatus: complete\n";
  verify::VerifyOptions opt;
  opt.check_commits = false;
  const spec::PhaseNumber one{1, 0};
  auto reports = [&](const std::string& summary) {
    committed_plan(dir, plan, summary, {{"out/a.txt", "a\n"}});
    auto spec = spec::load_spec(dir.path / s, dir.path);
    REQUIRE(spec);
    return std::pair(verify::verify_phase(*spec, one, opt), verify::verify_final(*spec, opt));
  };

  SECTION("waiting: the item for a person says so, and the phase report is human_needed") {
    const auto [phase, final_report] = reports(head + "verification: human_needed\n---\n# done\n");
    CHECK(phase.status == spec::VerificationStatus::human_needed);
    REQUIRE(phase.results.size() == 2);
    CHECK(phase.results[1].id == "approval");
    CHECK(phase.results[1].plan == "01-01");
    CHECK(phase.results[1].status == verify::CheckStatus::human);
    CHECK(phase.results[1].message ==
          "01-01's checks passed and it needs a person's approval (harness-cli respond --list shows its checkpoint; "
          "with none open, the next orchestrate asks)");
    CHECK(final_report.status == spec::VerificationStatus::human_needed);
  }
  SECTION("refused: the refusal is named") {
    const auto [phase, final_report] = reports(head + "verification: human_needed\nrefused_by: bob\nrefused_at: "
                                                      "'2026-01-02T03:04:05Z'\nrefusal_note: too dark\n---\n# done\n");
    CHECK(phase.status == spec::VerificationStatus::human_needed);
    REQUIRE(phase.results.size() == 2);
    CHECK(phase.results[1].message == "01-01 was refused by bob at 2026-01-02T03:04:05Z: too dark: it is verified once a "
                                      "person approves it (the next orchestrate asks again) or after harness-cli redo");
  }
  SECTION("approved (verification: passed), or a SUMMARY that says nothing of it (GSD's): nothing to ask") {
    for (const auto* verification : {"verification: passed\napproved_by: bob\napproved_at: '2026-01-02T03:04:05Z'\n", ""}) {
      const auto [phase, final_report] = reports(head + verification + "---\n# done\n");
      CHECK(phase.status == spec::VerificationStatus::passed);
      CHECK(phase.results.size() == 1);
      CHECK(final_report.status == spec::VerificationStatus::passed);
    }
  }
}
