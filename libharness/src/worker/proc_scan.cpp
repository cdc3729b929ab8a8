#include "harness/worker/proc_scan.hpp"

#include "harness/util/atomic_file.hpp"

#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <optional>

namespace harness::worker {
namespace fs = std::filesystem;
namespace {

bool numeric(const std::string& name) { return !name.empty() && name.find_first_not_of("0123456789") == std::string::npos; }

/// State letter and process group from /proc/PID/stat text (fields 3 and 5); the command name
/// (field 2) may hold spaces and ')', so fields resume after the last ')'.
std::optional<std::pair<char, int>> state_and_group(const std::string& stat) {
  const size_t close = stat.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  char state = 0;
  int ppid = 0, pgrp = 0;
  if (std::sscanf(stat.c_str() + close + 1, " %c %d %d", &state, &ppid, &pgrp) != 3) return std::nullopt;
  return std::pair{state, pgrp};
}

bool exited(char state) { return state == 'Z' || state == 'X'; }

} // namespace

std::vector<EnvMatch> processes_with_env(std::string_view name, const std::set<std::string, std::less<>>& values) {
  std::vector<EnvMatch> out;
  if (values.empty()) return out;
  const std::string key = std::string(name) + "=";
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/proc", ec)) {
    const std::string dir = e.path().filename().string();
    if (!numeric(dir)) continue;
    auto env = util::read_file(e.path() / "environ");
    if (!env) continue; // gone meanwhile, or another user's
    for (std::size_t at = 0; at < env->size();) {
      std::size_t end = env->find('\0', at);
      if (end == std::string::npos) end = env->size();
      const std::string_view entry = std::string_view(*env).substr(at, end - at);
      if (entry.starts_with(key))
        if (auto v = values.find(entry.substr(key.size())); v != values.end()) {
          const int pid = std::stoi(dir);
          auto stat = util::read_file(e.path() / "stat");
          const auto sg = stat ? state_and_group(*stat) : std::nullopt;
          if (sg && !exited(sg->first)) out.push_back({pid, sg->second, *v});
          break;
        }
      at = end + 1;
    }
  }
  return out;
}

bool group_has_live_process(int pgid) {
  if (pgid <= 0 || ::kill(-pgid, 0) != 0) return false; // no process at all: the cheap answer first
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/proc", ec)) {
    if (!numeric(e.path().filename().string())) continue;
    auto stat = util::read_file(e.path() / "stat");
    if (!stat) continue;
    if (const auto sg = state_and_group(*stat); sg && sg->second == pgid && !exited(sg->first)) return true;
  }
  return ec.value() != 0; // /proc unreadable: trust kill()
}

} // namespace harness::worker
