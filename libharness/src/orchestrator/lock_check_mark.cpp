#include "lock_check_mark.hpp"

#include "harness/protocol/message.hpp"
#include "harness/util/atomic_file.hpp"

#include <fmt/format.h>

#include <unistd.h>

namespace harness::orchestrator {
namespace fs = std::filesystem;

namespace {
fs::path mark_path(const fs::path& state_dir) { return state_dir / "locks-unchecked"; }
} // namespace

void mark_locks_unchecked(const fs::path& state_dir) {
  // What and when, for a person who finds it; only its presence is read.
  (void)util::write_file_atomic(mark_path(state_dir), fmt::format("workers stopped by harness pid {} at {}; git locks "
                                                                   "not looked for yet\n",
                                                                   ::getpid(), protocol::now_iso8601()));
}

void clear_locks_unchecked(const fs::path& state_dir) {
  std::error_code ec;
  fs::remove(mark_path(state_dir), ec);
}

bool locks_unchecked(const fs::path& state_dir) {
  std::error_code ec;
  return fs::exists(mark_path(state_dir), ec);
}

} // namespace harness::orchestrator
