#include "harness/spec/plan_parser.hpp"
#include "harness/spec/spec.hpp"
#include "spec_test_util.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <algorithm>

using namespace harness::spec;

namespace {

const char* k_plan = R"(---
plan_id: '03-02'
phase: 3
plan: 2
type: execute
wave: 2
depends_on: ['03-01', '02-03']
files_modified:
  - 'src/auth/login.ts'
  - 'src/auth/**'
files_read: [src/utils/crypto.ts]
checkpoints: ['verification']
autonomous: false
estimate: 25
requirements: [AUTH-01]
gap_closure: true
automation:
  type: mechanical
  scope: bounded
  ralph: allowed
  ecc: optional
must_haves:
  truths: ['A user can log in']
  artifacts:
    - path: src/auth/login.ts
      provides: login endpoint
      min_lines: 30
      exports: [login]
  key_links:
    - from: src/app.ts
      to: src/auth/login.ts
      via: import
      pattern: "import .*login"
must_pass:
  - id: login
    type: api_response
    endpoint: POST /api/auth/login
    url: http://127.0.0.1:3000
    body: {user: a, password: b}
    headers: {Content-Type: application/json}
    expects:
      status: 200
      body: {ok: true}
  - id: tests
    type: tests_pass
    command: npm test -- --grep "auth flow"
    timeout: 5m
  - id: argv
    type: command_output
    command: ['node', '-e', 'console.log(1)']
    expects: {exit_code: 0, stdout: '^1$'}
  - id: shelled
    type: build_succeeds
    command: make build && make check
    shell: true
  - id: nav
    type: ui_navigation
    url: http://127.0.0.1:3000
    steps:
      - {goto: /login}
      - {fill: {selector: '#user', value: a}}
      - 'click #submit'
      - {expect_url: /home}
  - id: looks
    type: visual_quality
    description: The login page matches the mockup
---
# 03-02: Login endpoint

<objective>
Users log in with a password.
</objective>

### Task 1: Route

```bash
echo route
```

```text
### Task 9: not a task (inside a fence)
```

### Task 2: Tests

```sh
echo tests
```
)";

} // namespace

TEST_CASE("a full PLAN parses into typed fields") {
  std::vector<Diagnostic> diags;
  auto p = parse_plan(k_plan, "p.md", PlanDialect::harness, diags);
  REQUIRE(p);
  CHECK(diags.empty());
  CHECK(p->id == "03-02");
  CHECK(p->depends_on == std::vector<std::string>{"03-01", "02-03"});
  CHECK(p->files_modified.size() == 2);
  CHECK(p->files_read == std::vector<std::string>{"src/utils/crypto.ts"});
  CHECK(p->checkpoints == std::vector<std::string>{"verification"});
  CHECK_FALSE(p->autonomous);
  CHECK(p->estimate_minutes == 25.0);
  CHECK(p->wave == 2);
  CHECK(p->type == "execute");
  CHECK(p->gap_closure);
  CHECK(p->requirements == std::vector<std::string>{"AUTH-01"});
  REQUIRE(p->automation);
  CHECK(p->automation->ralph == "allowed");
  CHECK(p->must_haves.truths.size() == 1);
  REQUIRE(p->must_haves.artifacts.size() == 1);
  CHECK(p->must_haves.artifacts[0].min_lines == 30);
  CHECK(p->must_haves.artifacts[0].exports == std::vector<std::string>{"login"});
  REQUIRE(p->must_haves.key_links.size() == 1);
  CHECK(p->must_haves.key_links[0].pattern == "import .*login");
  CHECK(p->key_lines.at("depends_on") == 7);
}

TEST_CASE("must_pass checks keep their type's fields") {
  std::vector<Diagnostic> diags;
  auto p = parse_plan(k_plan, "p.md", PlanDialect::harness, diags);
  REQUIRE(p);
  REQUIRE(p->must_pass.size() == 6);
  const auto& api = p->must_pass[0];
  CHECK(api.type == CheckType::api_response);
  CHECK(api.method == "POST");
  CHECK(api.endpoint == "/api/auth/login");
  CHECK(api.body == R"({"user":"a","password":"b"})");
  CHECK(api.headers.at("Content-Type") == "application/json");
  CHECK(api.expects.status == 200);
  CHECK(api.expects.body_json == R"({"ok":true})");
  CHECK(api.line == 35);
  const auto& tests = p->must_pass[1];
  CHECK(tests.command.argv == std::vector<std::string>{"npm", "test", "--", "--grep", "auth flow"});
  CHECK(tests.timeout_seconds == 300.0);
  CHECK(p->must_pass[2].command.argv == std::vector<std::string>{"node", "-e", "console.log(1)"});
  CHECK(p->must_pass[2].expects.stdout_re == "^1$");
  CHECK(p->must_pass[3].command.argv == std::vector<std::string>{"/bin/sh", "-c", "make build && make check"});
  const auto& nav = p->must_pass[4];
  REQUIRE(nav.steps.size() == 4);
  CHECK(nav.steps[0].action == "goto");
  CHECK(nav.steps[0].value == "/login");
  CHECK(nav.steps[1].selector == "#user");
  CHECK(nav.steps[1].value == "a");
  CHECK(nav.steps[2].action == "click");
  CHECK(nav.steps[2].selector == "#submit");
  CHECK(nav.steps[3].action == "expect_url");
  CHECK(nav.steps[3].value == "/home");
  CHECK(is_human(p->must_pass[5].type));
}

TEST_CASE("the body's tasks and code blocks are found structurally, not inside fences") {
  std::vector<Diagnostic> diags;
  auto p = parse_plan(k_plan, "p.md", PlanDialect::harness, diags);
  REQUIRE(p);
  CHECK(p->title == "Login endpoint");
  CHECK(p->objective == "Users log in with a password.");
  REQUIRE(p->tasks.size() == 2);
  CHECK(p->tasks[0].name == "Route");
  CHECK(p->tasks[1].name == "Tests");
  REQUIRE(p->code_blocks.size() == 3);
  CHECK(p->code_blocks[0].info == "bash");
  CHECK(p->code_blocks[0].code == "echo route\n");
  CHECK(p->code_blocks[1].info == "text");
  CHECK(p->code_blocks[2].info == "sh");
  CHECK(p->code_blocks[0].line == p->tasks[0].line + 2);
}

TEST_CASE("GSD task elements are counted with their names") {
  std::vector<Diagnostic> diags;
  const char* gsd = R"(---
phase: 02-core
plan: 01
type: execute
wave: 1
depends_on: []
files_modified: [a.ts]
autonomous: true
---
<tasks>

<task type="auto">
  <name>Task 1: Create model</name>
  <action>do it</action>
</task>

<task type="checkpoint:human-verify">
  <name>Task 2: Check it</name>
</task>

</tasks>
)";
  auto p = parse_plan(gsd, "02-01-PLAN.md", PlanDialect::gsd, diags);
  REQUIRE(p);
  CHECK(diags.empty());
  REQUIRE(p->tasks.size() == 2);
  CHECK(p->tasks[0].name == "Task 1: Create model");
  CHECK(p->tasks[1].name == "Task 2: Check it");
}

TEST_CASE("plan file names give phase and number, decimal phases included") {
  auto a = parse_plan_file_name("02.1-03-PLAN.md");
  REQUIRE(a);
  CHECK(a->first == PhaseNumber{2, 1});
  CHECK(a->second == 3);
  CHECK(plan_id_of(a->first, a->second) == "02.1-03");
  CHECK(parse_plan_file_name("3-1-PLAN.md"));
  CHECK_FALSE(parse_plan_file_name("03-x-PLAN.md"));
  CHECK_FALSE(parse_plan_file_name("03-01-SUMMARY.md"));
}

TEST_CASE("a malformed frontmatter reports yaml-cpp's position as file line and column") {
  std::vector<Diagnostic> diags;
  auto p = parse_plan("---\nplan_id: '01-01'\ndepends_on: [a, b\nfiles_modified: []\n---\n", "x.md", PlanDialect::harness, diags);
  CHECK_FALSE(p);
  REQUIRE(diags.size() == 1);
  CHECK(diags[0].code == "H001");
  CHECK(diags[0].line >= 3);
  CHECK(render(diags[0]).starts_with("x.md:"));
}

TEST_CASE("a required key without a value is the missing-field error, on the key") {
  for (const char* key : {"plan_id", "depends_on", "files_modified"}) {
    std::vector<Diagnostic> diags;
    std::string text = "---\nplan_id: '01-01'\ndepends_on: []\nfiles_modified: [a.txt]\n---\n### Task 1: a\n";
    const auto at = text.find(std::string(key) + ":");
    text.replace(at, text.find('\n', at) - at, std::string(key) + ":");
    parse_plan(text, "x.md", PlanDialect::harness, diags);
    INFO(key);
    REQUIRE(diags.size() == 1);
    CHECK(diags[0].code == "H003");
    CHECK(diags[0].severity == Severity::error);
    CHECK(diags[0].line == 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(at), '\n')));
    CHECK(diags[0].col == 1);
    CHECK(diags[0].message == fmt::format("required field '{}' has no value (write [] for none)", key));
  }
}

TEST_CASE("an empty files_modified in a plan with tasks is a warning that says nothing it writes is committed") {
  std::vector<Diagnostic> diags;
  parse_plan("---\nplan_id: '01-01'\ndepends_on: []\nfiles_modified: []\n---\n### Task 1: a\n### Task 2: b\n", "x.md",
             PlanDialect::harness, diags);
  REQUIRE(diags.size() == 1);
  CHECK(diags[0].code == "H032");
  CHECK(diags[0].severity == Severity::warning);
  CHECK(diags[0].line == 4);
  CHECK(diags[0].col == 17);
  CHECK(diags[0].message.starts_with("plan has 2 tasks but files_modified is empty: nothing it writes is committed"));
  diags.clear();
  // Without tasks there is nothing to commit (H028 says so where the spec is loaded).
  parse_plan("---\nplan_id: '01-01'\ndepends_on: []\nfiles_modified: []\n---\n# x\n", "x.md", PlanDialect::harness, diags);
  CHECK(diags.empty());
}

TEST_CASE("one-line ui steps put a URL, a pattern or a text where the driver reads it") {
  const char* text = R"(---
plan_id: '01-01'
depends_on: []
files_modified: []
must_pass:
  - id: nav
    type: ui_navigation
    url: http://127.0.0.1:3000
    steps: ['goto /about', 'fill #email a@b.c', 'click #go', 'expect_text Hello there', 'expect_url /dashboard$']
  - id: empty
    type: ui_navigation
    url: http://127.0.0.1:3000
    steps: ['expect_url', 'click']
  - id: comment
    type: ui_navigation
    url: http://127.0.0.1:3000
    steps:
      - click #add
---
# 01-01
)";
  std::vector<Diagnostic> diags;
  auto p = parse_plan(text, "p.md", PlanDialect::harness, diags);
  REQUIRE(p);
  const auto& s = p->must_pass.at(0).steps;
  REQUIRE(s.size() == 5);
  CHECK((s[0].action == "goto" && s[0].value == "/about" && s[0].selector.empty()));
  CHECK((s[1].selector == "#email" && s[1].value == "a@b.c"));
  CHECK((s[2].selector == "#go" && s[2].value.empty()));
  CHECK(s[3].value == "Hello there");
  CHECK(s[4].value == "/dashboard$");
  // A step without its argument could never fail: rejected with the line.
  REQUIRE(diags.size() == 3);
  CHECK(diags[0].code == "H017");
  CHECK(diags[0].message == "ui step 'expect_url' needs a URL pattern");
  CHECK(diags[1].message.starts_with("ui step 'click' needs a selector"));
  CHECK(diags[0].line == 13);
  // Unquoted, YAML took `#add` for a comment: the message says why the selector is missing.
  CHECK(diags[2].message == "ui step 'click' needs a selector (quote a step with a CSS '#': 'click #id'; YAML reads an "
                            "unquoted ' #' as the start of a comment)");
  CHECK(diags[2].line == 18);
}

TEST_CASE("an api check's method does not depend on key order, and is checked and upper-cased when parsed") {
  const char* text = R"(---
plan_id: '01-01'
depends_on: []
files_modified: []
must_pass:
  - id: method-first
    type: api_response
    method: POST
    endpoint: /api/tasks
  - id: method-last
    type: api_response
    endpoint: /api/tasks
    method: post
  - id: both-agree
    type: api_response
    endpoint: put /api/tasks/1
    method: PUT
  - id: neither
    type: api_response
    endpoint: /api/tasks
  - id: unknown
    type: api_response
    endpoint: /api/tasks
    method: FETCH
  - id: contradicts
    type: api_response
    endpoint: POST /api/tasks
    method: DELETE
---
# 01-01
)";
  std::vector<Diagnostic> diags;
  auto p = parse_plan(text, "p.md", PlanDialect::harness, diags);
  REQUIRE(p);
  REQUIRE(p->must_pass.size() == 6);
  CHECK(p->must_pass[0].method == "POST");
  CHECK(p->must_pass[0].endpoint == "/api/tasks");
  CHECK(p->must_pass[1].method == "POST");
  CHECK(p->must_pass[2].method == "PUT");
  CHECK(p->must_pass[2].endpoint == "/api/tasks/1");
  CHECK(p->must_pass[3].method == "GET");
  REQUIRE(diags.size() == 2);
  CHECK(diags[0].code == "H017");
  CHECK(diags[0].line == 24);
  CHECK(diags[0].message.starts_with("unknown HTTP method 'FETCH'"));
  CHECK(diags[1].code == "H025");
  CHECK(diags[1].line == 28);
  CHECK(diags[1].message == "method DELETE contradicts the POST in endpoint");
}

TEST_CASE("a plan's title and task names are printable text: they reach terminals and commit subjects") {
  std::vector<Diagnostic> diags;
  const std::string text = "---\nplan_id: '01-01'\ndepends_on: []\nfiles_modified: []\n---\n# A \x1b[31mred\x1b[0m title\n\n"
                           "### Task 1: d\xffo \x1b[2J\a it\n";
  auto p = parse_plan(text, "p.md", PlanDialect::harness, diags);
  REQUIRE(p);
  CHECK(p->title == "A [31mred[0m title");
  REQUIRE(p->tasks.size() == 1);
  CHECK(p->tasks[0].name == "do [2J it");
}

TEST_CASE("a command string with shell syntax but without shell: true is a warning that says the fix") {
  const char* text = R"(---
plan_id: '01-01'
depends_on: []
files_modified: [x.txt]
must_pass:
  - id: chained
    type: tests_pass
    command: npm test && npm run lint
  - id: assigned
    type: command_output
    command: "FOO=1 make"
  - id: server
    type: api_response
    start: python3 -m app.server --port {port} > server.log
    url: 'http://127.0.0.1:{port}'
    endpoint: /health
  - id: shelled
    type: build_succeeds
    command: make && make check
    shell: true
  - id: quoted
    type: command_output
    command: "sh -c 'cd app && make' | tee"
    shell: true
  - id: in-quotes
    type: command_output
    command: "grep -E 'a|b' \"$x\" x.txt"
  - id: argv
    type: command_output
    command: ['sh', '-c', 'a && b']
---
# 01-01

### Task 1: x
)";
  std::vector<Diagnostic> diags;
  auto p = parse_plan(text, "p.md", PlanDialect::harness, diags);
  REQUIRE(p);
  CHECK(p->must_pass.size() == 7); // a warning: every check is still read
  REQUIRE(diags.size() == 4);
  for (const auto& d : diags) {
    CHECK(d.code == "H030");
    CHECK(d.severity == Severity::warning);
  }
  CHECK(diags[0].line == 8);
  CHECK(diags[0].col == 14);
  CHECK(diags[0].message == "command uses the shell's '&&' but runs without a shell, so '&&' reaches the program as it "
                            "is written: add `shell: true`, or split it into separate checks");
  CHECK(diags[1].line == 11);
  CHECK(diags[1].message == "command starts with the shell assignment 'FOO=1' but runs without a shell, so it would run "
                            "a program named 'FOO=1': put the variable in the check's `env:` map, or add `shell: true`");
  CHECK(diags[2].line == 14);
  CHECK(diags[2].message == "start uses the shell's '>' but runs without a shell, so '>' reaches the program as it is "
                            "written: add `shell: true`");
  // "$x" is expanded by a shell even in double quotes; without one the program gets '$x'.
  CHECK(diags[3].line == 27);
  CHECK(diags[3].message == "command uses the shell's '$x' but runs without a shell, so '$x' reaches the program as it "
                            "is written: add `shell: true`");
}

TEST_CASE("a plan's heading loses the plan's own id in front, and nothing else") {
  CHECK(title_without_id("01-02: Add parser", "01-02") == "Add parser");
  CHECK(title_without_id("01-02 - Add parser", "01-02") == "Add parser");
  CHECK(title_without_id("01-02 Add parser", "01-02") == "Add parser");
  CHECK(title_without_id("02.1-01:Fix", "02.1-01") == "Fix");
  // Another plan's id, a longer name, or the id alone stay as written.
  CHECK(title_without_id("01-03: Add parser", "01-02") == "01-03: Add parser");
  CHECK(title_without_id("01-023 things", "01-02") == "01-023 things");
  CHECK(title_without_id("01-02", "01-02") == "01-02");
  CHECK(title_without_id("Add parser", "") == "Add parser");
}

TEST_CASE("estimate is a number of minutes from 0 to 100 years, as simulate --durations takes them") {
  // Review FF F9: `estimate: 1e300` was accepted, and simulate printed a 300-digit makespan.
  for (const auto& [value, ok] : {std::pair{"0", true}, {"52560000", true}, {"52560001", false}, {"1e300", false}, {"-1", false}}) {
    INFO(value);
    std::vector<Diagnostic> diags;
    auto p = parse_plan(std::string("---\nplan_id: '01-01'\ndepends_on: []\nfiles_modified: [a]\nestimate: ") + value + "\n---\n# x\n",
                        "p.md", PlanDialect::harness, diags);
    CHECK(std::ranges::none_of(diags, [](const Diagnostic& d) { return d.code == "H017"; }) == ok);
  }
}

TEST_CASE("a files_modified entry with a control character is refused (H010)") {
  // Review FF F10: "app/x.py\nPlan: 99-99" passed validate; git holds no such path, and the line
  // break would reach commit messages.
  harness::test::TempDir dir;
  dir.write("SPEC.md", "# x\n");
  dir.write("planning/plans/01-a/01-01-PLAN.md",
            "---\nplan_id: '01-01'\ndepends_on: []\nfiles_modified: [\"app/x.py\\nPlan: 99-99\", ok.txt]\n---\n# x\n");
  auto s = harness::spec::load_spec(dir.path);
  REQUIRE(s);
  CHECK(std::ranges::count_if(s->diagnostics, [](const Diagnostic& d) {
          return d.code == "H010" && d.message == "files_modified entry 'app/x.py\\nPlan: 99-99' holds a control character (a "
                                                  "line break, a NUL or a tab)";
        }) == 1);
}
