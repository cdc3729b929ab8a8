// A GSD v1 project (`.planning/`) in a real git repository: the plans GSD executed before harness
// ran the project are in commits named by their subjects (`feat(01-01): ...`, no trailers), and
// the commits harness makes there carry a `Spec:` trailer that a clone elsewhere still owns.
#include "harness/spec/spec.hpp"
#include "harness/verify/engine.hpp"
#include "harness/verify/human_answer.hpp"
#include "harness/worker/gsd_commits.hpp"
#include "harness/worker/worker_commit.hpp"
#include "spec_test_util.hpp"

#include <catch2/catch.hpp>

#include <fmt/format.h>

using namespace harness;
namespace fs = std::filesystem;

namespace {

/// The `commits` check of `spec`'s plan `plan_id`.
verify::CheckResult commits_check_of(const spec::Spec& spec, const std::string& plan_id, const verify::VerifyOptions& opt = {}) {
  const auto report = verify::verify_plan(spec, *spec.find_plan(plan_id), opt);
  for (const auto& r : report.results)
    if (r.id == "commits") return r;
  FAIL("no commits check");
  return {};
}

/// A GSD project with two plans in phase 1: 01-01 (src/a.py) and 01-02 (src/b.py).
struct GsdProject {
  test::TempDir dir;
  fs::path root = fs::canonical(dir.path);
  GsdProject() {
    test::set_git_identity();
    dir.write(".planning/PROJECT.md", "# Notes\n");
    dir.write(".planning/ROADMAP.md", "# Roadmap\n\n## Phase 1: Core\n");
    for (const char* id : {"01", "02"}) {
      const std::string name = id == std::string("01") ? "a" : "b";
      dir.write(fmt::format(".planning/phases/01-core/01-{}-PLAN.md", id),
                fmt::format("---\nphase: 01-core\nplan: {}\ndepends_on: []\nfiles_modified: [src/{}.py]\n---\n"
                            "<objective>\nWrite {}\n</objective>\n<tasks>\n<task type=\"auto\">\n  <name>write it</name>\n"
                            "</task>\n</tasks>\n",
                            id, name, name));
    }
    git("init -q && git add -A && git commit -qm 'docs: plan phase 1'");
  }
  std::string git(const std::string& args) const { return test::sh(root, "git " + args); }
  spec::Spec spec() const {
    auto s = spec::load_spec(root, root);
    REQUIRE(s);
    REQUIRE(s->valid());
    return std::move(*s);
  }
  verify::CheckResult commits_check(const std::string& plan_id) const { return commits_check_of(spec(), plan_id); }
  /// What GSD's executor does for plan 01-01: a commit per task, then one for its SUMMARY.
  void gsd_executes_01_01() {
    dir.write("src/a.py", "A = 1\n");
    git("add src/a.py && git commit -qm 'feat(01-01): write a' -m 'Body mentioning feat(01-02): not a subject'");
    dir.write(".planning/phases/01-core/01-01-SUMMARY.md", "---\nphase: 01-core\nplan: 01\n---\n# done\n");
    git("add .planning && git commit -qm 'docs(01-01): complete write-a plan'");
  }
};

} // namespace

TEST_CASE("a GSD commit subject names its plan; nothing else does", "[verify][gsd]") {
  CHECK(worker::plan_of_gsd_subject("feat(01-02): add the parser") == "01-02");
  CHECK(worker::plan_of_gsd_subject("test(02.1-01): slug tests") == "02.1-01");
  CHECK(worker::plan_of_gsd_subject("docs(01-02): complete parser plan") == "01-02");
  CHECK(worker::plan_of_gsd_subject("docs(phase-01): verification").empty());
  CHECK(worker::plan_of_gsd_subject("feat(api): x").empty());
  CHECK(worker::plan_of_gsd_subject("feat: x").empty());
  CHECK(worker::plan_of_gsd_subject("Feat(01-02): capitalised type").empty());
  CHECK(worker::plan_of_gsd_subject("feat(01-02) no colon").empty());
  CHECK(worker::plan_of_gsd_subject("feat(01.2.3-01): two decimal parts").empty());
  CHECK(worker::plan_of_gsd_subject("feat(01-): x").empty());
  CHECK(worker::gsd_subject_pattern({"01-01", "02.1-03"}) == "^[a-z]+\\((01-01|02\\.1-03)\\): ");
}

TEST_CASE("a plan GSD executed before harness ran the project passes the commits check by its commits' subjects",
          "[verify][gsd]") {
  // Review S, finding 2: only trailer commits counted, so every plan GSD had executed failed its
  // check, and a run executed the whole phase again over GSD's SUMMARYs.
  GsdProject p;
  p.gsd_executes_01_01();
  auto c = p.commits_check("01-01");
  CHECK(c.status == verify::CheckStatus::passed);
  CHECK(c.message == "2 commits GSD made ('feat(01-01): write a'), without trailers: not told apart by task");
  // A subject names a plan; a line of another commit's body does not.
  c = p.commits_check("01-02");
  CHECK(c.status == verify::CheckStatus::failed);
  CHECK(c.message == "no commit carries 'Plan: 01-02'");

  SECTION("the plan's other checks still apply: a GSD commit's undeclared file is named") {
    p.dir.write("src/extra.py", "x\n");
    p.git("add src/extra.py && git commit -qm 'fix(01-01): a helper'");
    c = p.commits_check("01-01");
    CHECK(c.status == verify::CheckStatus::passed);
    CHECK_THAT(c.message, Catch::StartsWith("3 commits GSD made ('feat(01-01): write a')"));
    CHECK_THAT(c.message, Catch::Contains("src/extra.py"));
  }
  SECTION("a later fix GSD made under 01-01's name to another plan's file is said, not held against 01-01") {
    // Review T, finding 3: GSD's executor fixes earlier plans' files as `fix(<running plan>): ...`.
    p.dir.write("src/b.py", "B = 0\n");
    p.git("add src/b.py && git commit -qm 'fix(01-01): a typo in b'");
    c = p.commits_check("01-01");
    CHECK(c.status == verify::CheckStatus::passed);
    CHECK_THAT(c.message, Catch::Contains("src/b.py (plan 01-02's)"));
    CHECK_THAT(c.message, Catch::EndsWith("one of them changes another plan's declared files (a commit names 01-01 in its "
                                          "subject only: a fix made under its name?)"));
  }
  SECTION("a clone too shallow for the trailers but holding GSD's commits counts them") {
    // Review T, finding 5: CI's default fetch depth made every GSD-executed plan unreadable.
    test::TempDir ci;
    test::sh(ci.path, fmt::format("git clone -q --depth 2 'file://{}' c", p.root.string()));
    const fs::path clone = fs::canonical(ci.path / "c");
    auto s = spec::load_spec(clone, clone);
    REQUIRE(s);
    verify::VerifyOptions opt;
    opt.history = worker::HistoryDepth::shallow;
    const auto r = commits_check_of(*s, "01-01", opt);
    CHECK(r.status == verify::CheckStatus::passed);
    CHECK_FALSE(r.history_cut);
  }
  SECTION("after `harness-cli redo` of the plan, GSD's commits before it are no longer its work") {
    p.git("commit -q --allow-empty -m 'chore(notes): run 01-01 again' -m 'Redo: 01-01' -m 'Spec: .planning'");
    c = p.commits_check("01-01");
    CHECK(c.status == verify::CheckStatus::failed);
    CHECK(c.message == "no commit carries 'Plan: 01-01'");
    // Another spec's marker is not this one's redo.
    p.git("commit -q --allow-empty -m 'chore(x): run 01-01 again' -m 'Redo: 01-01' -m 'Spec: apps/x/.planning'");
    p.dir.write("src/a.py", "A = 3\n");
    p.git("commit -qam 'feat(01-01): write a again'");
    c = p.commits_check("01-01");
    CHECK(c.status == verify::CheckStatus::passed);
    CHECK(c.message == "1 commit GSD made ('feat(01-01): write a again'), without trailers: not told apart by task");
  }
  SECTION("commits harness made with trailers are the plan's work; GSD's subjects are not looked for then") {
    p.dir.write("src/a.py", "A = 2\n");
    p.git("add src/a.py && git commit -qm 'feat(01-01): again' -m 'Plan: 01-01, Task: 1/1' -m 'Spec: .planning'");
    c = p.commits_check("01-01");
    CHECK(c.status == verify::CheckStatus::passed);
    CHECK(c.message == "1 commit, 1 of 1 tasks covered");
  }
}

TEST_CASE("GSD's SUMMARY commit alone is no plan's work", "[verify][gsd]") {
  // Review T, finding 2: `docs(01-02): complete ... plan` exists for every plan GSD finished,
  // committed work or not.
  GsdProject p;
  p.dir.write(".planning/phases/01-core/01-02-SUMMARY.md", "---\nphase: 01-core\nplan: 02\n---\n# done\n");
  p.git("add .planning && git commit -qm 'docs(01-02): complete write-b plan'");
  auto c = p.commits_check("01-02");
  CHECK(c.status == verify::CheckStatus::failed);
  CHECK(c.message == "the commit GSD made for 01-02 ('docs(01-02): complete write-b plan') changes only its planning "
                     "documents: none holds its work (src/b.py)");
}

TEST_CASE("GSD commits count for the GSD project they change, not for another in the same repository", "[verify][gsd]") {
  // Review T, finding 1: apps/a's `feat(01-02)` verified apps/b's 01-02, which had no work at all.
  test::set_git_identity();
  test::TempDir dir;
  for (const char* app : {"a", "b"}) {
    dir.write(fmt::format("apps/{}/.planning/ROADMAP.md", app), "# Roadmap\n\n## Phase 1: Core\n");
    dir.write(fmt::format("apps/{}/.planning/phases/01-core/01-01-PLAN.md", app),
              fmt::format("---\nphase: 01-core\nplan: 01\ndepends_on: []\nfiles_modified: [apps/{}/src/x.py]\n---\n"
                          "<tasks>\n<task type=\"auto\">\n  <name>write x</name>\n</task>\n</tasks>\n",
                          app));
  }
  dir.write("apps/a/src/x.py", "x\n");
  test::sh(dir.path, "git init -q && git add -A && git commit -qm plans && "
                     "git commit -q --allow-empty -m 'chore: nothing' && echo y >> apps/a/src/x.py && "
                     "git commit -qam 'feat(01-01): write x'");
  auto check = [&](const char* app) {
    auto s = spec::load_spec(dir.path / "apps" / app, dir.path);
    REQUIRE(s);
    return commits_check_of(*s, "01-01");
  };
  CHECK(check("a").status == verify::CheckStatus::passed);
  const auto b = check("b");
  CHECK(b.status == verify::CheckStatus::failed);
  CHECK(b.message == "no commit carries 'Plan: 01-01'");
}

TEST_CASE("GSD-style subjects count only in GSD's layout", "[verify][gsd]") {
  test::set_git_identity();
  test::TempDir dir;
  dir.write("docs/specs/SPC-005-x/SPEC.md", "# X\n");
  dir.write("docs/specs/SPC-005-x/planning/plans/01-core/01-01-PLAN.md",
            "---\nplan_id: '01-01'\ndepends_on: []\nfiles_modified: [src/a.py]\n---\n# 01-01\n\n### Task 1: write\n");
  dir.write("src/a.py", "A = 1\n");
  test::sh(dir.path, "git init -q && git add -A && git commit -qm 'feat(01-01): write a'");
  auto s = spec::load_spec(dir.path / "docs/specs/SPC-005-x");
  REQUIRE(s);
  const auto r = commits_check_of(*s, "01-01");
  CHECK(r.status == verify::CheckStatus::failed);
  CHECK(r.message == "no commit carries 'Plan: 01-01'");
}

TEST_CASE("a GSD project's commits carry the .planning directory's path as their spec, which any clone owns",
          "[verify][gsd]") {
  // Review S, finding 4: the trailer was the project directory's name, so a teammate's clone, CI
  // or a worktree under another name owned none of harness's commits.
  GsdProject p;
  const auto s = p.spec();
  CHECK(s.layout.spec_trailer == ".planning");
  CHECK(s.layout.command_argument() == ".");
  CHECK(s.layout.spec_name == p.root.filename().string());
  CHECK(s.layout.owns_spec_trailer(".planning"));
  CHECK(s.layout.owns_spec_trailer(s.layout.spec_name)); // what an older harness wrote here
  CHECK_FALSE(s.layout.owns_spec_trailer("apps/web/.planning"));
  CHECK_FALSE(s.layout.owns_spec_trailer(""));

  worker::WorkerCommitRequest req{p.root / ".planning", s.layout.spec_name, "execute:01-01", "feat(01-01): write a",
                                  {"src/a.py"}, 1};
  p.dir.write("src/a.py", "A = 1\n");
  REQUIRE(worker::commit_worker_files(req));
  CHECK(p.git("log -1 --format=%B") == "feat(01-01): write a\n\nPlan: 01-01, Task: 1/1\nSpec: .planning\n\n");

  test::TempDir other;
  const fs::path clone = other.path / "elsewhere";
  test::sh(other.path, fmt::format("git clone -q '{}' elsewhere", p.root.string()));
  auto cloned = spec::load_spec(clone, clone);
  REQUIRE(cloned);
  CHECK(cloned->layout.spec_name == "elsewhere");
  const auto r = commits_check_of(*cloned, "01-01");
  CHECK(r.status == verify::CheckStatus::passed);
  CHECK(r.message == "1 commit, 1 of 1 tasks covered");
}

TEST_CASE("a GSD project below the repository's root is told apart from another by its path", "[verify][gsd]") {
  test::TempDir dir;
  dir.write("apps/web/.planning/ROADMAP.md", "# Roadmap\n\n## Phase 1: Core\n");
  dir.write("apps/web/.planning/phases/01-core/01-01-PLAN.md", "---\ndepends_on: []\nfiles_modified: [a]\n---\n# x\n");
  fs::create_directory(dir.path / ".git");
  auto s = spec::load_spec(dir.path / "apps/web", dir.path);
  REQUIRE(s);
  CHECK(s->layout.spec_name == "web");
  CHECK(s->layout.spec_trailer == "apps/web/.planning");
  CHECK(s->layout.command_argument() == "apps/web"); // what the user ran, not apps/web/.planning
  CHECK_FALSE(s->layout.owns_spec_trailer(".planning"));
}

TEST_CASE("a phase GSD's verifier found gaps in asks a person, though harness's checks pass", "[verify][gsd]") {
  // Review U, finding 1: GSD's gaps_found report was verified again by harness's checks, which do
  // not see the truths GSD judged, and replaced with `passed`: nobody was asked, the gaps vanished.
  GsdProject p;
  p.gsd_executes_01_01();
  p.dir.write("src/b.py", "B = 1\n");
  p.git("add src/b.py && git commit -qm 'feat(01-02): write b'");
  const std::string gsd_report = "---\nphase: 01-core\nverified: 2026-11-20T10:00:00Z\nstatus: {}\nscore: 4/5 must-haves "
                                 "verified\ngaps:\n  - truth: \"a is read back\"\n    status: failed\n---\n# Phase 1 verification\n";
  auto phase_status = [&](const std::string& status) {
    p.dir.write(".planning/phases/01-core/01-VERIFICATION.md", fmt::format(fmt::runtime(gsd_report), status));
    const auto report = verify::verify_phase(p.spec(), {1, 0});
    std::string gsd;
    for (const auto& r : report.results)
      if (r.id == "gsd-verification") gsd = r.message;
    return std::pair{report.status, gsd};
  };
  auto [status, message] = phase_status("gaps_found");
  CHECK(status == spec::VerificationStatus::human_needed);
  CHECK(message == "GSD's verifier found gaps_found (4/5) in phases/01-core/01-VERIFICATION.md: it judged what harness's "
                   "checks do not see (the must_haves truths); read its findings (git keeps the file this report "
                   "replaces) before approving");
  {
    // Harness's report replaces GSD's at once, before anybody answers: verified again (a fix
    // committed, a second run), the phase asks the same, until a person approves (review V 1).
    const auto first = verify::verify_phase(p.spec(), {1, 0});
    REQUIRE(verify::write_report(p.spec(), spec::PhaseNumber{1, 0}, first));
    p.dir.write("src/a.py", "A = 2\n");
    p.git("commit -qam 'fix(01-01): a fix'");
    auto again = verify::verify_phase(p.spec(), {1, 0});
    CHECK(again.status == spec::VerificationStatus::human_needed);
    std::string carried;
    for (const auto& r : again.results)
      if (r.id == "gsd-verification") carried = r.message;
    CHECK(carried == message);
    const auto report = p.spec().layout.verification_file(*p.spec().layout.find_phase({1, 0}));
    REQUIRE(verify::record_verification_answer(report, {true, "alice", "2026-11-25T00:00:00Z", "read them"}));
    again = verify::verify_phase(p.spec(), {1, 0});
    CHECK(again.status == spec::VerificationStatus::passed);
  }
  std::tie(status, message) = phase_status("human_needed");
  CHECK(status == spec::VerificationStatus::human_needed);
  CHECK_THAT(message, Catch::StartsWith("GSD's verifier found human_needed"));
  // GSD's passing report asks nobody.
  std::tie(status, message) = phase_status("passed");
  CHECK(status == spec::VerificationStatus::passed);
  CHECK(message.empty());
}
