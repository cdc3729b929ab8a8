#include "harness/verify/engine.hpp"
#include "regex_locale.hpp"

#include <regex>

namespace harness::verify {

TestCounts parse_test_counts(std::string_view text) {
  const std::string s(text);
  TestCounts c;
  std::smatch m;
  detail::prepare_regex_locale();
  // ctest: "100% tests passed, 0 tests failed out of 12"
  static const std::regex ctest(R"((\d+)% tests passed, (\d+) tests? failed out of (\d+))");
  // Catch2: "All tests passed (31 assertions in 6 test cases)" / "test cases: 6 | 5 passed | 1 failed"
  static const std::regex catch_all(R"(All tests passed \(\d+ assertions? in (\d+) test cases?\))");
  static const std::regex catch_cases(R"(test cases:\s*(\d+) \|\s*(\d+) passed \|\s*(\d+) failed)");
  // Python unittest: "Ran 7 tests" then "OK" or "FAILED (failures=1, errors=2)"
  static const std::regex unittest_ran(R"(Ran (\d+) tests?)");
  static const std::regex unittest_failed(R"(FAILED \((?:failures=(\d+))?(?:, )?(?:errors=(\d+))?)");
  // pytest / plain: "5 passed, 1 failed" (either order, either alone)
  static const std::regex passed(R"((\d+) passed)");
  static const std::regex failed(R"((\d+) failed)");
  if (std::regex_search(s, m, ctest)) {
    const int total = std::stoi(m[3]), fail = std::stoi(m[2]);
    return {total - fail, fail, true};
  }
  if (std::regex_search(s, m, catch_cases)) return {std::stoi(m[2]), std::stoi(m[3]), true};
  if (std::regex_search(s, m, catch_all)) return {std::stoi(m[1]), 0, true};
  if (std::regex_search(s, m, unittest_ran)) {
    const int total = std::stoi(m[1]);
    int fail = 0;
    if (std::regex_search(s, m, unittest_failed))
      fail = (m[1].matched ? std::stoi(m[1]) : 0) + (m[2].matched ? std::stoi(m[2]) : 0);
    return {total - fail, fail, true};
  }
  if (std::regex_search(s, m, passed)) c.passed = std::stoi(m[1]), c.found = true;
  if (std::regex_search(s, m, failed)) c.failed = std::stoi(m[1]), c.found = true;
  return c;
}

} // namespace harness::verify
