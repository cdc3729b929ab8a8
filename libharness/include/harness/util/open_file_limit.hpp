#pragma once
// This process's limit on open files (RLIMIT_NOFILE). Each worker slot of a run holds a few
// descriptors (its output pipe, its pidfd, its log), each git call and check a few more while it
// runs; a soft limit far below the hard one (1024 under systemd, less in some containers) is
// raised once at start, as most servers do, and a hard limit too low for `--slots` is reported
// before the run starts instead of failing part-way.

#include <cstdint>
#include <optional>

namespace harness::util {

/// The soft limit is raised at most to this (when the hard limit is higher): workers inherit it,
/// and some programs close every descriptor up to the limit before they exec (a million is slow).
inline constexpr std::uint64_t open_file_limit_cap = 65536;

/// Raises the soft RLIMIT_NOFILE toward the hard limit (at most open_file_limit_cap; never
/// lowers it). Best effort: a limit that cannot be changed stays as it is.
void raise_open_file_limit();

/// The soft RLIMIT_NOFILE now: how many descriptors this process may have open; nullopt when
/// unlimited or unknown.
std::optional<std::uint64_t> open_file_limit();

/// The hard RLIMIT_NOFILE: as far as the soft limit can be raised without privileges; nullopt
/// when unlimited or unknown.
std::optional<std::uint64_t> open_file_hard_limit();

} // namespace harness::util
