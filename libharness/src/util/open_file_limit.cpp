#include "harness/util/open_file_limit.hpp"

#include <algorithm>
#include <sys/resource.h>

namespace harness::util {

void raise_open_file_limit() {
  rlimit lim{};
  if (::getrlimit(RLIMIT_NOFILE, &lim) != 0 || lim.rlim_cur == RLIM_INFINITY) return;
  const rlim_t target = std::min<rlim_t>(lim.rlim_max, open_file_limit_cap); // RLIM_INFINITY is the largest
  if (lim.rlim_cur >= target) return;
  lim.rlim_cur = target;
  (void)::setrlimit(RLIMIT_NOFILE, &lim);
}

std::optional<std::uint64_t> open_file_limit() {
  rlimit lim{};
  if (::getrlimit(RLIMIT_NOFILE, &lim) != 0 || lim.rlim_cur == RLIM_INFINITY) return std::nullopt;
  return lim.rlim_cur;
}

std::optional<std::uint64_t> open_file_hard_limit() {
  rlimit lim{};
  if (::getrlimit(RLIMIT_NOFILE, &lim) != 0 || lim.rlim_max == RLIM_INFINITY) return std::nullopt;
  return lim.rlim_max;
}

} // namespace harness::util
