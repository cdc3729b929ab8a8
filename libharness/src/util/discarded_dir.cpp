#include "harness/util/discarded_dir.hpp"
#include "harness/util/utc_time.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <ctime>

namespace harness::util {

std::string new_discarded_dir(std::string_view spec_name, std::string_view what) {
  return fmt::format(".orchestration/discarded/{}/{}-{}-{}", spec_name, what, utc_now("%Y%m%dT%H%M%SZ"), ::getpid());
}

} // namespace harness::util
