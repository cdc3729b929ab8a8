#pragma once
// Noticing PLAN files written, moved or removed under a spec's plans directory while a run goes
// on, without reading them: inotify on the plans directory and each phase directory. The run asks
// changed() before it dispatches (one read(2) that finds nothing, usually) and reads the spec
// again only when something happened.

#include "harness/spec/layout.hpp"

#include <chrono>
#include <expected>
#include <filesystem>
#include <map>
#include <string>

namespace harness::orchestrator {

class PlanWatch {
public:
  /// Watches `layout.plans_dir` (for phase directories added) and each phase's plans directory.
  static std::expected<PlanWatch, std::string> open(const spec::Layout& layout);
  PlanWatch(PlanWatch&& o) noexcept;
  PlanWatch& operator=(PlanWatch&& o) noexcept;
  PlanWatch(const PlanWatch&) = delete;
  PlanWatch& operator=(const PlanWatch&) = delete;
  ~PlanWatch();

  /// Without waiting: true when, since the last call, a `*PLAN.md` file was written (closed after
  /// writing), moved in or out, created or deleted, or a directory appeared (watched from then
  /// on), or the kernel's queue overflowed.
  bool changed();
  /// When changed() last found something (steady clock): a burst of writes is read once it ends.
  std::chrono::steady_clock::time_point last_change() const { return m_last_change; }

private:
  PlanWatch() = default;
  void add(const std::filesystem::path& dir);
  int m_fd = -1;
  std::map<int, std::filesystem::path> m_dirs; ///< watch descriptor -> directory
  std::chrono::steady_clock::time_point m_last_change{};
};

} // namespace harness::orchestrator
