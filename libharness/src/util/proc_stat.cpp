#include "harness/util/proc_stat.hpp"

#include "harness/util/atomic_file.hpp"

#include <cstdlib>
#include <sstream>
#include <string>

namespace harness::util {

std::optional<ProcStat> parse_proc_stat(std::string_view text) {
  const auto close = text.rfind(')');
  if (close == std::string_view::npos) return std::nullopt;
  std::istringstream rest{std::string(text.substr(close + 1))};
  ProcStat s;
  std::string field;
  int i = 3;
  for (; i <= 22 && rest >> field; ++i) {
    if (i == 3) s.state = field.empty() ? '?' : field[0];
    else if (i == 4) s.ppid = std::atoi(field.c_str());
    else if (i == 5) s.pgrp = std::atoi(field.c_str());
    else if (i == 22) s.start_ticks = std::strtoull(field.c_str(), nullptr, 10);
  }
  if (i <= 22) return std::nullopt; // cut short
  return s;
}

std::optional<ProcStat> read_proc_stat(long long pid) {
  if (pid <= 0) return std::nullopt;
  // read_file, not a stream: a process that ends while its file is read fails the read with
  // ESRCH, which libstdc++'s filebuf throws out of (seen from `respond --list` in a test).
  const auto text = read_file("/proc/" + std::to_string(pid) + "/stat");
  if (!text) return std::nullopt;
  return parse_proc_stat(*text);
}

} // namespace harness::util
