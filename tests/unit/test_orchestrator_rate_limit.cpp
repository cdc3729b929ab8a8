// The backoff after a rate-limited worker: doubling from the first wait up to the cap.
#include "harness/orchestrator/rate_limit.hpp"

#include <catch2/catch.hpp>

#include <climits>
#include <vector>

using namespace harness::orchestrator;
using std::chrono::milliseconds;

namespace {

std::vector<long long> waits(const RateLimitBackoff& b, int n) {
  std::vector<long long> out;
  for (int i = 1; i <= n; ++i) out.push_back(rate_limit_wait(b, i).count());
  return out;
}

} // namespace

TEST_CASE("The default backoff waits 30 s, doubling to at most 10 minutes, for 8 rate limits in a row",
          "[orchestrator][rate_limit]") {
  const RateLimitBackoff d;
  CHECK(d.retries == 8);
  CHECK(waits(d, 8) == std::vector<long long>{30000, 60000, 120000, 240000, 480000, 600000, 600000, 600000});
}

TEST_CASE("A configured backoff doubles from its first wait and stops at its cap", "[orchestrator][rate_limit]") {
  const RateLimitBackoff b{milliseconds(20), milliseconds(80), 8};
  CHECK(waits(b, 6) == std::vector<long long>{20, 40, 80, 80, 80, 80});
  const RateLimitBackoff flat{milliseconds(5), milliseconds(5), 1};
  CHECK(waits(flat, 3) == std::vector<long long>{5, 5, 5});
}

TEST_CASE("A cap below the first wait never shortens it", "[orchestrator][rate_limit]") {
  const RateLimitBackoff b{milliseconds(900000), milliseconds(600000), 8};
  CHECK(waits(b, 3) == std::vector<long long>{900000, 900000, 900000});
}

TEST_CASE("The wait stays at the cap however long the row of rate limits", "[orchestrator][rate_limit]") {
  const RateLimitBackoff b{milliseconds(1), milliseconds(86400000), 100};
  CHECK(rate_limit_wait(b, 1000).count() == 86400000);
  CHECK(rate_limit_wait(b, INT_MAX).count() == 86400000);
  CHECK(rate_limit_wait(b, 0).count() == 1); // not counted yet: the first wait
}
