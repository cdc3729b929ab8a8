#include "harness/worker/child_watch.hpp"

#include <boost/system/system_error.hpp>

#include <cerrno>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

namespace harness::worker {
namespace asio = boost::asio;

ChildWatch::ChildWatch(const asio::any_io_executor& executor, int pid) : m_pid(pid), m_poll(executor) {
  const long fd = ::syscall(SYS_pidfd_open, pid, 0); // close-on-exec by definition
  if (fd < 0) return; // out of descriptors (EMFILE), or an old kernel: polled instead
  try {
    m_pidfd = std::make_unique<asio::posix::stream_descriptor>(executor, static_cast<int>(fd));
  } catch (const boost::system::system_error&) {
    ::close(static_cast<int>(fd)); // epoll would not take it: polled instead, never an exception
  }
}

ChildWatch::~ChildWatch() {
  *m_alive = false;
  if (m_pidfd) {
    // release() takes the descriptor out of epoll (close alone may not: see the header).
    m_pidfd->cancel();
    const int fd = m_pidfd->release();
    ::close(fd);
  }
}

void ChildWatch::async_wait(std::function<void(int)> on_exit) {
  m_on_exit = std::move(on_exit);
  if (!try_reap()) arm();
}

bool ChildWatch::try_reap() {
  int status = 0;
  const int r = ::waitpid(m_pid, &status, WNOHANG);
  if (r == 0) return false; // still running: whatever woke us was not its exit
  if (r < 0 && errno == EINTR) return false;
  auto done = std::move(m_on_exit);
  m_on_exit = nullptr;
  if (done) done(r == m_pid ? status : -1);
  return true;
}

void ChildWatch::arm() {
  std::weak_ptr<bool> alive = m_alive;
  auto check = [this, alive](const boost::system::error_code& e) {
    if (e || alive.expired()) return;
    if (!try_reap()) arm();
  };
  if (m_pidfd) {
    m_pidfd->async_wait(asio::posix::descriptor_base::wait_read, check);
  } else {
    // No pidfd (a kernel before 5.3): look every 50 ms.
    m_poll.expires_after(std::chrono::milliseconds(50));
    m_poll.async_wait(check);
  }
}

} // namespace harness::worker
