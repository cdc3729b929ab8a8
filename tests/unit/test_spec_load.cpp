#include "harness/spec/plan_checkpoints.hpp"
#include "harness/spec/spec.hpp"
#include "spec_test_util.hpp"

#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <fstream>
#include <map>
#include <regex>
#include <sstream>

using namespace harness::spec;
namespace fs = std::filesystem;

namespace {

/// `dir` as a project root (it gets a .git) loaded as a spec; the test fails here if it cannot be.
Spec load_project(const harness::test::TempDir& dir) {
  fs::create_directory(dir.path / ".git");
  auto spec = load_spec(dir.path, "/");
  REQUIRE(spec);
  return std::move(*spec);
}

} // namespace

TEST_CASE("the example spec loads with 12 plans in 4 phases and no diagnostics") {
  auto spec = load_spec(HARNESS_SOURCE_DIR "/examples/specs/SPC-001-task-tracker");
  REQUIRE(spec);
  CHECK(spec->diagnostics.empty());
  CHECK(spec->plans.size() == 12);
  CHECK(spec->layout.kind == LayoutKind::spec_centric);
  CHECK(spec->layout.phases.size() == 4);
  CHECK(spec->layout.spec_name == "SPC-001-task-tracker");
  CHECK(spec->layout.project_root == fs::path(HARNESS_SOURCE_DIR));
  CHECK(spec->plans.front().id == "01-01");
  CHECK(spec->plans.back().id == "04-02");
  REQUIRE(spec->roadmap);
  const auto* p = spec->find_plan("02-02");
  REQUIRE(p);
  CHECK(p->phase_slug == "02-core-commands");
  CHECK(p->tasks.size() == 1);
}

TEST_CASE("GSD's legacy layout is read with SUMMARY files beside the PLAN and decimal phases") {
  harness::test::TempDir dir;
  const std::string plan = "---\nphase: 02.1-hotfix\nplan: 01\ndepends_on: []\nfiles_modified: [a.txt]\n---\n# x\n\n"
                           "<tasks>\n<task type=\"auto\">\n  <name>fix it</name>\n</task>\n</tasks>\n";
  dir.write(".planning/ROADMAP.md", "# Roadmap\n\n## Phase 1: Base\n\n### Phase 02.1: Hotfix\n");
  dir.write(".planning/phases/01-base/01-01-PLAN.md", "---\ndepends_on: []\nfiles_modified: [b.txt]\n---\n# y\n\n### Task 1: do\n");
  dir.write(".planning/phases/01-base/01-01-SUMMARY.md", "---\nstatus: complete\n---\n");
  dir.write(".planning/phases/02.1-hotfix/02.1-01-PLAN.md", plan);
  fs::create_directory(dir.path / ".git");
  auto spec = load_spec(dir.path, "/");
  REQUIRE(spec);
  std::string said;
  for (const auto& d : spec->diagnostics) said += d.code + " " + d.file + " " + d.message + "\n";
  INFO(said);
  CHECK(spec->diagnostics.empty());
  CHECK(spec->layout.kind == LayoutKind::legacy_gsd);
  CHECK(spec->layout.project_root == fs::canonical(dir.path));
  REQUIRE(spec->plans.size() == 2);
  CHECK(spec->plans[1].id == "02.1-01");
  CHECK(spec->plans[1].phase == PhaseNumber{2, 1});
  CHECK(spec->summaries.count("01-01") == 1);
  REQUIRE(spec->roadmap);
  CHECK(spec->roadmap->phases.size() == 2);
}

TEST_CASE("In a GSD project a dependency on a plan of the same phase by its number alone is that plan; STATE.md stays GSD's") {
  harness::test::TempDir dir;
  auto plan = [](const std::string& deps) {
    return "---\nphase: 02-tags\ndepends_on: " + deps + "\nfiles_modified: [a.txt]\n---\n# x\n\n"
           "<tasks>\n<task type=\"auto\">\n  <name>do it</name>\n</task>\n</tasks>\n";
  };
  dir.write(".planning/ROADMAP.md", "# Roadmap\n\n## Phase 2: Tags\n");
  dir.write(".planning/phases/02-tags/02-01-PLAN.md", plan("[]"));
  dir.write(".planning/phases/02-tags/02-02-PLAN.md", plan("[\"01\"]")); // GSD's template: plan 01 of this phase
  const auto loaded = load_project(dir);
  const auto* spec = &loaded;
  CHECK_FALSE(has_errors(spec->diagnostics));
  REQUIRE(spec->plans.size() == 2);
  CHECK(spec->plans[1].depends_on == std::vector<std::string>{"02-01"});
  CHECK(spec->layout.status_md == fs::canonical(dir.path) / ".planning/STATUS.md");
}

TEST_CASE("A GSD checkpoint task asks a person as checkpoints: would") {
  harness::test::TempDir dir;
  dir.write(".planning/phases/01-base/01-01-PLAN.md",
            "---\nphase: 01-base\nplan: 01\ndepends_on: []\nfiles_modified: [a.txt]\nautonomous: true\n---\n\n<tasks>\n"
            "<task type=\"auto\">\n  <name>build</name>\n</task>\n<task type=\"checkpoint:human-verify\" gate=\"blocking\">\n"
            "  <what-built>the page</what-built>\n  <how-to-verify>\n    1. Run: npm run dev\n    2. Visit\thttp://localhost:3000\n"
            "  </how-to-verify>\n  <resume-signal>Type approved</resume-signal>\n</task>\n"
            "<task type=\"checkpoint:decision\">\n  <name>pick</name>\n  <how-to-verify>not a verification</how-to-verify>\n</task>\n"
            "</tasks>\n");
  const auto loaded = load_project(dir);
  const auto* spec = &loaded;
  REQUIRE(spec->plans.size() == 1);
  const auto& plan = spec->plans[0];
  CHECK(plan.checkpoints == std::vector<std::string>{"checkpoint:human-verify", "checkpoint:decision"});
  CHECK(checkpoint_kinds(plan) == std::vector<CheckpointKind>{CheckpointKind::verification, CheckpointKind::decision});
  CHECK(needs_approval(plan, ExecutorAsked::yes));
  // What the person approving the verification is told to look at, as one line.
  CHECK(plan.human_check == "built: the page; to check: 1. Run: npm run dev 2. Visit http://localhost:3000");
}

TEST_CASE("A GSD objective with a blank line in it still names the plan") {
  harness::test::TempDir dir;
  dir.write(".planning/phases/01-base/01-01-PLAN.md",
            "---\nphase: 01-base\nplan: 01\ndepends_on: []\nfiles_modified: [a.txt]\n---\n\n<objective>\nCreate the note "
            "store. Then more.\n\nPurpose: notes survive a restart.\n</objective>\n\n<tasks>\n<task type=\"auto\">\n"
            "  <name>do it</name>\n</task>\n</tasks>\n");
  const auto loaded = load_project(dir);
  const auto* spec = &loaded;
  REQUIRE(spec->plans.size() == 1);
  CHECK(spec->plans[0].title == "Create the note store");
  CHECK(spec->plans[0].objective.starts_with("Create the note store."));
}

TEST_CASE("A GSD project that also has planning/plans/ is read as harness's layout, and says so") {
  harness::test::TempDir dir;
  dir.write(".planning/phases/01-base/01-01-PLAN.md", "---\ndepends_on: []\nfiles_modified: [a.txt]\n---\n# x\n\n### Task 1: do\n");
  dir.write("planning/plans/03-polish/03-01-PLAN.md", "---\ndepends_on: []\nfiles_modified: [b.txt]\n---\n# y\n\n### Task 1: do\n");
  const auto loaded = load_project(dir);
  const auto* spec = &loaded;
  CHECK(spec->layout.kind == LayoutKind::spec_centric);
  const auto h041 = std::ranges::find(spec->diagnostics, std::string("H041"), &Diagnostic::code);
  REQUIRE(h041 != spec->diagnostics.end());
  CHECK(h041->severity == Severity::warning);
  CHECK(h041->message.starts_with("both GSD's .planning/ and planning/plans are here"));
}

TEST_CASE("A harness plan naming a dependency by its number alone is told the full id") {
  harness::test::TempDir dir;
  dir.write("planning/plans/02-tags/02-01-PLAN.md", "---\ndepends_on: []\nfiles_modified: [a.txt]\n---\n# x\n\n### Task 1: do\n");
  dir.write("planning/plans/02-tags/02-02-PLAN.md", "---\ndepends_on: ['01']\nfiles_modified: [b.txt]\n---\n# y\n\n### Task 1: do\n");
  const auto loaded = load_project(dir);
  const auto* spec = &loaded;
  const auto h007 = std::ranges::find(spec->diagnostics, std::string("H007"), &Diagnostic::code);
  REQUIRE(h007 != spec->diagnostics.end());
  CHECK(h007->message == "depends_on names unknown plan '01' (a plan is named by its full id: '02-01'?)");
}

TEST_CASE("a GSD plan's heading that repeats its id gives the title without it, plan_id or not") {
  harness::test::TempDir dir;
  auto plan = [](const std::string& id_line, const std::string& heading) {
    return "---\nphase: 01-core\n" + id_line + "depends_on: []\nfiles_modified: [a.txt]\n---\n# " + heading +
           "\n\n<tasks>\n<task type=\"auto\">\n  <name>do it</name>\n</task>\n</tasks>\n";
  };
  dir.write(".planning/ROADMAP.md", "# Roadmap\n\n## Phase 1: Core\n\n### Phase 01.1: Fix\n");
  dir.write(".planning/phases/01-core/01-01-PLAN.md", plan("plan: 01\n", "01-01: Add parser"));
  dir.write(".planning/phases/01-core/01-02-PLAN.md", plan("plan_id: '01-02'\n", "01-02: Add lexer"));
  dir.write(".planning/phases/01-core/01-03-PLAN.md", plan("", "01-03 \u2014 Add printer"));
  dir.write(".planning/phases/01.1-fix/01.1-01-PLAN.md", plan("", "01.1-01 Fix the parser"));
  fs::create_directory(dir.path / ".git");
  auto spec = load_spec(dir.path, "/");
  REQUIRE(spec);
  REQUIRE(spec->plans.size() == 4);
  CHECK(spec->plans[0].title == "Add parser");
  CHECK(spec->plans[1].title == "Add lexer");
  CHECK(spec->plans[2].title == "Add printer");
  CHECK(spec->plans[3].title == "Fix the parser");
}

TEST_CASE("a plan without a heading is named by its title key or its objective's first sentence") {
  harness::test::TempDir dir;
  auto plan = [](const std::string& key, const std::string& body) {
    return "---\nphase: 01-core\ndepends_on: []\nfiles_modified: [a.txt]\n" + key + "---\n" + body +
           "\n<tasks>\n<task type=\"auto\">\n  <name>do it</name>\n</task>\n</tasks>\n";
  };
  dir.write(".planning/ROADMAP.md", "# Roadmap\n\n## Phase 1: Core\n");
  dir.write(".planning/phases/01-core/01-01-PLAN.md",
            plan("", "<objective>\nAdd the parser. It reads tokens.\nMore text.\n</objective>\n"));
  dir.write(".planning/phases/01-core/01-02-PLAN.md", plan("title: Lexer first\n", "# Heading\n\n<objective>x</objective>\n"));
  dir.write(".planning/phases/01-core/01-03-PLAN.md", plan("", "<objective>\n" + std::string(100, 'y') + "\n</objective>\n"));
  dir.write(".planning/phases/01-core/01-04-PLAN.md", plan("", ""));
  fs::create_directory(dir.path / ".git");
  auto spec = load_spec(dir.path, "/");
  REQUIRE(spec);
  REQUIRE(spec->plans.size() == 4);
  CHECK(spec->plans[0].title == "Add the parser");
  CHECK(spec->plans[1].title == "Lexer first"); // the author's key wins over the heading
  CHECK(spec->plans[2].title == std::string(80, 'y') + "\u2026");
  CHECK(spec->plans[3].title.empty()); // nothing to name it by: status shows the id alone
}

TEST_CASE("a missing spec directory is an error, not a diagnostic") {
  auto spec = load_spec("/nonexistent/spec/dir");
  REQUIRE_FALSE(spec);
  CHECK(spec.error().find("no such directory") != std::string::npos);
}

// Every case under tests/corpus/ is a spec directory with an expect.txt listing
// "CODE FILE:LINE" lines; each listed diagnostic must be reported exactly there.
TEST_CASE("every malformed spec of the corpus reports the exact code, file and line") {
  int cases = 0;
  std::vector<fs::path> dirs;
  for (const auto& e : fs::directory_iterator(HARNESS_SOURCE_DIR "/tests/corpus"))
    if (e.is_directory()) dirs.push_back(e.path());
  std::sort(dirs.begin(), dirs.end());
  for (const auto& dir : dirs) {
    ++cases;
    auto spec = load_spec(dir);
    REQUIRE(spec);
    std::ifstream in(dir / "expect.txt");
    std::string line;
    bool expects_error = false;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      std::smatch m;
      // "CODE FILE:LINE" optionally followed by a substring the message must contain.
      REQUIRE(std::regex_match(line, m, std::regex(R"((H\d+) (\S+):(\d+)(?: (.+))?)")));
      const std::string code = m[1], file = m[2], needle = m[4];
      const int at = std::stoi(m[3]);
      bool found = false;
      for (const auto& d : spec->diagnostics)
        if (d.code == code && d.file == file && d.line == at && d.message.find(needle) != std::string::npos) {
          found = true;
          expects_error |= d.severity == Severity::error;
        }
      INFO(dir.filename().string() << ": expected " << line);
      std::ostringstream got;
      for (const auto& d : spec->diagnostics) got << render(d);
      INFO("got:\n" << got.str());
      CHECK(found);
    }
    INFO(dir.filename().string());
    CHECK(spec->valid() == !expects_error);
  }
  CHECK(cases >= 30);
}

TEST_CASE("a directory that holds specs instead of being one names them") {
  harness::test::TempDir dir;
  dir.write("docs/specs/SPC-001-a/SPEC.md", "# a\n");
  dir.write("docs/specs/SPC-002-b/planning/plans/01-core/.keep", "");
  dir.write("shared/ROADMAP.md", "# not a spec\n");
  fs::create_directory(dir.path / ".git");
  auto specs = load_spec(dir.path / "docs/specs", dir.path);
  REQUIRE_FALSE(specs);
  CHECK(specs.error().find("is not a spec directory; it holds the specs") != std::string::npos);
  CHECK(specs.error().find("docs/specs/SPC-001-a, ") != std::string::npos);
  CHECK(specs.error().find("docs/specs/SPC-002-b: give one of them") != std::string::npos);
  auto root = load_spec(dir.path, dir.path); // the project root: its docs/specs/ are looked at too
  REQUIRE_FALSE(root);
  CHECK(root.error().find("shared") == std::string::npos);
  CHECK(root.error().find("docs/specs/SPC-001-a") != std::string::npos);
  CHECK(load_spec(dir.path / "docs/specs/SPC-001-a", dir.path)); // a spec itself loads as ever
}

TEST_CASE("a plan that declares writes in .git or .orchestration gets a warning on the entry's line") {
  harness::test::TempDir dir;
  dir.write("SPEC.md", "# x\n");
  dir.write("planning/plans/01-core/01-01-PLAN.md", R"(---
plan_id: '01-01'
depends_on: []
files_modified:
  - '.git/hooks/pre-commit'
  - './.orchestration/config.yaml'
  - .git
  - 'src/../.git/**'
  - '**'
  - 'src/.git/x'
  - '.gitignore'
  - '.github/workflows/ci.yml'
  - '.orchestration-notes.md'
files_read: ['.git/HEAD', '.orchestration/harness.db']
---
# 01-01

### Task 1: x
)");
  auto spec = load_spec(dir.path);
  REQUIRE(spec);
  CHECK(spec->valid()); // warnings only
  std::vector<std::string> got;
  for (const auto& d : spec->diagnostics) {
    CHECK(d.code == "H029");
    CHECK(d.severity == Severity::warning);
    got.push_back(std::to_string(d.line) + ":" + std::to_string(d.col) + " " + d.message);
  }
  CHECK(got == std::vector<std::string>{
                   "5:5 files_modified entry '.git/hooks/pre-commit' is in .git/, git's own data, which no plan may "
                   "write: remove the entry",
                   "6:5 files_modified entry './.orchestration/config.yaml' is in .orchestration/, harness's own "
                   "state, which no plan may write: remove the entry",
                   "7:5 files_modified entry '.git' is in .git/, git's own data, which no plan may write: remove the entry",
                   "8:5 files_modified entry 'src/../.git/**' is in .git/, git's own data, which no plan may write: "
                   "remove the entry"});
}

TEST_CASE("paths are shown relative to the spec directory, also when it was named through a symlink") {
  harness::test::TempDir d;
  harness::test::sh(d.path, "git init -q");
  d.write("docs/specs/SPC-001-a/SPEC.md", "# a\n");
  fs::create_directory_symlink(d.path / "docs", d.path / "link");
  for (const fs::path& given : {d.path / "docs/specs/SPC-001-a", d.path / "link/specs/SPC-001-a"}) {
    auto l = discover_layout(given, d.path);
    REQUIRE(l);
    CHECK(l->relative(l->spec_dir / "planning/plans/01-x/01-01-PLAN.md") == "planning/plans/01-x/01-01-PLAN.md");
    CHECK(l->relative(l->spec_dir) == ".");
    CHECK(l->relative(l->project_root / "src/main.c") == "../../../src/main.c");
    CHECK(l->spec_dir_in_project() == "docs/specs/SPC-001-a/");
  }
}

namespace {

/// A spec at docs/specs/SPC-001-x whose phase 1 plans (01-01, 01-02) are in planning/plans/`slug`.
fs::path renamed_phase_spec(const harness::test::TempDir& dir, const std::string& slug) {
  const std::string s = "docs/specs/SPC-001-x/";
  dir.write(s + "SPEC.md", "# x\n");
  for (const std::string id : {"01-01", "01-02"})
    dir.write(s + "planning/plans/" + slug + "/" + id + "-PLAN.md",
              "---\nplan_id: '" + id + "'\ndepends_on: []\nfiles_modified: [" + id + ".txt]\n---\n# " + id + "\n\n### Task 1: x\n");
  return dir.path / s;
}

void write_results(const harness::test::TempDir& dir, const std::string& slug) {
  const std::string r = "docs/specs/SPC-001-x/execution/phases/" + slug + "/";
  for (const std::string id : {"01-01", "01-02"})
    dir.write(r + id + "-SUMMARY.md", "---\nplan_id: '" + id + "'\nstatus: complete\nverification: passed\n---\n# s\n");
  dir.write(r + "VERIFICATION.md", "---\nstatus: passed\nlevel: 'phase 01'\nplans: ['01-01', '01-02']\n---\n# v\n");
}

std::string said(const Spec& spec) {
  std::string out;
  for (const auto& d : spec.diagnostics) out += render(d);
  return out;
}

} // namespace

TEST_CASE("a phase directory renamed after it ran keeps its SUMMARYs and VERIFICATION, with one warning to move them") {
  harness::test::TempDir dir;
  const auto spec_dir = renamed_phase_spec(dir, "01-foundation");
  write_results(dir, "01-core"); // written while the phase directory was 01-core
  auto spec = load_spec(spec_dir, dir.path);
  REQUIRE(spec);
  INFO(said(*spec));
  CHECK(spec->summaries.size() == 2);
  CHECK(spec->verifications.count(PhaseNumber{1}) == 1);
  REQUIRE(spec->layout.phases.size() == 1);
  const auto& phase = spec->layout.phases.front();
  CHECK(phase.results_renamed());
  // What runs from now on (a redo, a verification) writes where the rest is.
  CHECK(spec->layout.relative(spec->layout.summary_file(phase, "01-02")) == "execution/phases/01-core/01-02-SUMMARY.md");
  CHECK(spec->layout.relative(spec->layout.verification_file(phase)) == "execution/phases/01-core/VERIFICATION.md");
  REQUIRE(spec->diagnostics.size() == 1);
  const auto& d = spec->diagnostics.front();
  CHECK(d.code == "H035");
  CHECK(d.severity == Severity::warning);
  CHECK(d.file == "execution/phases/01-core");
  CHECK(d.message == "phase 01's results are read from execution/phases/01-core/, under the phase directory's old name "
                     "(its plans are in planning/plans/01-foundation/): move them with `git mv "
                     "docs/specs/SPC-001-x/execution/phases/01-core docs/specs/SPC-001-x/execution/phases/01-foundation`");
}

TEST_CASE("results under the phase directory's own name are read there, and an old name's SUMMARY says where it belongs") {
  harness::test::TempDir dir;
  const auto spec_dir = renamed_phase_spec(dir, "01-foundation");
  write_results(dir, "01-core");
  dir.write("docs/specs/SPC-001-x/execution/phases/01-foundation/VERIFICATION.md", "---\nstatus: gaps_found\n---\n# v\n");
  auto spec = load_spec(spec_dir, dir.path);
  REQUIRE(spec);
  INFO(said(*spec));
  CHECK_FALSE(spec->layout.phases.front().results_renamed());
  CHECK(spec->summaries.empty());
  REQUIRE(spec->verifications.count(PhaseNumber{1}) == 1);
  CHECK(spec->verifications.at(PhaseNumber{1}).status == VerificationStatus::gaps_found);
  std::vector<std::string> got;
  for (const auto& d : spec->diagnostics) got.push_back(d.code + " " + d.file + ": " + d.message);
  CHECK(got == std::vector<std::string>{
                   "H031 execution/phases/01-core/01-01-SUMMARY.md: '01-01-SUMMARY.md' is not read: plan 01-01 is in "
                   "planning/plans/01-foundation/ now, and its SUMMARY belongs in execution/phases/01-foundation/01-01-SUMMARY.md",
                   "H031 execution/phases/01-core/01-02-SUMMARY.md: '01-02-SUMMARY.md' is not read: plan 01-02 is in "
                   "planning/plans/01-foundation/ now, and its SUMMARY belongs in execution/phases/01-foundation/01-02-SUMMARY.md"});
}

TEST_CASE("two old results directories of a renamed phase are neither taken: which one holds its work is not known") {
  harness::test::TempDir dir;
  const auto spec_dir = renamed_phase_spec(dir, "01-foundation");
  write_results(dir, "01-core");
  write_results(dir, "01-base");
  auto spec = load_spec(spec_dir, dir.path);
  REQUIRE(spec);
  INFO(said(*spec));
  CHECK_FALSE(spec->layout.phases.front().results_renamed());
  CHECK(spec->summaries.empty());
  CHECK(std::ranges::count_if(spec->diagnostics, [](const Diagnostic& d) { return d.code == "H031"; }) == 4);
  CHECK(std::ranges::none_of(spec->diagnostics, [](const Diagnostic& d) { return d.code == "H035"; }));
}

namespace {

/// A spec at docs/specs/SPC-001-r with `roadmap` as its ROADMAP.md and one plan per (id, depends_on).
fs::path roadmap_spec(const harness::test::TempDir& dir, const std::string& roadmap,
                      const std::vector<std::pair<std::string, std::string>>& plans) {
  const std::string s = "docs/specs/SPC-001-r/";
  dir.write(s + "SPEC.md", "# r\n");
  dir.write(s + "ROADMAP.md", "# Roadmap\n\n" + roadmap);
  for (const auto& [id, deps] : plans)
    dir.write(s + "planning/plans/" + id.substr(0, 2) + "-p/" + id + "-PLAN.md",
              "---\nplan_id: '" + id + "'\ndepends_on: " + deps + "\nfiles_modified: [" + id + ".txt]\n---\n# " + id +
                  "\n\n### Task 1: x\n");
  return dir.path / s;
}

std::vector<Diagnostic> with_code(const Spec& spec, std::string_view code) {
  std::vector<Diagnostic> out;
  for (const auto& d : spec.diagnostics)
    if (d.code == code) out.push_back(d);
  return out;
}

} // namespace

TEST_CASE("a depends_on a later phase's plan whose phase waits for the plan's own phase through the ROADMAP is an error") {
  harness::test::TempDir dir;
  // 02-01 depends on 04-01 (H015); phase 04 waits for phase 03. Once phase 03 waits for phase 02,
  // 04-01 waits (through 03-01) for 02-01, which waits for it: neither can ever execute.
  const auto spec_dir = roadmap_spec(dir,
                                     "## Phase 2: B\n**Depends on**: nothing\n\n## Phase 3: C\n**Depends on**: nothing\n\n"
                                     "## Phase 4: D\n**Depends on**: Phase 3\n",
                                     {{"02-01", "['04-01']"}, {"02-02", "[]"}, {"03-01", "['02-02']"}, {"04-01", "[]"}});
  auto spec = load_spec(spec_dir, dir.path);
  REQUIRE(spec);
  INFO(said(*spec));
  // Without the ROADMAP entry of phase 4, nothing closes a cycle: a warning for the later phase only.
  CHECK(with_code(*spec, "H036").empty());
  CHECK(spec->valid());

  dir.write("docs/specs/SPC-001-r/ROADMAP.md", "# Roadmap\n\n## Phase 2: B\n**Depends on**: nothing\n\n"
                                                "## Phase 3: C\n**Depends on**: Phase 2\n\n## Phase 4: D\n**Depends on**: Phase 3\n");
  spec = load_spec(spec_dir, dir.path);
  REQUIRE(spec);
  INFO(said(*spec));
  const auto found = with_code(*spec, "H036");
  REQUIRE(found.size() == 1);
  CHECK_FALSE(spec->valid());
  CHECK(found[0].severity == Severity::error);
  CHECK(found[0].file == "planning/plans/02-p/02-01-PLAN.md");
  CHECK(found[0].line == 3);
  CHECK(found[0].col == 14); // the caret under '04-01'
  CHECK(found[0].message == "dependency cycle through the ROADMAP: 02-01 -> 04-01 -> phase 03's plans -> 03-01 -> phase 02's plans "
                            "-> 02-01 (ROADMAP: phase 04 depends on phase 03, phase 03 depends on phase 02); none of these plans "
                            "can ever execute");
}

TEST_CASE("a ROADMAP cycle is reported once, and a cycle of plans alone stays H009's") {
  harness::test::TempDir dir;
  // 01-01 -> 02-01 and 01-02 -> 02-01 close two cycles with phase 02's ROADMAP entry; 01-03 <->
  // 01-04 is a plain one.
  const auto spec_dir = roadmap_spec(dir, "## Phase 1: A\n\n## Phase 2: B\n**Depends on**: Phase 1\n",
                                     {{"01-01", "['02-01']"}, {"01-02", "['02-01']"}, {"01-03", "['01-04']"},
                                      {"01-04", "['01-03']"}, {"02-01", "[]"}});
  auto spec = load_spec(spec_dir, dir.path);
  REQUIRE(spec);
  INFO(said(*spec));
  const auto found = with_code(*spec, "H036");
  REQUIRE(found.size() == 2);
  CHECK(found[0].message.starts_with("dependency cycle through the ROADMAP: 01-01 -> 02-01 -> phase 01's plans -> 01-01 ("));
  CHECK(found[1].message.starts_with("dependency cycle through the ROADMAP: 01-02 -> 02-01 -> phase 01's plans -> 01-02 ("));
  CHECK(with_code(*spec, "H009").size() == 1);
}

TEST_CASE("two phases whose ROADMAP entries name each other are a warning, not an error: the later one waits, as written") {
  harness::test::TempDir dir;
  const auto spec_dir = roadmap_spec(dir, "## Phase 2: B\n**Depends on**: Phase 3\n\n## Phase 3: C\n**Depends on**: Phase 2\n",
                                     {{"02-01", "[]"}, {"03-01", "[]"}});
  auto spec = load_spec(spec_dir, dir.path);
  REQUIRE(spec);
  INFO(said(*spec));
  CHECK(spec->valid());
  const auto found = with_code(*spec, "H034");
  REQUIRE(found.size() == 1);
  CHECK(found[0].message == "phase 02 depends on a later phase 03: ignored, a phase can only wait for an earlier one");
  CHECK(with_code(*spec, "H036").empty());
}

TEST_CASE("a symbolic link in the spec directory that leads outside the project is an error, one inside it is not") {
  harness::test::TempDir outside; // a directory beside the project: its .git is no matter here
  harness::test::TempDir dir;
  const auto spec_dir = renamed_phase_spec(dir, "01-core");
  dir.write("shared/ROADMAP.md", "# Roadmap\n\n## Phase 1: Core\n");
  fs::create_symlink("../../../shared/ROADMAP.md", spec_dir / "ROADMAP.md"); // inside: fine
  // A dangling relative link: STATUS.md does not exist yet, harness would create it out there.
  fs::create_symlink(fs::relative(outside.path, spec_dir) / "profile", spec_dir / "STATUS.md");
  fs::create_directory_symlink(outside.path, spec_dir / "execution"); // absolute, to a directory
  fs::create_symlink("../STATUS.md", spec_dir / "planning/chain.md");   // through another link
  auto spec = load_spec(spec_dir, dir.path);
  REQUIRE(spec);
  INFO(said(*spec));
  CHECK_FALSE(spec->valid());
  const auto found = with_code(*spec, "H038");
  REQUIRE(found.size() == 3);
  const fs::path real = fs::canonical(outside.path);
  CHECK(render(found[0]) == "STATUS.md: error[H038]: a symbolic link to " + (real / "profile").string() +
                               ", outside the project: harness reads and writes the spec's files where they lead, so it "
                               "would write there; replace the link with the file or directory itself\n");
  CHECK(found[1].file == "execution");
  CHECK(found[1].message.starts_with("a symbolic link to " + real.string() + ", outside the project"));
  CHECK(found[2].file == "planning/chain.md");
  fs::remove(spec_dir / "STATUS.md");
  fs::remove(spec_dir / "execution");
  fs::remove(spec_dir / "planning/chain.md");
  auto clean = load_spec(spec_dir, dir.path);
  REQUIRE(clean);
  INFO(said(*clean));
  CHECK(with_code(*clean, "H038").empty());
}

TEST_CASE("a spec or phase directory whose name holds a newline is an error: the name goes into commit messages") {
  harness::test::TempDir dir;
  const std::string name = "SPC-001-x\nRedo: 01-01"; // would add a Redo: trailer to every commit
  const auto plain = renamed_phase_spec(dir, "01-co\tre");
  const fs::path spec_dir = plain.parent_path().parent_path() / name; // renamed_phase_spec's path ends in '/'
  fs::rename(plain.parent_path(), spec_dir);
  auto spec = load_spec(spec_dir, dir.path);
  REQUIRE(spec);
  INFO(said(*spec));
  CHECK_FALSE(spec->valid());
  const auto found = with_code(*spec, "H039");
  REQUIRE(found.size() == 2);
  CHECK(render(found[0]) == ".: error[H039]: the spec directory's name 'SPC-001-x\\nRedo: 01-01' holds a control character "
                            "(a newline, a tab...): harness writes the name into every commit message, where it would add "
                            "lines; rename the directory\n");
  CHECK(render(found[1]) == "planning/plans/01-co\\tre: error[H039]: the phase directory's name '01-co\\tre' holds a control "
                            "character (a newline, a tab...): harness writes it into STATUS.md and its messages; rename the "
                            "directory\n");
  fs::rename(spec_dir, plain.parent_path());
  fs::rename(plain / "planning/plans/01-co\tre", plain / "planning/plans/01-core");
  auto clean = load_spec(plain, dir.path);
  REQUIRE(clean);
  INFO(said(*clean));
  CHECK(with_code(*clean, "H039").empty());
}

TEST_CASE("In a GSD project a phase inserted after phase N comes before phase N+1") {
  // Review U, finding 4: /gsd:insert-phase leaves phase 2's `Depends on: Phase 1`, and GSD runs
  // phases in numeric order; harness's gate let 01.1 run beside phase 2.
  harness::test::TempDir dir;
  dir.write(".planning/ROADMAP.md", "# Roadmap\n\n### Phase 1: Base\n**Depends on**: Nothing\n\n"
                                    "### Phase 1.1: Hotfix (INSERTED)\n**Depends on**: Phase 1\n\n"
                                    "### Phase 2: Next\n**Depends on**: Phase 1\n\n### Phase 3: Last\n**Depends on**: Phase 2\n");
  for (const char* p : {"01-base/01-01", "01.1-hotfix/01.1-01", "01.2-more/01.2-01", "02-next/02-01", "03-last/03-01"})
    dir.write(fmt::format(".planning/phases/{}-PLAN.md", p), "---\ndepends_on: []\nfiles_modified: [a]\n---\n# x\n\n### Task 1: t\n");
  const auto spec = load_project(dir);
  REQUIRE(spec.roadmap);
  std::map<std::string, std::vector<std::string>> deps;
  for (const auto& p : spec.roadmap->phases)
    for (const auto& d : p.depends_on) deps[to_string(p.number)].push_back(to_string(d));
  CHECK(deps["02"] == std::vector<std::string>{"01", "01.1", "01.2"}); // 01.2: a directory the ROADMAP does not list yet
  CHECK(deps["03"] == std::vector<std::string>{"02"});
  CHECK(deps["01.1"] == std::vector<std::string>{"01"});
  // Which of those orders no `Depends on` line gives: said so in status, graph and H036.
  std::map<std::string, std::vector<std::string>> inserted;
  for (const auto& p : spec.roadmap->phases)
    for (const auto& d : p.inserted_before) inserted[to_string(p.number)].push_back(to_string(d));
  CHECK(inserted["02"] == std::vector<std::string>{"01.1", "01.2"});
  CHECK(inserted["01.1"].empty()); // its own `Depends on` names phase 1
  // GSD's "(INSERTED)" says how the phase came, and is not shown as part of its name.
  CHECK(spec.roadmap->phases.at(1).name == "Hotfix");
}

TEST_CASE("In a GSD project inserted phases run in their numeric order: 01, 01.1, 01.2, then 02") {
  // Review V, finding 3: 01.1 and 01.2 ran side by side, and an inserted phase whose `Depends on`
  // named nothing ran beside phase 1.
  harness::test::TempDir dir;
  dir.write(".planning/ROADMAP.md", "# Roadmap\n\n### Phase 1: Base\n**Depends on**: Nothing\n\n"
                                    "### Phase 1.1: Hotfix (INSERTED)\n**Depends on**: Nothing\n\n"
                                    "### Phase 1.2: More (INSERTED)\n**Depends on**: Nothing\n\n"
                                    "### Phase 2: Next\n**Depends on**: Phase 1\n");
  for (const char* p : {"01-base/01-01", "01.1-hotfix/01.1-01", "01.2-more/01.2-01", "02-next/02-01"})
    dir.write(fmt::format(".planning/phases/{}-PLAN.md", p), "---\ndepends_on: []\nfiles_modified: [a]\n---\n# x\n\n### Task 1: t\n");
  const auto spec = load_project(dir);
  REQUIRE(spec.roadmap);
  std::map<std::string, std::vector<std::string>> deps, inserted;
  for (const auto& p : spec.roadmap->phases) {
    for (const auto& d : p.depends_on) deps[to_string(p.number)].push_back(to_string(d));
    for (const auto& d : p.inserted_before) inserted[to_string(p.number)].push_back(to_string(d));
  }
  CHECK(deps["01.1"] == std::vector<std::string>{"01"});
  CHECK(deps["01.2"] == std::vector<std::string>{"01.1"});
  CHECK(deps["02"] == std::vector<std::string>{"01", "01.1", "01.2"});
  CHECK(inserted["01.1"] == std::vector<std::string>{"01"});
  CHECK(inserted["01.2"] == std::vector<std::string>{"01.1"});
}

TEST_CASE("a cycle through the order of an inserted phase says so, not that the ROADMAP has a line it does not have") {
  harness::test::TempDir dir;
  dir.write(".planning/ROADMAP.md", "# Roadmap\n\n### Phase 1: Base\n**Depends on**: Nothing\n\n"
                                    "### Phase 1.1: Hotfix (INSERTED)\n**Depends on**: Phase 1\n\n"
                                    "### Phase 2: Next\n**Depends on**: Phase 1\n");
  dir.write(".planning/phases/01-base/01-01-PLAN.md", "---\ndepends_on: []\nfiles_modified: [a]\n---\n# x\n\n### Task 1: t\n");
  dir.write(".planning/phases/01.1-hotfix/01.1-01-PLAN.md",
            "---\ndepends_on: ['02-01']\nfiles_modified: [b]\n---\n# x\n\n### Task 1: t\n");
  dir.write(".planning/phases/02-next/02-01-PLAN.md", "---\ndepends_on: []\nfiles_modified: [c]\n---\n# x\n\n### Task 1: t\n");
  const auto spec = load_project(dir);
  const auto found = with_code(spec, "H036");
  REQUIRE(found.size() == 1);
  CHECK(found[0].message == "dependency cycle through the ROADMAP: 01.1-01 -> 02-01 -> phase 01.1's plans -> 01.1-01 (ROADMAP: "
                            "phase 02 comes after phase 01.1, inserted before it); none of these plans can ever execute");
}

TEST_CASE("an entry named like a PLAN that is no readable file is an error, not a plan that vanishes") {
  harness::test::TempDir dir;
  const auto spec_dir = renamed_phase_spec(dir, "01-x");
  const fs::path plans = spec_dir / "planning/plans/01-x";
  fs::create_symlink("nowhere-PLAN.md", plans / "01-03-PLAN.md");
  fs::create_directory(plans / "01-04-PLAN.md");
  fs::create_directory(plans / "notes"); // any other directory is none of the spec's business
  auto spec = load_spec(spec_dir, dir.path);
  REQUIRE(spec);
  CHECK_FALSE(spec->valid());
  CHECK(spec->plans.size() == 2);
  const auto text = said(*spec);
  CHECK(text.find("planning/plans/01-x/01-03-PLAN.md: error[H002]: '01-03-PLAN.md' cannot be read: it is a symbolic "
                  "link to nowhere-PLAN.md, which does not exist") != std::string::npos);
  CHECK(text.find("planning/plans/01-x/01-04-PLAN.md: error[H002]: '01-04-PLAN.md' cannot be read: it is a directory, "
                  "not a file") != std::string::npos);
  CHECK(text.find("notes") == std::string::npos);
}

TEST_CASE("a spec or phase directory whose name holds shell syntax is an error: the name reaches worker commands") {
  harness::test::TempDir dir;
  const auto plain = renamed_phase_spec(dir, "01-core$(touch x)");
  auto spec = load_spec(plain, dir.path);
  REQUIRE(spec);
  CHECK_FALSE(spec->valid());
  const auto found = with_code(*spec, "H042");
  REQUIRE(found.size() == 1);
  CHECK(render(found[0]) == "planning/plans/01-core$(touch x): error[H042]: the phase directory's name '01-core$(touch x)' "
                            "holds `$`, which a shell reads as syntax: the name goes into worker commands (its plans' "
                            "paths), where a shell could run what follows it; rename the directory\n");
  fs::rename(plain / "planning/plans/01-core$(touch x)", plain / "planning/plans/01-core (v2) [draft] ~x");
  const fs::path quoted = plain.parent_path().parent_path() / "SPC-001-it's";
  fs::rename(plain.parent_path(), quoted);
  auto named = load_spec(quoted, dir.path);
  REQUIRE(named);
  const auto again = with_code(*named, "H042");
  REQUIRE(again.size() == 1); // the spec's quote; blanks, brackets and ~ are left to the quoting
  CHECK(render(again[0]).starts_with(".: error[H042]: the spec directory's name 'SPC-001-it's' holds `'`"));
}

TEST_CASE("A GSD project's own directory name is not judged for shell syntax: it is the user's, not the spec's") {
  harness::test::TempDir dir;
  const fs::path project = dir.path / "bob's app";
  fs::create_directories(project / ".git");
  std::ofstream(fs::path(project / "README.md")) << "x\n";
  fs::create_directories(project / ".planning/phases/01-base");
  std::ofstream(project / ".planning/ROADMAP.md") << "# Roadmap\n\n### Phase 1: Base\n";
  std::ofstream(project / ".planning/phases/01-base/01-01-PLAN.md")
      << "---\ndepends_on: []\nfiles_modified: [a]\n---\n# x\n\n### Task 1: t\n";
  auto spec = load_spec(project, "/");
  REQUIRE(spec);
  CHECK(spec->layout.spec_name == "bob's app");
  CHECK(with_code(*spec, "H042").empty());
}

TEST_CASE("a plan: key holding the plan's whole id names the plan (no H037); another plan's number warns") {
  harness::test::TempDir dir;
  const auto plan = [](const char* key) {
    return fmt::format("---\nplan_id: '01-02'\nphase: 01-core\nplan: {}\ndepends_on: []\nfiles_modified: ['a.txt']\n---\n"
                       "# 01-02\n\n### Task 1: a\n\nwrite a.txt\n",
                       key);
  };
  dir.write("docs/specs/SPC-001-p/SPEC.md", "# P\n");
  dir.write("docs/specs/SPC-001-p/planning/plans/01-core/01-02-PLAN.md", plan("'01-02'"));
  auto spec = load_spec(dir.path / "docs/specs/SPC-001-p", dir.path);
  REQUIRE(spec);
  INFO(said(*spec));
  CHECK(with_code(*spec, "H037").empty()); // the template's `plan:` filled with the id (review NN F5)
  dir.write("docs/specs/SPC-001-p/planning/plans/01-core/01-02-PLAN.md", plan("'01-03'"));
  spec = load_spec(dir.path / "docs/specs/SPC-001-p", dir.path);
  REQUIRE(spec);
  const auto found = with_code(*spec, "H037");
  REQUIRE(found.size() == 1);
  CHECK(found[0].message.find("plan: '01-03' names plan 01-03, but the file is 01-02-PLAN.md") != std::string::npos);
  dir.write("docs/specs/SPC-001-p/planning/plans/01-core/01-02-PLAN.md", plan("'03-02'")); // another phase's
  spec = load_spec(dir.path / "docs/specs/SPC-001-p", dir.path);
  REQUIRE(spec);
  REQUIRE(with_code(*spec, "H037").size() == 1);
  CHECK(with_code(*spec, "H037")[0].message.find("plan: '03-02' names plan 03-02, but the file is 01-02-PLAN.md") !=
        std::string::npos);
}
