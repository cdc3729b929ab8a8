// STATUS.md as the orchestrator writes it must read back through the spec parser unchanged.
#include "harness/graph/plan_graph.hpp"
#include "harness/graph/progress.hpp"
#include "harness/orchestrator/writeback.hpp"
#include "harness/spec/document_parsers.hpp"
#include "harness/spec/spec.hpp"
#include "harness/util/atomic_file.hpp"
#include "harness/verify/result.hpp"
#include "spec_test_util.hpp"

#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <set>

using namespace harness;

TEST_CASE("STATUS.md's blocked tasks round-trip through the spec parser, whatever the reason says", "[orchestrator][writeback]") {
  graph::Progress p;
  p.spec_name = "SPC-001-x";
  std::vector<spec::BlockedTask> blocked{{"execute:01-02", "worker crashed: \"boom\"\n  at line 3: {x: [1]}"},
                                         {"verify-phase:01", ""}};
  const auto text = orchestrator::render_status_md(p, "blocked", blocked);
  CHECK(text.starts_with("---\nrun: \"blocked\"\n"));
  CHECK(text.find("# Status: SPC-001-x") != std::string::npos);
  std::vector<spec::Diagnostic> diags;
  auto back = spec::parse_status_document(text, "STATUS.md", diags);
  CHECK(diags.empty());
  REQUIRE(back.blocked.size() == 2);
  CHECK(back.blocked[0].task == blocked[0].task);
  CHECK(back.blocked[0].reason == blocked[0].reason);
  CHECK(back.blocked[1].task == "verify-phase:01");
  auto none = spec::parse_status_document(orchestrator::render_status_md(p, "complete", {}), "STATUS.md", diags);
  CHECK(none.blocked.empty());
  CHECK(diags.empty());
}

TEST_CASE("commits.log gets each commit once, whoever reports it", "[orchestrator][writeback]") {
  const std::string log = "aaa 01-01 s1\nbbb 01-01 s1\n";
  auto lines = orchestrator::missing_commit_lines(log, {{"aaa", "01-01"}, {"ccc", "01-01"}, {"ccc", "01-01"}, {"ddd", "01-02"}}, "s2");
  CHECK(lines == std::vector<std::string>{"ccc 01-01 s2", "ddd 01-02 s2"});
  CHECK(orchestrator::missing_commit_lines("", {}, "s").empty());
}

TEST_CASE("commits.log that lost what the run wrote is written whole again, with the lines added since", "[orchestrator][writeback]") {
  const std::string known = "aaa 01-01 s1\nbbb 01-02 s2\n";
  CHECK_FALSE(orchestrator::whole_commits_log(known, known)); // nothing lost
  CHECK_FALSE(orchestrator::whole_commits_log(known, known + "ccc 01-03 s3\n")); // grown only
  CHECK_FALSE(orchestrator::whole_commits_log("", "")); // no log yet, none now
  // Removed (a `git clean -fd`), then re-created by a later append: the lost lines come first.
  CHECK(orchestrator::whole_commits_log(known, "") == known);
  CHECK(orchestrator::whole_commits_log(known, "ccc 01-03 s3\n") == known + "ccc 01-03 s3\n");
  // Cut (half of it), and a line both hold is kept once.
  CHECK(orchestrator::whole_commits_log(known, "bbb 01-02 s2\nccc 01-03 s3") == known + "ccc 01-03 s3\n");
  CHECK(orchestrator::whole_commits_log("aaa 01-01 s1", "") == "aaa 01-01 s1\n");
}

TEST_CASE("the write-back takes the changed files the orchestrator wrote, never a live worker's", "[orchestrator][writeback]") {
  const std::vector<worker::GitChange> changed = {
      {false, false, "docs/specs/S/STATUS.md"},
      {false, false, "docs/specs/S/SPEC.md"},                           // the user's edit
      {true, false, "docs/specs/S/execution/phases/01-a/01-01-SUMMARY.md"}, // a live worker's
      {false, false, "docs/specs/S/execution/phases/01-a/01-02-SUMMARY.md"},
  };
  const std::set<std::string> own = {"docs/specs/S/STATUS.md", "docs/specs/S/ROADMAP.md", // unchanged: not taken
                                     "docs/specs/S/execution/phases/01-a/01-01-SUMMARY.md",
                                     "docs/specs/S/execution/phases/01-a/01-02-SUMMARY.md"};
  const std::set<std::string> live = {"docs/specs/S/execution/phases/01-a/01-01-SUMMARY.md"};
  CHECK(orchestrator::writeback_paths(changed, own, live) ==
        std::vector<std::string>{"docs/specs/S/STATUS.md", "docs/specs/S/execution/phases/01-a/01-02-SUMMARY.md"});
  CHECK(orchestrator::writeback_paths(changed, {}, {}).empty());
}

TEST_CASE("the list of uncommitted writes round-trips through the store's JSON value", "[orchestrator][writeback]") {
  const std::set<std::string> paths = {"docs/specs/S/STATUS.md", "docs/specs/S/a \"quoted\" name.md"};
  CHECK(orchestrator::decode_paths(orchestrator::encode_paths(paths)) == paths);
  CHECK(orchestrator::decode_paths(orchestrator::encode_paths({})).empty());
  // Edited by hand into something else: read as nothing, never a crash.
  CHECK(orchestrator::decode_paths("{\"a\": 1}").empty());
  CHECK(orchestrator::decode_paths("not json").empty());
  CHECK(orchestrator::decode_paths(R"(["a", 3, ""])") == std::set<std::string>{"a"});
  CHECK(orchestrator::uncommitted_writes_key("SPC-001-x") != orchestrator::uncommitted_writes_key("SPC-002-x"));
}

TEST_CASE("of an older harness's leftovers only the documents the orchestrator writes are taken over", "[orchestrator][writeback]") {
  harness::test::TempDir dir;
  dir.write("docs/specs/SPC-001-v/SPEC.md", "# v\n");
  dir.write("docs/specs/SPC-001-v/planning/plans/01-a/01-01-PLAN.md",
            "---\nplan_id: '01-01'\ndepends_on: []\nfiles_modified: ['a.txt']\n---\n# a\n");
  dir.write("docs/specs/SPC-001-v/planning/plans/01-a/01-02-PLAN.md",
            "---\nplan_id: '01-02'\ndepends_on: []\nfiles_modified: ['b.txt']\n---\n# b\n");
  auto s = spec::load_spec(dir.path / "docs/specs/SPC-001-v", dir.path);
  REQUIRE(s);
  const std::string d = "docs/specs/SPC-001-v/";
  const auto docs = orchestrator::orchestrator_documents(*s);
  CHECK(std::ranges::find(docs, d + "STATUS.md") != docs.end());
  CHECK(std::ranges::find(docs, d + "execution/phases/01-a/VERIFICATION.md") != docs.end());
  CHECK(std::ranges::find(docs, d + "SPEC.md") == docs.end());
  const std::vector<worker::GitChange> changed = {
      {false, false, d + "execution/phases/01-a/01-01-SUMMARY.md"}, // a verification mark
      {true, false, d + "execution/phases/01-a/01-02-SUMMARY.md"},  // a worker's, never committed
      {true, false, d + "execution/phases/01-a/VERIFICATION.md"},   // a report written, not committed
      {false, false, d + "execution/commits.log"},
      {false, false, d + "SPEC.md"},                                // the user's
      {false, false, d + "planning/plans/01-a/01-01-PLAN.md"},      // the user's or a planner's
      {false, false, "src/a.txt"},
  };
  CHECK(orchestrator::unrecorded_writes(*s, changed) ==
        std::set<std::string>{d + "execution/phases/01-a/01-01-SUMMARY.md", d + "execution/phases/01-a/VERIFICATION.md",
                              d + "execution/commits.log"});
}

TEST_CASE("ROADMAP.md's velocity is the total it is given, however often a run writes it", "[orchestrator][writeback]") {
  harness::test::TempDir dir;
  dir.write("docs/specs/SPC-001-v/SPEC.md", "# v\n");
  dir.write("docs/specs/SPC-001-v/ROADMAP.md",
            "---\nstatus: planning\nvelocity:\n  total_plans_completed: 0\n  total_execution_minutes: 2.5\n"
            "  average_minutes_per_plan: 0\n---\n# Roadmap\n\n## Phase 1: Core\n**Goal**: g\n");
  auto load = [&] {
    auto s = spec::load_spec(dir.path / "docs/specs/SPC-001-v", dir.path);
    REQUIRE(s);
    return std::move(*s);
  };
  const auto before = orchestrator::roadmap_minutes(load());
  CHECK(before == Approx(2.5));
  graph::Progress p;
  // A run of 0.5 minutes writes its progress three times, the spec read again in between.
  for (int i = 0; i < 3; ++i) REQUIRE(orchestrator::update_roadmap(load(), p, before + 0.5, true));
  CHECK(orchestrator::roadmap_minutes(load()) == Approx(3.0));
  SECTION("plans of a few seconds are not said to take no time") {
    p.plans_verified = 8;
    REQUIRE(orchestrator::update_roadmap(load(), p, 0.3, true));
    const auto roadmap = load().roadmap;
    REQUIRE(roadmap);
    CHECK(roadmap->frontmatter.velocity_average_minutes_per_plan.value_or(0) == Approx(0.04));
  }
}

TEST_CASE("a failed attempt's SUMMARY is marked failed, keeping what the worker wrote", "[orchestrator][writeback]") {
  test::TempDir dir;
  const auto summary = dir.write("01-01-SUMMARY.md", "---\nplan_id: '01-01'\nstatus: complete # the worker's word\n"
                                                     "commits: [abc123]\n---\n# 01-01\n\nThe tests of task 1 fail.\n");
  auto marked = orchestrator::mark_summary_failed(summary);
  REQUIRE(marked);
  CHECK(*marked);
  const auto text = util::read_file(summary).value();
  std::vector<spec::Diagnostic> diags;
  CHECK(spec::parse_summary(text, "01-01-SUMMARY.md", diags).status == "failed");
  CHECK(diags.empty());
  CHECK(text.find("commits: [abc123]") != std::string::npos);
  CHECK(text.ends_with("The tests of task 1 fail.\n"));
  // Marked already (the second failed attempt left the first one's): nothing changes.
  auto again = orchestrator::mark_summary_failed(summary);
  REQUIRE(again);
  CHECK_FALSE(*again);
  CHECK(util::read_file(summary).value() == text);
}

TEST_CASE("a plan's refusal and a later approval both stay in its SUMMARY; the later one is its answer", "[orchestrator][writeback]") {
  test::TempDir dir;
  const auto summary = dir.write("01-01-SUMMARY.md", "---\nplan_id: '01-01'\nstatus: complete\n---\n# 01-01\n");
  auto read = [&] {
    std::vector<spec::Diagnostic> diags;
    auto s = spec::parse_summary(util::read_file(summary).value(), "01-01-SUMMARY.md", diags, "01-01");
    CHECK(diags.empty());
    return s;
  };
  REQUIRE(orchestrator::record_summary_refusal(summary, {false, "alice (harness-cli respond)", "2026-11-25T09:00:00.000Z",
                                                         "the header is missing: \"Title\""}));
  auto refused = read();
  REQUIRE(refused.answer);
  CHECK_FALSE(refused.answer->approved);
  CHECK(refused.answer->note == "the header is missing: \"Title\"");
  CHECK_FALSE(refused.verification); // a refusal verifies nothing
  REQUIRE(orchestrator::mark_summary_verification(summary, "passed",
                                                  spec::HumanAnswer{true, "bob (harness-cli respond)", "2026-11-25T10:00:00.000Z", ""}));
  auto approved = read();
  REQUIRE(approved.answer);
  CHECK(approved.answer->approved);
  CHECK(approved.answer->by == "bob (harness-cli respond)");
  CHECK(approved.verification == spec::VerificationStatus::passed);
  const auto text = util::read_file(summary).value();
  CHECK(text.find("refused_by: \"alice (harness-cli respond)\"") != std::string::npos); // the record stays
  CHECK(text.find("approval_note: \"\"") != std::string::npos);
  // Refused again later (its files changed since the approval): the refusal is the answer now,
  // and the note left out does not leave the earlier refusal's.
  REQUIRE(orchestrator::record_summary_refusal(summary, {false, "carol", "2026-11-25T11:00:00.000Z", ""}));
  auto again = read();
  REQUIRE(again.answer);
  CHECK_FALSE(again.answer->approved);
  CHECK(again.answer->by == "carol");
  CHECK(again.answer->note.empty());
}

TEST_CASE("a failed attempt's SUMMARY without frontmatter gets one that says failed", "[orchestrator][writeback]") {
  test::TempDir dir;
  const auto summary = dir.write("01-01-SUMMARY.md", "# 01-01\n\nDone, I think.\n");
  REQUIRE(orchestrator::mark_summary_failed(summary).value_or(false));
  const auto text = util::read_file(summary).value();
  std::vector<spec::Diagnostic> diags;
  CHECK(spec::parse_summary(text, "01-01-SUMMARY.md", diags).status == "failed");
  CHECK(text.ends_with("# 01-01\n\nDone, I think.\n"));
  CHECK_FALSE(orchestrator::mark_summary_failed(dir.path / "02-01-SUMMARY.md")); // no SUMMARY: an error, nothing written
  CHECK_FALSE(std::filesystem::exists(dir.path / "02-01-SUMMARY.md"));
}

TEST_CASE("a failed attempt's CRLF SUMMARY without frontmatter gets CRLF frontmatter", "[orchestrator][writeback]") {
  test::TempDir dir;
  const auto summary = dir.write("01-01-SUMMARY.md", "# 01-01\r\n\r\nDone, I think.\r\n");
  REQUIRE(orchestrator::mark_summary_failed(summary).value_or(false));
  const auto text = util::read_file(summary).value();
  CHECK(text == "---\r\nstatus: failed\r\n---\r\n# 01-01\r\n\r\nDone, I think.\r\n");
  std::vector<spec::Diagnostic> diags;
  CHECK(spec::parse_summary(text, "01-01-SUMMARY.md", diags).status == "failed");
}

TEST_CASE("documents a run could not write or commit are named with their reason and what to do", "[orchestrator][writeback]") {
  using Step = orchestrator::UnwrittenDocument::Step;
  CHECK(orchestrator::unwritten_text({}, "docs/specs/X", true).empty());
  const std::string full = "fatal: unable to write loose object file: No space left on device\n";
  std::vector<orchestrator::UnwrittenDocument> docs{{"s/STATUS.md", Step::write, "rename: No space left on device"}};
  for (const char* f : {"s/STATUS.md", "s/ROADMAP.md", "s/a", "s/b", "s/c", "s/d", "s/e"}) docs.push_back({f, Step::commit, full});
  CHECK(orchestrator::unwritten_text(docs, "docs/specs/X", true) ==
        "the spec is complete, but the run could not write or commit its documents: not written: s/STATUS.md (rename: No "
        "space left on device); not committed: s/STATUS.md, s/ROADMAP.md, s/a, s/b, s/c and 2 more (fatal: unable to "
        "write loose object file: No space left on device); fix that (free space on a full disk), then run harness-cli "
        "orchestrate docs/specs/X again: it writes and commits them");
  const auto blocked = orchestrator::unwritten_text({{"s/STATUS.md", Step::commit, "hook said no\nline two"}}, "X", false);
  CHECK(blocked.starts_with("the run could not write or commit some of its documents: not committed: s/STATUS.md (hook said no; line two)"));
  CHECK(blocked.ends_with("(hook said no; line two); fix that, then run harness-cli orchestrate X again: it writes and commits them"));
}

TEST_CASE("the write-back never commits the deletion of a file the orchestrator wrote", "[orchestrator][writeback]") {
  // A worker removed another plan's SUMMARY after the orchestrator marked it verified: the path is
  // the orchestrator's write, the deletion is not.
  test::TempDir dir;
  test::sh(dir.path, "git init -q && git config user.name t && git config user.email t@x");
  dir.write("S/STATUS.md", "old\n");
  dir.write("S/01-01-SUMMARY.md", "---\nverification: passed\n---\n");
  test::sh(dir.path, "git add -A && git commit -q -m init");
  dir.write("S/STATUS.md", "new\n");
  std::filesystem::remove(dir.path / "S/01-01-SUMMARY.md");
  const auto changed = worker::changed_paths(dir.path);
  REQUIRE(changed.size() == 2);
  const std::set<std::string> own = {"S/STATUS.md", "S/01-01-SUMMARY.md"};
  CHECK(orchestrator::writeback_paths(changed, own, {}) == std::vector<std::string>{"S/STATUS.md"});
  // Staged by someone (`git rm`): the same.
  test::sh(dir.path, "git rm -q --cached S/01-01-SUMMARY.md");
  CHECK(orchestrator::writeback_paths(worker::changed_paths(dir.path), own, {}) == std::vector<std::string>{"S/STATUS.md"});
}

namespace {

/// STATUS.md and ROADMAP.md as a run's refresh writes them from `s`.
std::string progress_documents(const spec::Spec& s) {
  const auto progress = graph::compute_progress(s, graph::build_plan_graph(s.plans), 1);
  const auto roadmap = util::read_file(s.layout.roadmap_md).value_or("");
  const auto ticked = orchestrator::roadmap_with_progress(s, roadmap, progress, 12.5, true);
  return orchestrator::render_status_md(progress, "running", {}) + "\n----\n" + (ticked ? *ticked : "error: " + ticked.error());
}

std::vector<std::string> diagnostic_lines(const spec::Spec& s) {
  std::vector<std::string> out;
  for (const auto& d : s.diagnostics) out.push_back(fmt::format("{}:{}: {} {}", d.file, d.line, d.code, d.message));
  std::ranges::sort(out);
  return out;
}

} // namespace

TEST_CASE("a refresh that reads again only the SUMMARYs a run's tasks wrote writes what a whole reload would",
          "[orchestrator][writeback]") {
  namespace fs = std::filesystem;
  test::TempDir dir;
  const auto spec_dir = test::example_project(dir.path);
  auto run_spec = spec::load_spec(spec_dir).value();
  const auto results = spec_dir / "execution/phases/01-foundation";
  auto step = [&](const std::set<std::string>& written) {
    spec::reload_summaries(run_spec, written);
    const auto whole = spec::load_spec(spec_dir).value();
    CHECK(progress_documents(run_spec) == progress_documents(whole));
    CHECK(diagnostic_lines(run_spec) == diagnostic_lines(whole));
  };
  // A worker's SUMMARY, then the orchestrator's verification mark on it.
  dir.write(fs::relative(results / "01-01-SUMMARY.md", dir.path).string(),
            "---\nplan_id: '01-01'\nstatus: complete\n---\n# 01-01\n");
  step({"01-01"});
  REQUIRE(orchestrator::mark_summary_verification(results / "01-01-SUMMARY.md", "passed"));
  step({"01-01"});
  // One with deviations and one with a status the parser warns about, ended in one refresh.
  dir.write(fs::relative(results / "01-02-SUMMARY.md", dir.path).string(),
            "---\nplan_id: '01-02'\nstatus: complete\ndeviations:\n  - used a library\n---\n# 01-02\n");
  dir.write(fs::relative(results / "01-03-SUMMARY.md", dir.path).string(),
            "---\nplan_id: '01-03'\nstatus: finished\n---\n# 01-03\n");
  step({"01-02", "01-03"});
  step({"01-03"}); // read twice: its warning is not doubled
  // A SUMMARY gone (a worker removed it), and an id of no plan.
  fs::remove(results / "01-02-SUMMARY.md");
  step({"01-02", "09-09"});
}

TEST_CASE("a requirement is met once every plan naming it is verified", "[orchestrator][writeback]") {
  spec::Spec s;
  auto plan = [&](std::string id, std::vector<std::string> requirements) {
    spec::Plan p;
    p.id = std::move(id);
    p.requirements = std::move(requirements);
    s.plans.push_back(std::move(p));
  };
  plan("01-01", {"A-01", "B-01"});
  plan("01-02", {"B-01"});
  plan("01-03", {"C-01"});
  plan("01-04", {});
  graph::Progress progress;
  progress.plans.push_back({"01-01", "", graph::PlanState::verified});
  progress.plans.push_back({"01-02", "", graph::PlanState::executed});
  progress.plans.push_back({"01-03", "", graph::PlanState::verified});
  progress.plans.push_back({"01-04", "", graph::PlanState::verified});
  const std::map<std::string, bool, std::less<>> met = {{"A-01", true}, {"B-01", false}, {"C-01", true}};
  CHECK(orchestrator::requirements_met(s, progress) == met);
}
