#include "harness/orchestrator/plan_watch.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <string_view>
#include <utility>
#include <sys/inotify.h>
#include <unistd.h>

namespace harness::orchestrator {
namespace fs = std::filesystem;

namespace {
// Editors and sed save through a temporary file renamed over the PLAN (IN_MOVED_TO); `git rm`
// deletes, `git checkout` rewrites. IN_MODIFY is left out: the close after the writes says it.
constexpr std::uint32_t mask = IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE;
} // namespace

std::expected<PlanWatch, std::string> PlanWatch::open(const spec::Layout& layout) {
  PlanWatch w;
  w.m_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (w.m_fd < 0) return std::unexpected(fmt::format("inotify_init1: {}", std::strerror(errno)));
  w.add(layout.plans_dir);
  for (const auto& phase : layout.phases) w.add(phase.plans_dir);
  return w;
}

PlanWatch::PlanWatch(PlanWatch&& o) noexcept
    : m_fd(std::exchange(o.m_fd, -1)), m_dirs(std::move(o.m_dirs)), m_last_change(o.m_last_change) {}

PlanWatch& PlanWatch::operator=(PlanWatch&& o) noexcept {
  if (this != &o) {
    if (m_fd >= 0) ::close(m_fd);
    m_fd = std::exchange(o.m_fd, -1);
    m_dirs = std::move(o.m_dirs);
    m_last_change = o.m_last_change;
  }
  return *this;
}

PlanWatch::~PlanWatch() {
  if (m_fd >= 0) ::close(m_fd);
}

void PlanWatch::add(const fs::path& dir) {
  // A directory that does not exist (yet) is not an error: its phase is planned later, and the
  // plans directory's IN_CREATE brings it in.
  const int wd = inotify_add_watch(m_fd, dir.c_str(), mask);
  if (wd >= 0) m_dirs[wd] = dir;
}

bool PlanWatch::changed() {
  bool found = false;
  alignas(inotify_event) char buf[8192];
  for (;;) {
    const ssize_t n = ::read(m_fd, buf, sizeof buf);
    if (n <= 0) break; // EAGAIN: nothing (more) queued
    for (ssize_t off = 0; off < n;) {
      const auto* ev = reinterpret_cast<const inotify_event*>(buf + off);
      off += static_cast<ssize_t>(sizeof(inotify_event) + ev->len);
      if (ev->mask & IN_Q_OVERFLOW) {
        found = true;
        continue;
      }
      const std::string_view name = ev->len ? std::string_view(ev->name) : std::string_view();
      if ((ev->mask & IN_ISDIR) && (ev->mask & (IN_CREATE | IN_MOVED_TO))) {
        if (auto it = m_dirs.find(ev->wd); it != m_dirs.end()) add(it->second / std::string(name));
        found = true; // it may hold plans already (moved in)
        continue;
      }
      if (name.ends_with("PLAN.md")) found = true;
    }
  }
  if (found) m_last_change = std::chrono::steady_clock::now();
  return found;
}

} // namespace harness::orchestrator
