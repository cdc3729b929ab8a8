// The `commits` check of a plan in a real git repository: the plan's work must be in its
// commits, not only in the work tree where its other checks look.
#include "harness/spec/spec.hpp"
#include "harness/verify/engine.hpp"
#include "spec_test_util.hpp"

#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <cstdlib>

using namespace harness;
namespace fs = std::filesystem;

namespace {

/// A spec whose plan 01-01 declares out/a.txt and src/**, checks out/b.txt, and has one commit
/// with its trailers that changed nothing.
struct Project {
  test::TempDir dir;
  Project() {
    test::set_git_identity();
    dir.write("docs/specs/SPC-003-commits/SPEC.md", "# Commits\n");
    dir.write("docs/specs/SPC-003-commits/planning/plans/01-core/01-01-PLAN.md",
              "---\nplan_id: '01-01'\ndepends_on: []\nfiles_modified: ['out/a.txt', 'src/**']\nmust_pass:\n"
              "  - {id: b, type: file_exists, path: out/b.txt}\n---\n# 01-01\n\n### Task 1: write\n\n"
              "```bash\nmkdir -p out && echo a > out/a.txt\n```\n");
    dir.write(".gitignore", "build/\n");
    test::sh(dir.path, "git init -q && git add -A && git commit -qm init && "
                       "git commit -q --allow-empty -m 'feat(01-01): write' -m 'Plan: 01-01, Task: 1/1' -m 'Spec: SPC-003-commits'");
  }
  verify::CheckResult commits_check() const {
    auto spec = spec::load_spec(dir.path / "docs/specs/SPC-003-commits");
    REQUIRE(spec);
    REQUIRE(spec->valid());
    const auto report = verify::verify_plan(*spec, spec->plans.at(0));
    for (const auto& r : report.results)
      if (r.id == "commits") return r;
    FAIL("no commits check");
    return {};
  }
};

} // namespace

TEST_CASE("the commits check fails when the plan's files are in the work tree but in no commit", "[verify][commits]") {
  Project p;
  p.dir.write("out/a.txt", "a\n");
  p.dir.write("out/b.txt", "b\n");
  p.dir.write("src/new.txt", "another plan may be writing this one\n");
  auto c = p.commits_check();
  CHECK(c.status == verify::CheckStatus::failed);
  CHECK_THAT(c.message, Catch::StartsWith("out/a.txt, out/b.txt are not committed (a plan's work counts only in its "
                                          "commits: commit them, or list them in .gitignore if a build makes them); "
                                          "1 commit, 1 of 1 tasks covered"));
  // A pattern is not looked at: it may cover a file another plan is writing beside this check.
  CHECK_THAT(c.message, !Catch::Contains("src/new.txt"));

  SECTION("staged is not committed either") {
    test::sh(p.dir.path, "git add out/a.txt out/b.txt");
    c = p.commits_check();
    CHECK(c.status == verify::CheckStatus::failed);
    CHECK_THAT(c.message, Catch::StartsWith("out/a.txt, out/b.txt are not committed"));
  }
  SECTION("committed, it passes; a change not committed yet to a committed file is not the question") {
    test::sh(p.dir.path, "git add out && git commit -qm 'feat(01-01): files' -m 'Plan: 01-01, Task: 1/1' -m 'Spec: SPC-003-commits'");
    p.dir.write("out/a.txt", "edited\n");
    c = p.commits_check();
    CHECK(c.status == verify::CheckStatus::passed);
    CHECK_THAT(c.message, Catch::StartsWith("2 commits, 1 of 1 tasks covered"));
  }
}

TEST_CASE("a declared file inside a git submodule, committed in neither repository, fails the check", "[verify][commits]") {
  // J2: git status of this repository cannot see a file inside a submodule, and none of its
  // commits can hold it: the plan passed although its work was nowhere but in the work tree.
  Project p;
  test::TempDir lib;
  test::sh(lib.path, "git init -q -b main && echo x > x && git add x && git commit -qm x");
  test::sh(p.dir.path, "git -c protocol.file.allow=always submodule add -q '" + lib.path.string() +
                           "' out && git commit -qm 'out is a submodule'");
  p.dir.write("out/a.txt", "a\n");
  p.dir.write("out/b.txt", "b\n");
  auto c = p.commits_check();
  CHECK(c.status == verify::CheckStatus::failed);
  CHECK_THAT(c.message, Catch::StartsWith("out/a.txt, out/b.txt are inside the git submodule out and committed in neither "
                                          "repository (harness commits only this repository's files"));
  SECTION("committed in the submodule, the work is somewhere: not this check's question") {
    test::sh(p.dir.path / "out", "git add a.txt b.txt && git commit -qm work");
    c = p.commits_check();
    CHECK(c.status == verify::CheckStatus::passed);
    CHECK_THAT(c.message, Catch::StartsWith("1 commit, 1 of 1 tasks covered"));
  }
}

TEST_CASE("a declared file that is only the new path of a staged rename is not committed", "[verify][commits]") {
  Project p;
  // out/b.txt (the check's) was committed; out/a.txt (declared) exists only as a rename staged
  // from it, which no commit holds.
  p.dir.write("out/b.txt", "a\n");
  test::sh(p.dir.path, "git add out/b.txt && git commit -qm 'b' && git mv out/b.txt out/a.txt");
  REQUIRE(test::sh(p.dir.path, "git status --porcelain=v1") == "R  out/b.txt -> out/a.txt\n");
  const auto c = p.commits_check();
  CHECK(c.status == verify::CheckStatus::failed);
  CHECK_THAT(c.message, Catch::StartsWith("out/a.txt is not committed"));
}

// (A check's path outside the project is refused by validate, H010: no spec with one gets here.)
TEST_CASE("a file git ignores is not asked to be committed", "[verify][commits]") {
  Project p;
  p.dir.write("docs/specs/SPC-003-commits/planning/plans/01-core/01-01-PLAN.md",
              "---\nplan_id: '01-01'\ndepends_on: []\nfiles_modified: ['build/app.js']\nmust_pass:\n"
              "  - {id: b, type: file_exists, path: build/app.js}\n---\n# 01-01\n\n### Task 1: build\n\n"
              "```bash\nmkdir -p build && echo x > build/app.js\n```\n");
  test::sh(p.dir.path, "git add -A && git commit -qm 'plan edited'");
  p.dir.write("build/app.js", "x\n");
  const auto c = p.commits_check();
  CHECK(c.status == verify::CheckStatus::passed);
  CHECK_THAT(c.message, Catch::StartsWith("1 commit, 1 of 1 tasks covered"));
}

TEST_CASE("a plan whose commits change another plan's declared file fails, naming that plan", "[verify][commits]") {
  Project p;
  p.dir.write("docs/specs/SPC-003-commits/planning/plans/01-core/01-02-PLAN.md",
              "---\nplan_id: '01-02'\ndepends_on: []\nfiles_modified: ['other/c.txt']\n---\n# 01-02\n\n### Task 1: write\n\n"
              "```bash\necho c > other/c.txt\n```\n");
  test::sh(p.dir.path, "git add -A && git commit -qm 'plan 01-02'");
  p.dir.write("out/b.txt", "b\n");
  p.dir.write("elsewhere.txt", "e\n");
  test::sh(p.dir.path, "git add -A && git commit -qm 'feat(01-01): files' -m 'Plan: 01-01, Task: 1/1' -m 'Spec: SPC-003-commits'");
  auto c = p.commits_check();
  // Undeclared only: named, and it passes.
  CHECK(c.status == verify::CheckStatus::passed);
  CHECK_THAT(c.message, Catch::Contains("changed outside files_modified: elsewhere.txt, out/b.txt (declare them"));
  CHECK(c.outside_files == std::vector<std::string>{"elsewhere.txt", "out/b.txt"});

  p.dir.write("other/c.txt", "clobbered\n");
  test::sh(p.dir.path, "git add -A && git commit -qm 'feat(01-01): more' -m 'Plan: 01-01, Task: 1/1' -m 'Spec: SPC-003-commits'");
  c = p.commits_check();
  CHECK(c.status == verify::CheckStatus::failed);
  CHECK_THAT(c.message, Catch::Contains("changed outside files_modified: other/c.txt (plan 01-02's), elsewhere.txt, out/b.txt"));
  CHECK_THAT(c.message, Catch::Contains("one of them is another plan's work, which 01-01 must leave alone"));
}

TEST_CASE("a plan whose commits change the spec's documents other than its own SUMMARY fails, naming them", "[verify][commits]") {
  Project p;
  p.dir.write("out/a.txt", "a\n");
  p.dir.write("out/b.txt", "b\n");
  p.dir.write("docs/specs/SPC-003-commits/execution/phases/01-core/01-01-SUMMARY.md", "---\nplan_id: '01-01'\n---\n# 01-01\n");
  test::sh(p.dir.path, "git add -A && git commit -qm 'feat(01-01): work' -m 'Plan: 01-01, Task: 1/1' -m 'Spec: SPC-003-commits'");
  auto c = p.commits_check();
  CHECK(c.status == verify::CheckStatus::passed); // its own SUMMARY is its to commit
  // Its PLAN file and another plan's SUMMARY, committed under its trailers (a worker's own git,
  // or a directory given to an older harness_worker_commit): a check edited to pass, a record forged.
  p.dir.write("docs/specs/SPC-003-commits/planning/plans/01-core/01-01-PLAN.md",
              "---\nplan_id: '01-01'\ndepends_on: []\nfiles_modified: ['out/a.txt', 'src/**']\n---\n# 01-01\n\n"
              "### Task 1: write\n\n```bash\ntrue\n```\n");
  p.dir.write("docs/specs/SPC-003-commits/execution/phases/01-core/01-02-SUMMARY.md", "---\nplan_id: '01-02'\n---\n");
  test::sh(p.dir.path, "git add -A && git commit -qm 'feat(01-01): tidy' -m 'Plan: 01-01, Task: 1/1' -m 'Spec: SPC-003-commits'");
  c = p.commits_check();
  CHECK(c.status == verify::CheckStatus::failed);
  CHECK_THAT(c.message, Catch::Contains("it changed the spec's documents, of which only its own SUMMARY is a plan's to commit: "
                                        "docs/specs/SPC-003-commits/execution/phases/01-core/01-02-SUMMARY.md, "
                                        "docs/specs/SPC-003-commits/planning/plans/01-core/01-01-PLAN.md"));
  // Restored as the message says (and committed): nothing left to hold against the plan.
  test::sh(p.dir.path, "git show HEAD^:docs/specs/SPC-003-commits/planning/plans/01-core/01-01-PLAN.md > "
                       "docs/specs/SPC-003-commits/planning/plans/01-core/01-01-PLAN.md && "
                       "git rm -q docs/specs/SPC-003-commits/execution/phases/01-core/01-02-SUMMARY.md && "
                       "git commit -qam 'restore the documents'");
  c = p.commits_check();
  CHECK(c.status == verify::CheckStatus::passed);
  CHECK_THAT(c.message, !Catch::Contains("spec's documents"));
}

TEST_CASE("the orchestrator's phase gate counts a plan whose SUMMARY is gone as a gap", "[verify][commits]") {
  Project p;
  p.dir.write("out/a.txt", "a\n");
  p.dir.write("out/b.txt", "b\n");
  const auto summary = p.dir.write("docs/specs/SPC-003-commits/execution/phases/01-core/01-01-SUMMARY.md",
                                   "---\nplan_id: '01-01'\nstatus: complete\n---\n# 01-01\n");
  test::sh(p.dir.path, "git add -A && git commit -qm 'feat(01-01): files' -m 'Plan: 01-01, Task: 1/1' -m 'Spec: SPC-003-commits'");
  auto spec = spec::load_spec(p.dir.path / "docs/specs/SPC-003-commits");
  REQUIRE(spec);
  verify::VerifyOptions opt;
  opt.check_summaries = true;
  auto with = verify::verify_phase(*spec, {1, 0}, opt);
  CHECK(with.status == spec::VerificationStatus::passed);
  const auto count = with.results.size(); // no item for a SUMMARY that is there
  fs::remove(summary);
  auto without = verify::verify_phase(*spec, {1, 0}, opt);
  CHECK(without.status == spec::VerificationStatus::gaps_found);
  REQUIRE(without.results.size() == count + 1);
  CHECK(without.results.back().id == "summary");
  CHECK_THAT(without.results.back().message, Catch::StartsWith("execution/phases/01-core/01-01-SUMMARY.md does not exist"));
  CHECK(verify::verify_final(*spec, opt).status == spec::VerificationStatus::gaps_found);
  // `harness-cli verify` does not ask.
  CHECK(verify::verify_phase(*spec, {1, 0}).status == spec::VerificationStatus::passed);
}

TEST_CASE("a report on a shallow clone's cut history is not written", "[verify][commits]") {
  Project p;
  auto spec = spec::load_spec(p.dir.path / "docs/specs/SPC-003-commits");
  REQUIRE(spec);
  verify::Report r;
  r.level = "final";
  verify::CheckResult cut;
  cut.id = "commits";
  cut.status = verify::CheckStatus::error;
  cut.history_cut = true;
  r.results.push_back(cut);
  r.status = spec::VerificationStatus::gaps_found;
  auto written = verify::write_report(*spec, std::nullopt, r, verify::KeepApproval::when_unchanged);
  REQUIRE(written);
  CHECK(written->file.empty());
  CHECK_FALSE(fs::exists(spec->layout.final_verification));
  r.results.front().history_cut = false; // the same report on a whole history is written
  written = verify::write_report(*spec, std::nullopt, r);
  REQUIRE(written);
  CHECK(fs::exists(written->file));
}

namespace {

/// How many git commands ran while `f` did, as git's own GIT_TRACE counts them.
template <class F> int git_commands_during(const fs::path& trace, F&& f) {
  fs::remove(trace);
  ::setenv("GIT_TRACE", trace.c_str(), 1);
  f();
  ::unsetenv("GIT_TRACE");
  const auto log = test::sh(trace.parent_path(), "cat '" + trace.string() + "'");
  int n = 0;
  for (std::size_t at = 0; (at = log.find("trace: built-in: git ", at)) != std::string::npos; ++at) ++n;
  return n;
}

} // namespace

TEST_CASE("a phase's and the final verification ask git about all their plans at once", "[verify][commits]") {
  // L1: asked plan by plan, each plan cost a `git log --grep` over the whole history and a `git
  // status`: `verify --final` of 1,000 plans took 23 s, and a run's final verification 4-7 s.
  test::set_git_identity();
  test::TempDir dir;
  constexpr int plans = 8;
  dir.write("docs/specs/SPC-004-many/SPEC.md", "# Many\n");
  for (int i = 1; i <= plans; ++i) {
    const std::string id = fmt::format("01-{:02}", i);
    dir.write(fmt::format("docs/specs/SPC-004-many/planning/plans/01-core/{}-PLAN.md", id),
              fmt::format("---\nplan_id: '{0}'\ndepends_on: []\nfiles_modified: ['out/{0}.txt']\nmust_pass:\n"
                          "  - {{id: written, type: file_exists, path: out/{0}.txt}}\n---\n# {0}\n\n### Task 1: write\n",
                          id));
  }
  test::sh(dir.path, "git init -q && git add -A && git commit -qm init");
  for (int i = 1; i <= plans; ++i) {
    const std::string id = fmt::format("01-{:02}", i);
    dir.write("out/" + id + ".txt", id + "\n");
    if (i == 3) continue; // 01-03's work is in the work tree only
    test::sh(dir.path, fmt::format("git add out/{0}.txt && git commit -qm 'feat({0}): write' -m 'Plan: {0}, Task: 1/1' "
                                   "-m 'Spec: SPC-004-many'",
                                   id));
  }
  auto spec = spec::load_spec(dir.path / "docs/specs/SPC-004-many");
  REQUIRE(spec);
  REQUIRE(spec->valid());
  const fs::path trace = dir.path / "git-trace.log";
  auto check = [&](const verify::Report& r) {
    int commits_checks = 0;
    for (const auto& c : r.results) {
      if (c.id != "commits") continue;
      ++commits_checks;
      if (c.plan == "01-03") {
        CHECK(c.status == verify::CheckStatus::failed);
        CHECK_THAT(c.message, Catch::StartsWith("out/01-03.txt is not committed"));
      } else {
        CHECK(c.status == verify::CheckStatus::passed);
        CHECK(c.message == "1 commit, 1 of 1 tasks covered");
      }
    }
    CHECK(commits_checks == plans);
  };

  // Two for every plan's commits and files, two for the report's work_hash: none per plan.
  constexpr int expected = 4;
  SECTION("harness-cli verify: the history is read once, not walked once per plan") {
    verify::Report phase, final;
    CHECK(git_commands_during(trace, [&] { phase = verify::verify_phase(*spec, {1, 0}); }) <= expected);
    CHECK(git_commands_during(trace, [&] { final = verify::verify_final(*spec); }) <= expected);
    check(phase);
    check(final);
  }
  SECTION("a run's trailer index: the paths its first read left out are asked once") {
    worker::TrailerIndex index(dir.path);
    index.refresh(); // as a run reads the history at its start: without paths
    verify::VerifyOptions opt;
    opt.trailers = &index;
    verify::Report final;
    CHECK(git_commands_during(trace, [&] { final = verify::verify_final(*spec, opt); }) <= expected);
    check(final);
  }
}
