// Regex checks search line by line, and never hand std::regex a line long enough to overflow
// the stack (libstdc++ recurses per character: GCC bug 86164).
#include "harness/verify/engine.hpp"
#include "spec_test_util.hpp"
#include "../../libharness/src/verify/line_search.hpp"

#include <catch2/catch.hpp>

using namespace harness;

namespace {

spec::Check contains(std::string path, std::string pattern) {
  spec::Check c;
  c.type = spec::CheckType::file_contains;
  c.id = "c";
  c.path = std::move(path);
  c.pattern = std::move(pattern);
  return c;
}

/// Plan 01-01 with `must_haves` (nothing else) verified in a project at `root`, commits not asked.
verify::Report must_haves_report(const std::filesystem::path& root, const spec::MustHaves& must_haves) {
  spec::Spec s;
  s.layout.project_root = root;
  spec::Plan plan;
  plan.id = "01-01";
  plan.must_haves = must_haves;
  verify::VerifyOptions opt;
  opt.check_commits = false;
  return verify::verify_plan(s, plan, opt);
}

} // namespace

TEST_CASE("a pattern is searched in each line: anchors are the line's ends, a CR is not part of it") {
  using verify::detail::count_line_matches;
  CHECK(count_line_matches("a\nimport x from './api'\r\nb\n", "^import .* from '\\./api'$").count == 1);
  CHECK(count_line_matches("def f():\ndef g():\n", "^def \\w+").count == 2);
  CHECK(count_line_matches("ab\n", "^$").count == 0); // no empty line after the last newline
  CHECK(count_line_matches("x", "(unclosed").error.starts_with("invalid regex /(unclosed/"));
}

TEST_CASE("a 500 KB line never reaches std::regex: plain text is still found, a regex fails naming the line") {
  test::TempDir dir;
  std::string big(500 * 1024, 'a');
  big.replace(250 * 1024, 6, "needle");
  dir.write("bundle.js", "// header\n" + big + "\n");
  verify::VerifyOptions opt;
  CHECK(verify::run_check(contains("bundle.js", "needle"), dir.path, opt).status == verify::CheckStatus::passed);
  auto r = verify::run_check(contains("bundle.js", "(a|b)*needle"), dir.path, opt);
  CHECK(r.status == verify::CheckStatus::failed);
  CHECK(r.message.starts_with("line 2 of bundle.js is longer than 64 KiB, too long to search for the regex /(a|b)*needle/"));
  // Found on a line that could be searched: present, whatever the long line holds.
  CHECK(verify::run_check(contains("bundle.js", "^// he.*"), dir.path, opt).status == verify::CheckStatus::passed);
  // But a count cannot be known without the long line.
  auto counted = contains("bundle.js", "^// he.*");
  counted.count = 1;
  CHECK(verify::run_check(counted, dir.path, opt).message.starts_with("line 2 of bundle.js is longer than 64 KiB"));
}

// [deep_stack]: ThreadSanitizer keeps a call stack of its own per thread, which this recursion
// overflows; the TSan job leaves the case out (tests/CMakeLists.txt).
TEST_CASE("a line just under the cap is searched with a repetition that would overflow an 8 MiB stack", "[deep_stack]") {
  test::TempDir dir;
  std::string line(60 * 1024, 'a');
  dir.write("long.txt", line + "x\n");
  verify::VerifyOptions opt;
  // `(a|b)*x` recurses per character: on the main thread's stack it crashes at about 12 000.
  CHECK(verify::run_check(contains("long.txt", "(a|b)*x"), dir.path, opt).status == verify::CheckStatus::passed);
  // Anchored, so that the failing search is linear: from every other start `^` fails at once.
  CHECK(verify::run_check(contains("long.txt", "^(a|b)*y"), dir.path, opt).message == "/^(a|b)*y/ not found in long.txt");
}

TEST_CASE("a key_link anchored with ^ is found on any line of its file, not only the first") {
  test::TempDir dir;
  dir.write("src/app.js", "// the app\n'use strict';\nimport { list } from \"./api\";\n\nlist();\n");
  spec::MustHaves m;
  m.key_links.push_back({"src/app.js", "src/api.js", "import", "^import .* from \"./api\"", 12});
  m.key_links.push_back({"src/app.js", "src/db.js", "import", "^import .* from \"./db\"", 13});
  const auto report = must_haves_report(dir.path, m);
  REQUIRE(report.results.size() == 2);
  CHECK(report.results[0].status == verify::CheckStatus::passed);
  CHECK(report.results[1].status == verify::CheckStatus::failed);
  CHECK(report.results[1].message == "/^import .* from \"./db\"/ not found in src/app.js");
}

TEST_CASE("an artifact's exports are whole names in its file, not any text that holds them") {
  // Review S, finding 10: `exports: [GET]` passed on any file with "GET" in it (a "TARGET").
  test::TempDir dir;
  dir.write("src/route.ts", "const TARGET = 1;\nexport async function POST(req) {}\nexport { $store };\n");
  spec::MustHaves m;
  m.artifacts.push_back({"src/route.ts", "the route", std::nullopt, {}, {"GET"}, 5});
  m.artifacts.push_back({"src/route.ts", "the route", std::nullopt, {}, {"POST", "$store"}, 6});
  const auto report = must_haves_report(dir.path, m);
  REQUIRE(report.results.size() == 2);
  CHECK(report.results[0].status == verify::CheckStatus::failed);
  CHECK(report.results[0].message == "src/route.ts does not export 'GET' (no such whole name in it)");
  CHECK(report.results[1].status == verify::CheckStatus::passed);
}
