// A key one or two keystrokes from a known one is taken for a typo of it (H026); anything
// farther is just unknown (H014).
#include "../../libharness/src/spec/near_miss.hpp"

#include <catch2/catch.hpp>

using harness::spec::detail::key_distance;
using harness::spec::detail::near_miss;

TEST_CASE("key distance counts edits, folds case and reads '-' as '_'") {
  CHECK(key_distance("expects", "expects") == 0);
  CHECK(key_distance("expect", "expects") == 1);
  CHECK(key_distance("must-pass", "must_pass") == 0);
  CHECK(key_distance("Must_Pass", "must_pass") == 0);
  CHECK(key_distance("dpeends_on", "depends_on") == 1); // two neighbours swapped
  CHECK(key_distance("exitcode", "exit_code") == 1);
  CHECK(key_distance("", "url") == 3);
  CHECK(key_distance("status_code", "status") == 5);
}

TEST_CASE("a near miss is within 1 edit of a short key and 2 of a long one") {
  const std::set<std::string, std::less<>> known = {"url", "text", "expects", "files_modified", "timeout"};
  CHECK(near_miss("uri", known) == "url");
  CHECK(near_miss("expcts", known) == "expects");
  CHECK(near_miss("file_modifed", known) == "files_modified");
  CHECK(near_miss("timeout_s", known) == "timeout");
  CHECK_FALSE(near_miss("urls2", known));    // 2 edits from a 3-letter key: unrelated
  CHECK_FALSE(near_miss("retries", known));
  CHECK_FALSE(near_miss("expects", known));  // known keys are no miss
  CHECK(near_miss("tex", known) == "text");
}
