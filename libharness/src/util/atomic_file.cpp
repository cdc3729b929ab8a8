#include "harness/util/atomic_file.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

namespace harness::util {
namespace {

/// "<target>: <step>: <cause>". The temporary file is not named: it is gone when this is read,
/// and its random name would set apart failures that are the same.
SystemError errno_text(const std::filesystem::path& target, std::string_view step) {
  const int error = errno;
  return {fmt::format("{}: {}: {}", target.string(), step, std::strerror(error)), error};
}

bool write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

/// The repository holding `path` as it is spelled (its nearest ancestor with a `.git`, links on
/// the way not followed), when `path` lies in a spec directory of it (a directory holding SPEC.md,
/// or GSD's `.planning`); empty otherwise.
std::filesystem::path spec_repository(const std::filesystem::path& path) {
  std::error_code ec;
  bool in_spec = false;
  for (auto dir = path.parent_path(); !dir.empty(); dir = dir.parent_path()) {
    if (std::filesystem::exists(dir / ".git", ec)) return in_spec ? dir : std::filesystem::path();
    in_spec = in_spec || dir.filename() == ".planning" || std::filesystem::exists(dir / "SPEC.md", ec);
    if (dir == dir.parent_path()) break;
  }
  return {};
}

/// Why a write to `spelled` must not land where its links lead, or empty: a spec's
/// document whose link, the final name or a directory on the way, leads out of the repository (a
/// worker that replaced STATUS.md by a link to ~/.bashrc mid-run; validate refuses such links,
/// H038, but only before a run). Links elsewhere (a dotfile-managed .claude/, .orchestration/ kept
/// outside the checkout) are the user's and followed.
std::string leads_outside(const std::filesystem::path& spelled) {
  const auto repository = spec_repository(spelled);
  if (repository.empty()) return {}; // most writes (.orchestration/, outside a spec): no more to look at
  std::error_code ec;
  const auto real = std::filesystem::weakly_canonical(spelled, ec);
  if (ec) return {};
  const auto real_repository = std::filesystem::weakly_canonical(repository, ec);
  if (ec) return {};
  const auto rel = real.lexically_relative(real_repository);
  if (!rel.empty() && *rel.begin() != "..") return {};
  return fmt::format("{}: not written: a symbolic link leads this spec document to {}, outside the repository {} "
                     "(validate refuses such links, H038: a worker may have made it)",
                     spelled.string(), real.string(), repository.string());
}

/// mkstemp's template for a file beside `path` in `dir`: `.<name>.tmp-XXXXXX`, the one pattern
/// remove_stale_temp_files removes (write_file_atomic's temporary files, keep_aside's names).
std::string temp_template(const std::filesystem::path& dir, const std::filesystem::path& path) {
  return (dir / ("." + path.filename().string() + ".tmp-XXXXXX")).string();
}

/// The process's umask, read without changing it (umask(2) can only set it, and setting it back
/// races with other threads creating files): /proc/self/status says it since Linux 4.7. 022 when
/// it cannot be read.
mode_t process_umask() {
  const int fd = ::open("/proc/self/status", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 022;
  char buf[4096];
  const ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0) return 022;
  const std::string_view status(buf, static_cast<std::size_t>(n));
  const auto at = status.find("\nUmask:\t");
  if (at == std::string_view::npos) return 022;
  mode_t mask = 0;
  for (std::size_t i = at + 8; i < status.size() && status[i] >= '0' && status[i] <= '7'; ++i) mask = static_cast<mode_t>(mask * 8 + static_cast<mode_t>(status[i] - '0'));
  return mask & 0777;
}

} // namespace

std::expected<void, std::string> write_file_atomic(const std::filesystem::path& path, std::string_view content) {
  if (auto w = write_file_atomic_or_errno(path, content); !w) return std::unexpected(std::move(w.error().message));
  return {};
}

std::expected<void, SystemError> write_file_atomic_or_errno(const std::filesystem::path& link_or_path,
                                                            std::string_view content) {
  std::error_code ec;
  // A symbolic link stays one: the file it points to is replaced (a rename onto the link would
  // turn a shared ROADMAP.md into a copy, and git would record the type change).
  std::filesystem::path path = link_or_path;
  if (std::filesystem::is_symlink(link_or_path, ec))
    if (auto target = std::filesystem::weakly_canonical(link_or_path, ec); !ec) path = target;
  if (auto why = leads_outside(std::filesystem::absolute(link_or_path, ec).lexically_normal()); !why.empty())
    return std::unexpected(SystemError{std::move(why), EPERM});
  // An existing file keeps its permissions (a script stays executable, a private file private).
  struct stat old {};
  const mode_t mode = ::stat(path.c_str(), &old) == 0 ? (old.st_mode & 07777) : (0666 & ~process_umask());
  const auto dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  std::filesystem::create_directories(dir, ec);
  if (ec)
    return std::unexpected(SystemError{fmt::format("{}: create directory {}: {}", link_or_path.string(), dir.string(), ec.message()),
                                       ec.category() == std::generic_category() || ec.category() == std::system_category() ? ec.value() : 0});

  std::string tmpl = temp_template(dir, path);
  int fd = ::mkstemp(tmpl.data());
  if (fd < 0) return std::unexpected(errno_text(link_or_path, "create a temporary file beside it"));
  const std::filesystem::path tmp = tmpl;

  auto fail = [&](std::string_view step) {
    SystemError msg = errno_text(link_or_path, step);
    ::close(fd);
    ::unlink(tmp.c_str());
    return std::unexpected(msg);
  };
  if (::fchmod(fd, mode) != 0) return fail("chmod");
  if (!write_all(fd, content)) return fail("write");
  if (::fsync(fd) != 0) return fail("fsync");
  if (::close(fd) != 0) {
    SystemError msg = errno_text(link_or_path, "close");
    ::unlink(tmp.c_str());
    return std::unexpected(msg);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    SystemError msg = errno_text(link_or_path, "rename");
    ::unlink(tmp.c_str());
    return std::unexpected(msg);
  }
  // The rename is durable only once the directory entry is on disk.
  int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return {};
}

std::expected<std::filesystem::path, std::string> keep_aside(const std::filesystem::path& path) {
  const auto dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  for (int attempt = 0; attempt < 8; ++attempt) {
    // mkstemp picks a free name of write_file_atomic's pattern; the link takes it over.
    std::string tmpl = temp_template(dir, path);
    const int fd = ::mkstemp(tmpl.data());
    if (fd < 0) return std::unexpected(errno_text(path, "create a name beside it").message);
    ::close(fd);
    ::unlink(tmpl.c_str());
    if (::link(path.c_str(), tmpl.c_str()) == 0) return std::filesystem::path(tmpl);
    if (errno != EEXIST) return std::unexpected(errno_text(path, "link").message);
  }
  return std::unexpected(fmt::format("{}: link: no free name beside it", path.string()));
}

std::expected<std::string, std::string> read_file(const std::filesystem::path& path) {
  // read(2), not a stream: a read that fails part-way (EIO, or ESRCH from a /proc file whose
  // process just ended) made libstdc++'s filebuf throw out of `ss << rdbuf()`.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::unexpected(fmt::format("cannot read {}: {}", path.string(), std::strerror(errno)));
  std::string out;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      out.append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      return std::unexpected(fmt::format("cannot read {}: {}", path.string(), std::strerror(err)));
    }
    break;
  }
  ::close(fd);
  return out;
}

int remove_stale_temp_files(const std::filesystem::path& dir) {
  int removed = 0;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec); !ec && it != std::filesystem::recursive_directory_iterator();
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const size_t at = name.rfind(".tmp-");
    // Exactly write_file_atomic's pattern: a leading dot, ".tmp-" and mkstemp's six characters.
    if (name.size() > 1 && name[0] == '.' && at != std::string::npos && at > 1 && name.size() - at == 11 &&
        it->is_regular_file(ec)) {
      std::error_code rm;
      if (std::filesystem::remove(it->path(), rm)) ++removed;
    }
  }
  return removed;
}

} // namespace harness::util
