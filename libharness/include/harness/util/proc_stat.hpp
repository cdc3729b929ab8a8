#pragma once
// /proc/PID/stat, read the one way every module needs it: whether a process still runs (a zombie
// has exited, whatever kill(pid, 0) says), its process group, and its start time (a reused pid
// is another process).

#include <cstdint>
#include <optional>
#include <string_view>

namespace harness::util {

struct ProcStat {
  char state = '?';           ///< field 3: R, S, D, Z (zombie), X (dead), ...
  int ppid = 0;               ///< field 4: the parent
  int pgrp = 0;               ///< field 5: the process group
  std::uint64_t start_ticks = 0; ///< field 22: start time in clock ticks since boot
  bool exited() const { return state == 'Z' || state == 'X'; }
};

/// The fields of a /proc/PID/stat line. The command name (field 2) may hold spaces and ')', so
/// the fields are read after the last ')'. nullopt for text that is not such a line.
std::optional<ProcStat> parse_proc_stat(std::string_view text);

/// /proc/PID/stat of `pid`, or nullopt when there is no such process (or it cannot be read).
std::optional<ProcStat> read_proc_stat(long long pid);

} // namespace harness::util
