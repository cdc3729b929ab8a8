#pragma once
// How the run loop backs off a task whose worker hit a rate limit. A rate limit spends no attempt:
// the task waits and runs again. Since an error misread as a rate limit, or a limit that never
// lifts, would otherwise retry forever, only `retries` rate limits in a row wait; the next one
// fails the attempt as crashed.

#include <chrono>

namespace harness::orchestrator {

/// The backoff settings (`rate_limit:` in config.yaml). The defaults wait 45 minutes in all.
struct RateLimitBackoff {
  std::chrono::milliseconds first_wait{30000}; ///< wait after the first rate limit in a row
  std::chrono::milliseconds max_wait{600000};  ///< each further wait doubles, up to this
  int retries = 8;                             ///< rate limits in a row that wait; the next one crashes

  bool operator==(const RateLimitBackoff&) const = default;
};

/// The wait after the `in_a_row`-th rate limit in a row (counted from 1): `first_wait`, doubled
/// for each one before it, at most `max_wait`. A `max_wait` below `first_wait` never shortens the
/// first wait.
std::chrono::milliseconds rate_limit_wait(const RateLimitBackoff& backoff, int in_a_row);

} // namespace harness::orchestrator
