#include "harness/orchestrator/rate_limit.hpp"

#include <algorithm>

namespace harness::orchestrator {

std::chrono::milliseconds rate_limit_wait(const RateLimitBackoff& backoff, int in_a_row) {
  const auto cap = std::max(backoff.max_wait, backoff.first_wait);
  auto wait = backoff.first_wait;
  // Doubling step by step, stopping at the cap, cannot overflow whatever `in_a_row` is.
  for (int n = 1; n < in_a_row && wait < cap; ++n) wait = std::min(wait * 2, cap);
  return wait;
}

} // namespace harness::orchestrator
