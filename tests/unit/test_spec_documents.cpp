#include "harness/spec/document_parsers.hpp"
#include "harness/spec/frontmatter.hpp"
#include "harness/spec/frontmatter_writer.hpp"
#include "harness/util/atomic_file.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

using namespace harness::spec;

TEST_CASE("the example roadmap gives frontmatter, phases, goals, dependencies and criteria") {
  auto text = harness::util::read_file(HARNESS_SOURCE_DIR "/examples/specs/SPC-001-task-tracker/ROADMAP.md");
  REQUIRE(text);
  std::vector<Diagnostic> diags;
  auto rm = parse_roadmap(*text, "ROADMAP.md", diags);
  CHECK(diags.empty());
  CHECK(rm.has_frontmatter);
  CHECK(rm.frontmatter.project == "task-tracker");
  CHECK(rm.frontmatter.total_plans == 12);
  CHECK(rm.frontmatter.status == "planning");
  REQUIRE(rm.phases.size() == 4);
  CHECK(rm.phases[1].name == "Core commands");
  CHECK(rm.phases[1].goal.starts_with("Every CLI command"));
  CHECK(rm.phases[1].depends_on == std::vector<PhaseNumber>{{1, 0}});
  CHECK(rm.phases[3].depends_on == std::vector<PhaseNumber>{{2, 0}, {3, 0}});
  CHECK(rm.phases[0].success_criteria.size() == 2);
  CHECK(rm.phases[0].checklist.size() == 4);
}

TEST_CASE("a phase repeated in ROADMAP.md is one error per repeat, naming the first heading") {
  // Review FF F3b: one error per pair of copies (1,000 copies: 500,500 errors and 23 s).
  std::string text = "# Roadmap\n\n## Phase 1: A\n\n";
  for (int i = 0; i < 200; ++i) text += "## Phase 4: D\n\n";
  std::vector<Diagnostic> diags;
  (void)parse_roadmap(text, "ROADMAP.md", diags);
  REQUIRE(diags.size() == 199);
  CHECK(diags.front().code == "H005");
  CHECK(diags.front().line == 7);
  CHECK(diags.front().message == "phase 04 is listed again in the roadmap (first at line 5)");
  CHECK(diags.back().message == "phase 04 is listed again in the roadmap (first at line 5)");
}

TEST_CASE("the GSD template's '**Success Criteria** (what must be TRUE):' heads the criteria below it") {
  std::vector<Diagnostic> diags;
  auto rm = parse_roadmap("## Phase 1: Foundation\n"
                          "**Goal**: A task model\n"
                          "**Depends on**: Nothing (first phase)\n"
                          "**Requirements**: [REQ-01, REQ-02]\n"
                          "**Success Criteria** (what must be TRUE):\n"
                          "  1. A task round-trips unchanged\n"
                          "  2. A crash never leaves a half-written file\n"
                          "**Plans**: 2 plans\n\n"
                          "Plans:\n- [ ] 01-01: Model\n- [ ] 01-02: Storage\n\n"
                          "## Phase 2: API\n"
                          "**SUCCESS CRITERIA** (observable):\n"
                          "- The API answers\n\n"
                          "## Phase 3: Docs\n"
                          "**Success criteria**:\n"
                          "1. The README explains it\n",
                          "ROADMAP.md", diags);
  CHECK(diags.empty());
  REQUIRE(rm.phases.size() == 3);
  CHECK(rm.phases[0].goal == "A task model");
  CHECK(rm.phases[0].success_criteria ==
        std::vector<std::string>{"A task round-trips unchanged", "A crash never leaves a half-written file"});
  CHECK(rm.phases[0].checklist.size() == 2);
  CHECK(rm.phases[1].success_criteria == std::vector<std::string>{"The API answers"});
  CHECK(rm.phases[2].success_criteria == std::vector<std::string>{"The README explains it"});
}

TEST_CASE("a phase heading inside a code fence is not a phase; decimal phases and overview checkboxes are read") {
  std::vector<Diagnostic> diags;
  auto rm = parse_roadmap("# Roadmap\n\n- [x] Phase 1: A\n- [ ] Phase 2: B\n\n## Phase 1: A\nGoal: a\n\n"
                          "```md\n## Phase 9: Fake\n```\n\n### Phase 02.1: Hotfix\nDepends on: Phase 1\n\n## Phase 2: B\n",
                          "ROADMAP.md", diags);
  REQUIRE(rm.phases.size() == 3);
  CHECK(rm.phases[0].complete);
  CHECK(rm.phases[1].number == PhaseNumber{2, 1});
  CHECK(rm.phases[1].depends_on == std::vector<PhaseNumber>{{1, 0}});
  CHECK_FALSE(rm.phases[2].complete);
}

TEST_CASE("a roadmap phase depending on itself, a later phase or one the roadmap does not list is a warning at its line") {
  std::vector<Diagnostic> diags;
  auto rm = parse_roadmap("---\nstatus: planning\n---\n# Roadmap\n\n"
                          "## Phase 1: A\n**Goal**: a\n**Depends on**: Phase 2\n\n"   // line 8
                          "## Phase 2: B\n**Depends on**: Phase 1, Phase 2\n\n"        // line 11
                          "## Phase 3: C\n**Goal**: c\n**Depends on**: Phase 2.1\n\n"   // line 15
                          "## Phase 4: D\n**Depends on**: Phase 1, Phase 3\n",
                          "ROADMAP.md", diags);
  REQUIRE(rm.phases.size() == 4);
  REQUIRE(diags.size() == 3);
  for (const auto& d : diags) {
    CHECK(d.code == "H034");
    CHECK(d.severity == Severity::warning);
    CHECK(d.source_line.starts_with("**Depends on**"));
  }
  CHECK(diags[0].line == 8);
  CHECK(diags[0].message == "phase 01 depends on a later phase 02: ignored, a phase can only wait for an earlier one");
  CHECK(diags[1].line == 11);
  CHECK(diags[1].message == "phase 02 depends on itself: ignored, a phase can only wait for an earlier one");
  CHECK(diags[2].line == 15);
  CHECK(diags[2].message == "phase 03 depends on phase 02.1, which the roadmap does not list");
}

TEST_CASE("a roadmap Depends on that names no phase, or a range, is a warning at its line; a number in its prose is not a phase") {
  std::vector<Diagnostic> diags;
  auto rm = parse_roadmap("# Roadmap\n\n"
                          "## Phase 1: A\n**Depends on**: nothing\n\n"
                          "## Phase 2: B\n**Depends on**: Phase 1 (the 2 endpoints)\n\n"
                          "## Phase 3: C\n**Depends on**: the API phase\n\n"  // line 10
                          "## Phase 4: D\n**Depends on**: Phases 1-3\n",      // line 13
                          "ROADMAP.md", diags);
  REQUIRE(rm.phases.size() == 4);
  CHECK(rm.phases[1].depends_on == std::vector<PhaseNumber>{{1, 0}});
  CHECK(rm.phases[1].depends_on_text == "Phase 1 (the 2 endpoints)");
  CHECK(rm.phases[2].depends_on.empty());
  CHECK(rm.phases[3].depends_on.empty());
  REQUIRE(diags.size() == 2);
  CHECK(diags[0].code == "H034");
  CHECK(diags[0].severity == Severity::warning);
  CHECK(diags[0].line == 10);
  CHECK(diags[0].message == "phase 03's Depends on 'the API phase' names no phase number: the scheduler orders nothing by it "
                            "(write 'Phase N', 'Phases N, M and K' or 'nothing')");
  CHECK(diags[1].line == 13);
  CHECK(diags[1].message == "phase 04's Depends on 'Phases 1-3' gives a range, which is not read: the scheduler waits for none of "
                            "its phases (write 'Phase N', 'Phases N, M and K' or 'nothing')");
}

TEST_CASE("SUMMARY deviations come from the frontmatter or a Deviations section") {
  std::vector<Diagnostic> diags;
  auto a = parse_summary("---\nplan_id: '01-01'\nstatus: complete\ncommits: [abc]\ndeviations: []\n---\n## Deviations\nNone.\n", "s.md", diags);
  CHECK_FALSE(a.has_deviations);
  CHECK(a.commits == std::vector<std::string>{"abc"});
  auto b = parse_summary("---\nplan_id: '01-02'\n---\n# S\n## Deviations\n- Used argparse instead of click\n", "s.md", diags);
  CHECK(b.has_deviations);
  auto c = parse_summary("---\nplan_id: '01-03'\ndeviations: ['renamed x']\nverification: passed\n---\n", "s.md", diags);
  CHECK(c.has_deviations);
  CHECK(c.verification == VerificationStatus::passed);
  CHECK(diags.empty());
}

TEST_CASE("A Deviations section or value that says 'none' in other words is no deviation") {
  std::vector<Diagnostic> diags;
  auto section = [&](const std::string& text) {
    return parse_summary("---\nplan_id: '01-01'\n---\n## Deviations\n" + text + "\n", "s.md", diags).has_deviations;
  };
  CHECK_FALSE(section("None. (Otherwise: what differs from the plan, why.)")); // the template's text kept
  CHECK_FALSE(section("None - all files within files_modified"));
  CHECK_FALSE(section("N/A"));
  CHECK_FALSE(section("none"));
  CHECK_FALSE(section("No deviations."));
  CHECK(section("None of the tests could run: the database was down"));
  CHECK(section("Nonexistent config key renamed"));
  CHECK(section("- Used argparse instead of click"));
  // skills/templates/summary.md's section, its instructions in a comment.
  CHECK_FALSE(section("None.\n\n<!-- Replace \"None.\" with what differs from the plan.\nKeep \"None.\" when nothing differs. -->"));
  CHECK_FALSE(parse_summary("---\nplan_id: '01-01'\ndeviations: 'None.'\n---\n", "s.md", diags).has_deviations);
  CHECK(parse_summary("---\nplan_id: '01-01'\ndeviations: 'none of it as planned'\n---\n", "s.md", diags).has_deviations);
  CHECK(diags.empty());
}

TEST_CASE("SUMMARY status and verification outside their sets are errors at the value") {
  std::vector<Diagnostic> diags;
  for (const char* ok : {"status: complete\nverification: gaps_found", "status: partial\nverification: human_needed",
                         "status: failed", "verification:"})
    parse_summary(fmt::format("---\nplan_id: '01-01'\n{}\n---\n", ok), "s.md", diags, "01-01");
  CHECK(diags.empty());
  for (const char* bad : {"Passed", "yes", "gaps-found"}) {
    diags.clear();
    auto s = parse_summary(fmt::format("---\nplan_id: '01-01'\nverification: {}\n---\n", bad), "s.md", diags, "01-01");
    CHECK_FALSE(s.verification);
    REQUIRE(diags.size() == 1);
    CHECK(diags[0].code == "H017");
    CHECK(diags[0].severity == Severity::error);
    CHECK(diags[0].line == 3);
    CHECK(diags[0].col == 15);
    CHECK(diags[0].message == fmt::format("verification '{}' is not one of passed, gaps_found, human_needed", bad));
  }
  diags.clear();
  parse_summary("---\nstatus: banana\n---\n", "s.md", diags, "01-01");
  REQUIRE(diags.size() == 1);
  CHECK(diags[0].code == "H017");
  CHECK(diags[0].col == 9);
  CHECK(diags[0].message == "status 'banana' is not one of complete, partial, failed");
}

TEST_CASE("a SUMMARY whose plan_id names another plan than its file is an error; without the file's id it is not checked") {
  std::vector<Diagnostic> diags;
  parse_summary("---\nplan_id: '02-02'\n---\n", "01-01-SUMMARY.md", diags, "01-01");
  REQUIRE(diags.size() == 1);
  CHECK(diags[0].code == "H006");
  CHECK(diags[0].line == 2);
  CHECK(diags[0].col == 10);
  CHECK(diags[0].message.starts_with("plan_id '02-02' does not match the file name (expected '01-01')"));
  diags.clear();
  parse_summary("---\nplan_id: '02-02'\n---\n", "s.md", diags);
  CHECK(diags.empty());
}

TEST_CASE("VERIFICATION status must be passed, gaps_found or human_needed") {
  std::vector<Diagnostic> diags;
  auto v = parse_verification("---\nstatus: gaps_found\nscore: 3/5\n---\n", "V.md", diags);
  CHECK(v.status == VerificationStatus::gaps_found);
  CHECK(v.score_passed == 3);
  CHECK(v.score_total == 5);
  CHECK(diags.empty());
  parse_verification("---\nstatus: fine\n---\n", "V.md", diags);
  REQUIRE(diags.size() == 1);
  CHECK(diags[0].code == "H022");
  CHECK(diags[0].line == 2);
}

TEST_CASE("frontmatter splitting keeps line numbers and tolerates a BOM and CRLF fences") {
  auto s = split_frontmatter("\xEF\xBB\xBF---\r\na: 1\r\n---\r\nbody\n");
  CHECK(s.present);
  CHECK(s.terminated);
  CHECK(s.yaml == "a: 1\r\n");
  CHECK(s.body == "body\n");
  CHECK(s.body_first_line == 4);
  CHECK_FALSE(split_frontmatter("no fence\n").present);
  CHECK_FALSE(split_frontmatter("---\na: 1\n").terminated);
  // YAML's document end is no fence: what follows it stays in the frontmatter (load_yaml refuses it).
  const auto dots = split_frontmatter("---\na: 1\n...\nb: 2\n---\nbody\n");
  CHECK(dots.terminated);
  CHECK(dots.yaml == "a: 1\n...\nb: 2\n");
  // Closed by '...' alone (Pandoc's form): the message says why it does not count.
  CHECK(missing_fence_message(split_frontmatter("---\na: 1\n...\n# body\n")) ==
        "the frontmatter's closing '---' line is missing (line 3 is '...', which does not close it here: write '---')");
  CHECK(missing_fence_message(split_frontmatter("---\na: 1\n")) == "the frontmatter's closing '---' line is missing");
}

TEST_CASE("update_frontmatter changes only the given values, byte for byte, on the real roadmap") {
  auto text = harness::util::read_file(HARNESS_SOURCE_DIR "/examples/specs/SPC-001-task-tracker/ROADMAP.md");
  REQUIRE(text);
  auto out = update_frontmatter(*text, {{"status", "executing"},
                                        {"completed_plans", "3"},
                                        {"velocity.total_plans_completed", "3"},
                                        {"velocity.average_minutes_per_plan", "4.5"}});
  REQUIRE(out);
  std::string expected = *text;
  auto replace = [&](const std::string& from, const std::string& to) {
    auto pos = expected.find(from);
    REQUIRE(pos != std::string::npos);
    expected.replace(pos, from.size(), to);
  };
  replace("status: planning", "status: executing");
  replace("completed_plans: 0", "completed_plans: 3");
  replace("  total_plans_completed: 0", "  total_plans_completed: 3");
  replace("  average_minutes_per_plan: 0", "  average_minutes_per_plan: 4.5");
  CHECK(*out == expected);
}

TEST_CASE("update_frontmatter keeps comments, appends missing keys and creates missing parents") {
  const std::string text = "---\n# keep me\nstatus: planning   # the state\nname: 'x'\n---\nbody: stays\n";
  auto out = update_frontmatter(text, {{"status", "complete"}, {"current_plan", "2"}, {"velocity.total", "1"}});
  REQUIRE(out);
  CHECK(*out == "---\n# keep me\nstatus: complete   # the state\nname: 'x'\ncurrent_plan: 2\nvelocity:\n  total: 1\n---\nbody: stays\n");
  CHECK_FALSE(update_frontmatter("no frontmatter", {{"a", "1"}}));
  CHECK_FALSE(update_frontmatter("---\nv: {a: 1}\n---\n", {{"v.a", "2"}}));
}

TEST_CASE("update_frontmatter adds lines with the file's own line ending: a CRLF file stays CRLF") {
  const std::string text = "---\r\nstatus: planning\r\nvelocity:\r\n  total: 0\r\n\r\n  avg: 0\r\n---\r\nbody\r\n";
  auto out = update_frontmatter(text, {{"status", "complete"}, {"velocity.total", "2"}, {"velocity.minutes", "1.5"},
                                       {"current_plan", "3"}, {"timing.started", "x"}});
  REQUIRE(out);
  CHECK(*out == "---\r\nstatus: complete\r\nvelocity:\r\n  total: 2\r\n\r\n  avg: 0\r\n  minutes: 1.5\r\n"
                "current_plan: 3\r\ntiming:\r\n  started: x\r\n---\r\nbody\r\n");
  // Every line ends in CRLF: none was added with LF alone.
  for (size_t nl = out->find('\n'); nl != std::string::npos; nl = out->find('\n', nl + 1)) CHECK(out->at(nl - 1) == '\r');
}

#include "../../libharness/src/spec/text_match.hpp"

TEST_CASE("the hand-written matchers accept the documented heading shapes") {
  using namespace harness::spec::detail;
  CHECK(task_heading_name("Task 2: Login route") == "Login route");
  CHECK(task_heading_name("task 3 - tests") == "tests");
  CHECK(task_heading_name("Task 4") == "Task 4");
  CHECK_FALSE(task_heading_name("Tasks overview"));
  CHECK_FALSE(task_heading_name("Task two: x"));
  auto ph = phase_heading("Phase 02.1: Hotfix");
  REQUIRE(ph);
  CHECK(ph->first == PhaseNumber{2, 1});
  CHECK(ph->second == "Hotfix");
  CHECK(phase_heading("Phase 3 - API")->second == "API");
  CHECK_FALSE(phase_heading("Phases to come"));
  CHECK(element_text("<task><name> A b </name></task>", "name") == "A b");
}

TEST_CASE("a Depends on value names the phases after 'Phase' and the list that continues them, not other numbers") {
  using harness::spec::detail::phase_list;
  using V = std::vector<PhaseNumber>;
  CHECK(phase_list("Phase 1").numbers == V{{1, 0}});
  CHECK(phase_list("Phase 1, Phase 02.1 and 3").numbers == V{{1, 0}, {2, 1}, {3, 0}});
  CHECK(phase_list("Phases 1, 2, and 4").numbers == V{{1, 0}, {2, 0}, {4, 0}});
  CHECK(phase_list("phase 2 & 3").numbers == V{{2, 0}, {3, 0}});
  CHECK(phase_list("1, 2").numbers == V{{1, 0}, {2, 0}});
  CHECK(phase_list("2.1.").numbers == V{{2, 1}});
  // Parentheses and prose name nothing.
  CHECK(phase_list("Phase 1 (the 2 endpoints)").numbers == V{{1, 0}});
  CHECK(phase_list("Phase 1 for its 3 tables, and Phase 2 for the API").numbers == V{{1, 0}, {2, 0}});
  CHECK(phase_list("2 endpoints of Phase 1").numbers == V{{1, 0}});
  CHECK(phase_list("Phase 1: Foundation, v2 schema").numbers == V{{1, 0}});
  CHECK(phase_list("[Phase 3](#phase-3-api)").numbers == V{{3, 0}});
  CHECK(phase_list("multiphase 3").numbers.empty());
  for (const auto* fine : {"Phase 1 (the 2 endpoints)", "1, 2", "nothing", "Nothing (first phase)", "None", "-", ""})
    CHECK(phase_list(fine).unread.empty());
  // What names no phase, or a range, is unread (H034), and a range gives none of its phases.
  for (const auto* prose : {"the API phase", "Phase one", "the 2 endpoints"}) {
    CHECK(phase_list(prose).numbers.empty());
    CHECK(phase_list(prose).unread.starts_with("names no phase number"));
  }
  for (const auto* range : {"Phases 1-3", "1\u20133", "Phase 1 to Phase 3", "Phases 2 through 4"}) {
    CHECK(phase_list(range).numbers.empty());
    CHECK(phase_list(range).unread.starts_with("gives a range"));
  }
  CHECK(phase_list("Phase 1, Phases 3-4").numbers == V{{1, 0}});
}

TEST_CASE("STATUS.md frontmatter gives the blocked tasks; a hand-written STATUS.md gives none") {
  std::vector<Diagnostic> diags;
  auto d = parse_status_document("---\nrun: blocked\nblocked:\n  - task: \"execute:01-02\"\n    reason: \"a \\\"quoted\\\"\\nreason\"\n"
                                 "  - task: verify-phase:01\n---\n# Status\n",
                                 "STATUS.md", diags);
  CHECK(diags.empty());
  REQUIRE(d.blocked.size() == 2);
  CHECK(d.blocked[0].task == "execute:01-02");
  CHECK(d.blocked[0].reason == "a \"quoted\"\nreason");
  CHECK(d.blocked[1].reason.empty());
  CHECK(parse_status_document("# Status\n\nAll good.\n", "STATUS.md", diags).blocked.empty());
  CHECK(parse_status_document("---\nupdated: today\n---\n", "STATE.md", diags).blocked.empty());
  CHECK(diags.empty());
  parse_status_document("---\nblocked: execute:01-01\n---\n", "STATUS.md", diags);
  REQUIRE(diags.size() == 1);
  CHECK(diags[0].code == "H004");
  CHECK(diags[0].line == 2);
}

TEST_CASE("a diagnostic shows the spec's text without its escape sequences, the caret still in its column") {
  // Review FF F8: a depends_on of '\x1b]0;pwned\x07\x1b[2J01-01' set the terminal's title and
  // cleared the screen when validate printed it.
  Diagnostic d;
  d.file = "p\x1b[31m.md";
  d.line = 3;
  d.col = 8;
  d.severity = Severity::error;
  d.code = "H007";
  d.message = "depends_on names unknown plan '\x1b]0;pwned\x07\x1b[2J01-01'";
  d.source_line = "x: ['\x1b[2J', y]";
  CHECK(render(d) == "p[31m.md:3:8: error[H007]: depends_on names unknown plan ']0;pwned[2J01-01'\n"
                     "  x: ['?[2J', y]\n"
                     "         ^\n");
}
