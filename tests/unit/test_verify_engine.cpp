// The verification engine against real targets: files, commands, a process group that must die
// on timeout, a local HTTP server started by the check, test-runner output, git trailers.
#include "harness/spec/document_parsers.hpp"
#include "harness/verify/engine.hpp"
#include "harness/worker/run_command.hpp"
#include "spec_test_util.hpp"
#include "../../libharness/src/verify/output_clue.hpp"

#include <catch2/catch.hpp>

#include <csignal>
#include <fstream>
#include <thread>

using namespace harness;
namespace fs = std::filesystem;

namespace {

spec::Check check(spec::CheckType type, std::string id) {
  spec::Check c;
  c.type = type;
  c.id = std::move(id);
  return c;
}

spec::Command argv(std::vector<std::string> a) {
  spec::Command c;
  c.argv = std::move(a);
  return c;
}

int free_port() {
  // Ports in a high range keyed by pid keep parallel test runs apart.
  return 20000 + (::getpid() % 20000);
}

} // namespace

TEST_CASE("file_exists and file_contains pass and fail on real files, with counts and literals") {
  test::TempDir dir;
  dir.write("src/a.py", "def f():\n    return 1\ndef g():\n    pass\n");
  verify::VerifyOptions opt;
  auto exists = check(spec::CheckType::file_exists, "e");
  exists.path = "src/a.py";
  CHECK(verify::run_check(exists, dir.path, opt).status == verify::CheckStatus::passed);
  exists.path = "src/b.py";
  auto missing = verify::run_check(exists, dir.path, opt);
  CHECK(missing.status == verify::CheckStatus::failed);
  CHECK(missing.message == "src/b.py does not exist");

  auto contains = check(spec::CheckType::file_contains, "c");
  contains.path = "src/a.py";
  contains.pattern = "^def \\w+";
  contains.count = 2;
  CHECK(verify::run_check(contains, dir.path, opt).status == verify::CheckStatus::passed);
  contains.count = 3;
  CHECK(verify::run_check(contains, dir.path, opt).message == "/^def \\w+/ found 2 times in src/a.py (expected 3)");
  contains.count.reset();
  contains.pattern = "return 1";
  contains.literal = true;
  CHECK(verify::run_check(contains, dir.path, opt).status == verify::CheckStatus::passed);
  contains.literal = false;
  contains.pattern = "(unclosed";
  CHECK(verify::run_check(contains, dir.path, opt).status == verify::CheckStatus::error);
}

TEST_CASE("command checks compare exit codes and output, without a shell") {
  test::TempDir dir;
  verify::VerifyOptions opt;
  auto c = check(spec::CheckType::command_output, "cmd");
  c.command = argv({"sh", "-c", "echo hello; echo oops >&2; exit 3"});
  c.expects.exit_code = 3;
  c.expects.stdout_re = "^hello$";
  c.expects.stderr_re = "oops";
  auto r = verify::run_check(c, dir.path, opt);
  INFO(r.message << r.evidence);
  CHECK(r.status == verify::CheckStatus::passed);
  c.expects.exit_code = 0;
  CHECK(verify::run_check(c, dir.path, opt).message == "exit code 3 (expected 0): oops"); // what it said last
  c.command = argv({"echo", "$HOME *"}); // no shell: nothing expands
  c.expects = {};
  c.expects.stdout_re = "^\\$HOME \\*$";
  CHECK(verify::run_check(c, dir.path, opt).status == verify::CheckStatus::passed);
  c.command = argv({"definitely-not-a-command-xyz"});
  CHECK(verify::run_check(c, dir.path, opt).status == verify::CheckStatus::error);
}

TEST_CASE("a timeout kills the whole process group, grandchildren included") {
  test::TempDir dir;
  worker::CommandRequest req;
  const fs::path pidfile = dir.path / "grandchild.pid";
  req.argv = {"sh", "-c", "sleep 60 & echo $! > '" + pidfile.string() + "'; wait"};
  req.cwd = dir.path;
  req.timeout = std::chrono::milliseconds(500);
  req.grace = std::chrono::milliseconds(200);
  auto r = worker::run_command(req);
  CHECK(r.timed_out);
  CHECK(r.seconds < 10);
  std::ifstream in(pidfile);
  int grandchild = 0;
  in >> grandchild;
  REQUIRE(grandchild > 0);
  bool gone = false;
  for (int i = 0; i < 100 && !gone; ++i) {
    gone = !test::process_running(grandchild); // a zombie init has not reaped yet is gone
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  CHECK(gone); // no orphan left behind
}

TEST_CASE("a command is done when it exits, although a child that left its group holds the output") {
  test::TempDir dir;
  worker::CommandRequest req;
  const fs::path pidfile = dir.path / "escaped.pid";
  // setsid: the child leaves the command's process group, so killing the group does not reach it.
  req.argv = {"sh", "-c", "setsid sleep 60 & echo $! > '" + pidfile.string() + "'; echo ran"};
  req.cwd = dir.path;
  req.timeout = std::chrono::seconds(30);
  auto r = worker::run_command(req);
  CHECK_FALSE(r.timed_out);
  CHECK(r.exit_code == 0);
  CHECK(r.output.starts_with("ran"));
  CHECK(r.seconds < 15); // guard: it used to wait for the escaped child's 60 s
  int escaped = 0;
  std::ifstream(pidfile) >> escaped;
  if (escaped > 0) ::kill(escaped, SIGKILL);
}

TEST_CASE("command output is capped, keeping its head and its tail") {
  worker::CommandRequest req;
  req.argv = {"sh", "-c", "echo FIRST; yes filler | head -c 200000; echo; echo LAST"};
  req.max_output = 4096;
  auto r = worker::run_command(req);
  CHECK(r.ok());
  CHECK(r.truncated);
  CHECK(r.output.starts_with("FIRST"));
  CHECK(r.output.find("LAST") != std::string::npos);
  CHECK(r.output.size() < 5000);
}

TEST_CASE("tests_pass reads the counts runners print") {
  CHECK(verify::parse_test_counts("100% tests passed, 0 tests failed out of 12").passed == 12);
  auto ctest = verify::parse_test_counts("83% tests passed, 2 tests failed out of 12");
  CHECK((ctest.passed == 10 && ctest.failed == 2));
  CHECK(verify::parse_test_counts("All tests passed (31 assertions in 6 test cases)").passed == 6);
  auto catch_fail = verify::parse_test_counts("test cases: 6 | 5 passed | 1 failed");
  CHECK(catch_fail.failed == 1);
  auto unit = verify::parse_test_counts("Ran 7 tests in 0.1s\n\nFAILED (failures=1, errors=1)");
  CHECK((unit.passed == 5 && unit.failed == 2));
  auto py = verify::parse_test_counts("==== 5 passed, 1 failed in 0.2s ====");
  CHECK((py.passed == 5 && py.failed == 1));
  CHECK_FALSE(verify::parse_test_counts("nothing here").found);

  test::TempDir dir;
  auto c = check(spec::CheckType::tests_pass, "t");
  c.command = argv({"sh", "-c", "echo '3 passed, 1 failed'; exit 0"});
  auto r = verify::run_check(c, dir.path, {});
  CHECK(r.status == verify::CheckStatus::failed); // a runner that exits 0 with failures is still failing
  CHECK(r.message == "3 passed, 1 failed");
}

TEST_CASE("api_response starts the server, waits for it, checks status and JSON subset, and stops it") {
  test::TempDir dir;
  dir.write("api/health", "{\"status\": \"ok\", \"version\": 3}");
  const int port = free_port();
  auto c = check(spec::CheckType::api_response, "health");
  c.start = argv({"python3", "-m", "http.server", std::to_string(port), "--bind", "127.0.0.1"});
  c.url = "http://127.0.0.1:" + std::to_string(port);
  c.endpoint = "/api/health";
  c.method = "GET";
  c.expects.status = 200;
  c.expects.body_json = R"({"status":"ok"})";
  c.timeout_seconds = 20;
  auto r = verify::run_check(c, dir.path, {});
  INFO(r.message << " " << r.evidence);
  CHECK(r.status == verify::CheckStatus::passed);
  c.expects.body_json = R"({"status":"down"})";
  CHECK(verify::run_check(c, dir.path, {}).status == verify::CheckStatus::failed);
  c.expects.body_json.reset();
  c.endpoint = "/missing";
  auto missing = verify::run_check(c, dir.path, {});
  CHECK(missing.message == "status 404 (expected 200)");
  // the server is gone after the check
  worker::CommandRequest probe;
  probe.argv = {"python3", "-c", "import socket; socket.create_connection(('127.0.0.1', " + std::to_string(port) + "), 1)"};
  CHECK(worker::run_command(probe).exit_code != 0);
}

TEST_CASE("human checks are never passed automatically and make the status human_needed") {
  auto c = check(spec::CheckType::visual_quality, "looks");
  c.description = "The dashboard matches the mockup";
  auto r = verify::run_check(c, "/", {});
  CHECK(r.status == verify::CheckStatus::human);
  std::vector<verify::CheckResult> rs{r};
  CHECK(verify::overall_status(rs) == spec::VerificationStatus::human_needed);
  rs.push_back({});
  rs.back().status = verify::CheckStatus::failed;
  CHECK(verify::overall_status(rs) == spec::VerificationStatus::gaps_found);
}

TEST_CASE("VERIFICATION.md has parseable frontmatter, a table and the gaps with their source") {
  verify::Report rep{"phase 02", "SPC-001-x", spec::VerificationStatus::gaps_found, {}, {"02-01", "02-02"}, {}};
  verify::CheckResult ok;
  ok.plan = "02-01";
  ok.id = "a";
  ok.type = "file_exists";
  verify::CheckResult bad = ok;
  bad.id = "b";
  bad.status = verify::CheckStatus::failed;
  bad.message = "src/x.py does not exist";
  bad.file = "planning/plans/02-core/02-01-PLAN.md";
  bad.line = 12;
  rep.results = {ok, bad};
  auto md = verify::render_verification_md(rep, "2026-01-01T00:00:00Z");
  CHECK(md.starts_with("---\nstatus: gaps_found\nlevel: 'phase 02'\nscore: 1/2\n"));
  // The plans it verified: a reader tells a report from before a plan was added.
  CHECK(md.find("\nplans: ['02-01', '02-02']\n---\n") != std::string::npos);
  std::vector<spec::Diagnostic> diags;
  const auto back = spec::parse_verification(md, "V.md", diags);
  REQUIRE(back.plans);
  CHECK(*back.plans == std::vector<std::string>{"02-01", "02-02"});
  CHECK(md.find("- **02-01 / b** (file_exists, planning/plans/02-core/02-01-PLAN.md:12): src/x.py does not exist") !=
        std::string::npos);
}

TEST_CASE("A browser check without the driver is an error that says what is missing, never a pass", "[verify][ui]") {
  test::TempDir dir;
  spec::Check c;
  c.id = "title";
  c.type = spec::CheckType::ui_element_exists;
  c.url = "http://127.0.0.1:9/";
  c.selector = "#title";
  verify::VerifyOptions opt; // no ui_driver
  auto r = verify::run_check(c, dir.path, opt);
  CHECK(r.status == verify::CheckStatus::error);
  CHECK(r.message.find("ui_driver.cjs") != std::string::npos);
  opt.ui_driver = dir.path / "nowhere.cjs";
  CHECK(verify::run_check(c, dir.path, opt).status == verify::CheckStatus::error);
}

TEST_CASE("The browser driver is found in the source tree or beside an installed binary", "[verify][ui]") {
  CHECK(verify::find_ui_driver("/nonexistent/bin", HARNESS_SOURCE_DIR).filename() == "ui_driver.cjs");
  test::TempDir dir;
  CHECK(verify::find_ui_driver(dir.path / "bin", dir.path).empty());
  dir.write("share/harness/ui_driver.cjs", "// installed\n");
  fs::create_directories(dir.path / "bin");
  CHECK(verify::find_ui_driver(dir.path / "bin", "/nonexistent") == fs::canonical(dir.path / "share/harness/ui_driver.cjs"));
}

TEST_CASE("a failed command's message carries the line of its output that says why", "[verify]") {
  using harness::verify::detail::output_clue;
  // unittest: the assertion, not the summary after it.
  CHECK(output_clue("F.\n=====\nFAIL: test_ties\nTraceback (most recent call last):\n  File \"t.py\", line 3\n"
                    "AssertionError: Lists differ: [('z', 1)] != [('y', 1)]\n\n-----\nRan 2 tests\n\nFAILED (failures=1)\n") ==
        "AssertionError: Lists differ: [('z', 1)] != [('y', 1)]");
  CHECK(output_clue("E   ModuleNotFoundError: No module named 'tests.x'\n=== 1 error in 0.1s ===\n") ==
        "E   ModuleNotFoundError: No module named 'tests.x'");
  CHECK(output_clue("src/a.c:3:1: error: expected ';'\n1 error generated.\n") == "src/a.c:3:1: error: expected ';'");
  // The first error: the cause (review QQ F2).
  CHECK(output_clue("a.c:1:1: error: first\na.c:9:1: error: follows from it\n") == "a.c:1:1: error: first");
  CHECK(output_clue("--- FAIL: TestMul (0.00s)\n    calc_test.go:8: got 5, want 6\nFAIL\nFAIL\tcalc\t0.002s\n") ==
        "--- FAIL: TestMul (0.00s)");
  CHECK(output_clue("running 1 test\nthread 'tests::mul' panicked at src/lib.rs:10:5:\nassertion failed\n"
                    "error: test failed, to rerun pass `--lib`\n") == "thread 'tests::mul' panicked at src/lib.rs:10:5:");
  CHECK(output_clue("error[E0308]: mismatched types\n --> src/lib.rs:2:5\nerror: could not compile `calc`\n") ==
        "error[E0308]: mismatched types");
  CHECK(output_clue("node:assert:124\nAssertionError [ERR_ASSERTION]: Expected values to be strictly equal:\n\nNode.js v20.1.0\n") ==
        "AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:");
  CHECK(output_clue("ok 1\nnot ok 2 - sorts ties\n\n") == "not ok 2 - sorts ties"); // no error word: the last line
  CHECK(output_clue(" \n\n").empty());
  CHECK(output_clue(std::string(500, 'x') + "\n").size() <= 200);
  CHECK(output_clue("\x1b[31mError: boom\x1b[0m\n").find('\x1b') == std::string::npos); // printable only
  // A secret of this environment the command printed is masked: the clue goes into committed files.
  ::setenv("HARNESS_TEST_DB_PASSWORD", "hunter2-s3cret", 1);
  CHECK(output_clue("Error: login failed for hunter2-s3cret\n") == "Error: login failed for [$HARNESS_TEST_DB_PASSWORD]");
  ::unsetenv("HARNESS_TEST_DB_PASSWORD");
}
