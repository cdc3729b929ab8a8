#include "harness/util/discarded_dir.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <ctime>

namespace harness::util {

std::string new_discarded_dir(std::string_view spec_name, std::string_view what) {
  char stamp[32];
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&now, &tm);
  std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
  return fmt::format(".orchestration/discarded/{}/{}-{}-{}", spec_name, what, stamp, ::getpid());
}

} // namespace harness::util
