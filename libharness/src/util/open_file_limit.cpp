#include "harness/util/open_file_limit.hpp"

#include <algorithm>
#include <atomic>
#include <sys/resource.h>

namespace harness::util {
namespace {

/// child_open_file_limit(); 0: none. Atomic: spawns read it from any thread.
std::atomic<std::uint64_t> g_child_limit{0};

} // namespace

void raise_open_file_limit() {
  rlimit lim{};
  if (::getrlimit(RLIMIT_NOFILE, &lim) != 0 || lim.rlim_cur == RLIM_INFINITY) return;
  const rlim_t target = std::min<rlim_t>(lim.rlim_max, open_file_limit_cap); // RLIM_INFINITY is the largest
  if (lim.rlim_cur >= target) return;
  const rlim_t original = lim.rlim_cur;
  lim.rlim_cur = target;
  if (::setrlimit(RLIMIT_NOFILE, &lim) == 0) set_child_open_file_limit(original);
}

std::optional<std::uint64_t> child_open_file_limit() {
  const auto v = g_child_limit.load();
  return v == 0 ? std::nullopt : std::optional<std::uint64_t>(v);
}

void set_child_open_file_limit(std::optional<std::uint64_t> limit) { g_child_limit.store(limit.value_or(0)); }

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
