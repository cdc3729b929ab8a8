#include "harness/worker/proc_scan.hpp"

#include "harness/util/atomic_file.hpp"
#include "harness/util/proc_stat.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <optional>

namespace harness::worker {
namespace fs = std::filesystem;
namespace {

bool numeric(const std::string& name) { return !name.empty() && name.find_first_not_of("0123456789") == std::string::npos; }

} // namespace

std::vector<EnvMatch> processes_with_env(std::string_view name, const std::set<std::string, std::less<>>& values,
                                         const std::optional<EnvPath>& scope) {
  std::vector<EnvMatch> out;
  if (values.empty()) return out;
  const std::string key = std::string(name) + "=";
  const std::string scope_key = scope ? std::string(scope->name) + "=" : std::string();
  std::error_code ec;
  const fs::path scope_path = scope ? fs::weakly_canonical(scope->value, ec) : fs::path();
  for (const auto& e : fs::directory_iterator("/proc", ec)) {
    const std::string dir = e.path().filename().string();
    if (!numeric(dir)) continue;
    auto env = util::read_file(e.path() / "environ");
    if (!env) continue; // gone meanwhile, or another user's
    const std::string* value = nullptr;
    std::optional<std::string_view> scope_value;
    for (std::size_t at = 0; at < env->size();) {
      std::size_t end = env->find('\0', at);
      if (end == std::string::npos) end = env->size();
      const std::string_view entry = std::string_view(*env).substr(at, end - at);
      if (entry.starts_with(key)) {
        auto v = values.find(entry.substr(key.size()));
        if (v == values.end()) break; // another session's
        value = &*v;
      } else if (scope && entry.starts_with(scope_key)) {
        scope_value = entry.substr(scope_key.size());
      }
      at = end + 1;
    }
    if (!value) continue;
    if (scope) {
      std::error_code path_ec;
      if (!scope_value || fs::weakly_canonical(fs::path(*scope_value), path_ec) != scope_path) continue;
    }
    const int pid = std::stoi(dir);
    if (const auto stat = util::read_proc_stat(pid); stat && !stat->exited()) out.push_back({pid, stat->pgrp, *value});
  }
  return out;
}

std::string process_command(int pid) {
  auto text = util::read_file(fs::path("/proc") / std::to_string(pid) / "cmdline");
  if (!text) return {};
  std::string out = std::move(*text);
  while (!out.empty() && out.back() == '\0') out.pop_back();
  std::ranges::replace(out, '\0', ' ');
  return out;
}

bool group_has_live_process(int pgid) {
  if (pgid <= 0 || ::kill(-pgid, 0) != 0) return false; // no process at all: the cheap answer first
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/proc", ec)) {
    if (!numeric(e.path().filename().string())) continue;
    if (const auto stat = util::read_proc_stat(std::stoll(e.path().filename().string())); stat && stat->pgrp == pgid && !stat->exited())
      return true;
  }
  return ec.value() != 0; // /proc unreadable: trust kill()
}

} // namespace harness::worker
