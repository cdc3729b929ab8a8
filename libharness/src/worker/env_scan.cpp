#include "harness/worker/env_scan.hpp"

#include "harness/util/atomic_file.hpp"

#include <unistd.h>

#include <filesystem>

namespace harness::worker {
namespace fs = std::filesystem;

std::vector<EnvMatch> processes_with_env(std::string_view name, const std::set<std::string, std::less<>>& values) {
  std::vector<EnvMatch> out;
  if (values.empty()) return out;
  const std::string key = std::string(name) + "=";
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/proc", ec)) {
    const std::string dir = e.path().filename().string();
    if (dir.empty() || dir.find_first_not_of("0123456789") != std::string::npos) continue;
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
          const size_t close = stat ? stat->rfind(')') : std::string::npos;
          const bool zombie =
              close != std::string::npos && close + 2 < stat->size() && ((*stat)[close + 2] == 'Z' || (*stat)[close + 2] == 'X');
          if (stat && !zombie) out.push_back({pid, ::getpgid(pid), *v});
          break;
        }
      at = end + 1;
    }
  }
  return out;
}

} // namespace harness::worker
