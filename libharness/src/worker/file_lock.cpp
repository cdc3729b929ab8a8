#include "harness/worker/file_lock.hpp"

#include "harness/util/private_directory.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

namespace harness::worker {

FileLock::FileLock(const std::filesystem::path& file) {
  const std::error_code made = util::create_state_directory(file.parent_path()); // harness's state
  m_fd = ::open(file.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644);
  if (m_fd < 0) {
    const int open_errno = errno;
    // The directory's failure names the cause (a part of the path that is a file); the open's
    // ENOENT or ENOTDIR alone would not.
    const auto part = made ? util::blocking_part(file.parent_path()) : std::string();
    m_error = made ? fmt::format("cannot make {}: {}", file.parent_path().string(), part.empty() ? made.message() : part)
                   : fmt::format("cannot open {}: {}", file.string(), std::strerror(open_errno));
    return;
  }
  if (::flock(m_fd, LOCK_EX | LOCK_NB) == 0) return;
  m_waited = true;
  while (::flock(m_fd, LOCK_EX) != 0 && errno == EINTR) {
  }
}

bool FileLock::held(const std::filesystem::path& file) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  // flock locks belong to the open file: this one's try fails while any other holds it.
  const bool busy = ::flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  ::close(fd); // releases the lock if the try took it
  return busy;
}

std::string FileLock::content() const {
  std::string out(256, '\0');
  const ssize_t n = m_fd < 0 ? -1 : ::pread(m_fd, out.data(), out.size(), 0);
  out.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
  return out;
}

void FileLock::set_content(std::string_view text) {
  if (m_fd < 0) return;
  if (::ftruncate(m_fd, 0) != 0) return;
  (void)!::pwrite(m_fd, text.data(), text.size(), 0);
}

FileLock::~FileLock() {
  if (m_fd >= 0) ::close(m_fd);
}

} // namespace harness::worker
