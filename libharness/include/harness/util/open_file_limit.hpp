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
/// lowers it). Best effort: a limit that cannot be changed stays as it is. The soft limit it
/// found is what children get back (set_child_open_file_limit), as Go does for the processes it
/// starts: a program that uses select() fails with a descriptor at 1024 or above.
void raise_open_file_limit();

/// The soft RLIMIT_NOFILE worker::spawn_process sets in every child before it execs: the one this
/// process started with, when raise_open_file_limit raised it; nullopt: children inherit ours.
/// The one process-wide setting of the library, set once at start before any thread runs.
std::optional<std::uint64_t> child_open_file_limit();

/// Sets what child_open_file_limit() returns (a test gives back what it changed).
void set_child_open_file_limit(std::optional<std::uint64_t> limit);

/// The soft RLIMIT_NOFILE now: how many descriptors this process may have open; nullopt when
/// unlimited or unknown.
std::optional<std::uint64_t> open_file_limit();

/// The hard RLIMIT_NOFILE: as far as the soft limit can be raised without privileges; nullopt
/// when unlimited or unknown.
std::optional<std::uint64_t> open_file_hard_limit();

} // namespace harness::util
