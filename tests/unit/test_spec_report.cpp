// Diagnostic rendering, the validate text/JSON reports, and check field forms (durations, commands).
#include "harness/spec/diagnostic.hpp"
#include "harness/spec/plan_parser.hpp"
#include "harness/spec/report.hpp"
#include "harness/spec/spec.hpp"
#include "harness/util/text.hpp"
#include "spec_test_util.hpp"

#include <boost/json.hpp>
#include <catch2/catch.hpp>

using namespace harness::spec;

namespace {

Diagnostic make(int line, int col, std::string source) {
  Diagnostic d;
  d.file = "planning/plans/01-core/01-02-PLAN.md";
  d.line = line;
  d.col = col;
  d.severity = Severity::error;
  d.code = "H007";
  d.message = "depends_on names unknown plan '03-09'";
  d.source_line = std::move(source);
  return d;
}

/// One plan whose must_pass holds `checks` (YAML lines indented by two spaces).
std::optional<Plan> plan_with_checks(const std::string& checks, std::vector<Diagnostic>& out) {
  const std::string text = "---\nplan_id: '01-01'\ndepends_on: []\nfiles_modified: [a.txt]\nmust_pass:\n" + checks +
                           "---\n# 01-01: x\n";
  return parse_plan(text, "01-01-PLAN.md", PlanDialect::harness, out);
}

} // namespace

TEST_CASE("a diagnostic renders as path:line:col, severity[code], the source line and a caret under the column") {
  const auto text = render(make(3, 23, "depends_on: ['01-01', '03-09']"));
  CHECK(text == "planning/plans/01-core/01-02-PLAN.md:3:23: error[H007]: depends_on names unknown plan '03-09'\n"
                "  depends_on: ['01-01', '03-09']\n"
                "                        ^\n");
}

TEST_CASE("a diagnostic's one line has no source, and shows a spec's control characters printable") {
  auto d = make(3, 23, "depends_on: ['01-01', '03-09']");
  d.message = "unknown plan '\x1b]0;owned\x07'";
  CHECK(render_line(d) == "planning/plans/01-core/01-02-PLAN.md:3:23: error[H007]: " + harness::util::printable(d.message, true));
  CHECK(render_line(d).find('\x1b') == std::string::npos);
}

TEST_CASE("the caret keeps tabs so it lines up with tab-indented source") {
  const auto text = render(make(4, 3, "\t\tbad"));
  CHECK(text.ends_with("  \t\tbad\n  \t\t^\n"));
}

TEST_CASE("a whole-file diagnostic has no line, column, source or caret") {
  Diagnostic d = make(0, 0, "");
  d.severity = Severity::warning;
  d.code = "H023";
  d.message = "no plans directory yet";
  CHECK(render(d) == "planning/plans/01-core/01-02-PLAN.md: warning[H023]: no plans directory yet\n");
  // The one-line form a note or a planner's finding quotes: the same, without ":0" (review RR F6).
  CHECK(render_line(d) == "planning/plans/01-core/01-02-PLAN.md: warning[H023]: no plans directory yet");
  CHECK_FALSE(has_errors({d}));
  CHECK(has_errors({d, make(1, 1, "x")}));
}

TEST_CASE("validate's JSON names file, line, col, severity, code and message for every finding") {
  auto spec = load_spec(HARNESS_SOURCE_DIR "/tests/corpus/cycle-across-phases");
  REQUIRE(spec);
  const auto v = boost::json::parse(validation_json(*spec));
  const auto& o = v.as_object();
  CHECK(o.at("valid").as_bool() == false);
  CHECK(o.at("plans").to_number<int>() == 3);
  const auto& diags = o.at("diagnostics").as_array();
  REQUIRE(diags.size() == 2);
  bool cycle = false, later = false;
  for (const auto& dv : diags) {
    const auto& d = dv.as_object();
    for (const char* key : {"file", "line", "col", "severity", "code", "message"}) CHECK(d.contains(key));
    if (d.at("code") == "H009") {
      cycle = true;
      CHECK(d.at("file") == "planning/plans/02-api/02-01-PLAN.md");
      CHECK(d.at("line").to_number<int>() == 3);
      CHECK(d.at("col").to_number<int>() == 14);
      CHECK(d.at("severity") == "error");
      CHECK(d.at("message") == "dependency cycle: 01-02 -> 02-01 -> 01-02");
    }
    if (d.at("code") == "H015") later = d.at("severity") == "warning";
  }
  CHECK(cycle);
  CHECK(later);
}

TEST_CASE("validate's text report ends with a count of plans, phases, errors and warnings") {
  auto spec = load_spec(HARNESS_SOURCE_DIR "/tests/corpus/cycle-across-phases");
  REQUIRE(spec);
  const auto text = validation_text(*spec);
  CHECK(text.find("error[H009]") != std::string::npos);
  CHECK(text.ends_with("cycle-across-phases: 3 plans in 2 phases, 1 error, 1 warning\n"));
}

TEST_CASE("validate counts the phases the ROADMAP lists before any is planned, and says 1 phase, 1 plan") {
  harness::test::TempDir dir;
  dir.write("SPEC.md", "# x\n");
  dir.write("ROADMAP.md", "# Roadmap: x\n\n## Phase 1: Core\n**Goal**: core\n\n## Phase 2: More\n**Goal**: more\n");
  auto spec = load_spec(dir.path);
  REQUIRE(spec);
  CHECK(validation_text(*spec).ends_with(": 0 plans in 2 phases, 0 errors, 1 warning\n")); // H023: no plans directory
  dir.write("planning/plans/01-core/01-01-PLAN.md", "---\nplan_id: '01-01'\ndepends_on: []\nfiles_modified: [a.txt]\n---\n# a\n\n### Task 1: a\n");
  spec = load_spec(dir.path);
  REQUIRE(spec);
  CHECK(validation_text(*spec).ends_with(": 1 plan in 2 phases, 0 errors, 0 warnings\n"));
  auto three = load_spec(HARNESS_SOURCE_DIR "/tests/corpus/cycle-three");
  REQUIRE(three);
  CHECK(validation_text(*three).ends_with("cycle-three: 3 plans in 1 phase, 1 error, 0 warnings\n"));
}

TEST_CASE("timeouts accept seconds and the s, ms, m, h suffixes") {
  std::vector<Diagnostic> out;
  auto plan = plan_with_checks("  - {id: a, type: tests_pass, command: make, timeout: 45}\n"
                               "  - {id: b, type: tests_pass, command: make, timeout: 30s}\n"
                               "  - {id: c, type: tests_pass, command: make, timeout: 1500ms}\n"
                               "  - {id: d, type: tests_pass, command: make, timeout: 2m}\n"
                               "  - {id: e, type: tests_pass, command: make, timeout: 1h}\n"
                               "  - {id: f, type: tests_pass, command: make, timeout: 2.5}\n",
                               out);
  REQUIRE(plan);
  CHECK(out.empty());
  REQUIRE(plan->must_pass.size() == 6);
  CHECK(plan->must_pass[0].timeout_seconds == 45.0);
  CHECK(plan->must_pass[1].timeout_seconds == 30.0);
  CHECK(plan->must_pass[2].timeout_seconds == 1.5);
  CHECK(plan->must_pass[3].timeout_seconds == 120.0);
  CHECK(plan->must_pass[4].timeout_seconds == 3600.0);
  CHECK(plan->must_pass[5].timeout_seconds == 2.5);
}

TEST_CASE("a negative or unit-less-garbage timeout is H004 on its line") {
  for (const char* bad : {"-3", "3d", "soon"}) {
    std::vector<Diagnostic> out;
    plan_with_checks(std::string("  - id: a\n    type: tests_pass\n    command: make\n    timeout: ") + bad + "\n", out);
    INFO(bad);
    REQUIRE(out.size() == 1);
    CHECK(out[0].code == "H004");
    CHECK(out[0].line == 9);
  }
}

TEST_CASE("a command string is split like a shell, never run through one unless shell is true") {
  std::vector<Diagnostic> out;
  auto plan = plan_with_checks("  - id: split\n    type: command_output\n    command: \"grep -c 'two words' \\\"a b.txt\\\"\"\n"
                               "  - id: list\n    type: command_output\n    command: [echo, '$HOME', 'a;b']\n"
                               "  - id: sh\n    type: command_output\n    shell: true\n    command: \"echo $HOME | wc -c\"\n",
                               out);
  REQUIRE(plan);
  CHECK(out.empty());
  REQUIRE(plan->must_pass.size() == 3);
  CHECK(plan->must_pass[0].command.argv == std::vector<std::string>{"grep", "-c", "two words", "a b.txt"});
  CHECK(plan->must_pass[0].command.shell == false);
  CHECK(plan->must_pass[1].command.argv == std::vector<std::string>{"echo", "$HOME", "a;b"});
  CHECK(plan->must_pass[2].command.argv == std::vector<std::string>{"/bin/sh", "-c", "echo $HOME | wc -c"});
  CHECK(plan->must_pass[2].command.shell == true);
}
