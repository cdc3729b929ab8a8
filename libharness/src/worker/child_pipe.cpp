#include "harness/worker/child_pipe.hpp"

#include <boost/system/system_error.hpp>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace harness::worker {

void ChildPipe::close_write_end() {
  if (write_end >= 0) ::close(write_end);
  write_end = -1;
}

std::expected<std::unique_ptr<ChildPipe>, util::SystemError> make_child_pipe(boost::asio::io_context& ctx) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    const int error = errno;
    return std::unexpected(util::SystemError{std::string("pipe: ") + std::strerror(error), error});
  }
  try {
    return std::unique_ptr<ChildPipe>(new ChildPipe{boost::asio::readable_pipe(ctx, fds[0]), fds[1]});
  } catch (const boost::system::system_error& e) {
    // The first descriptor of a fresh io_context opens its epoll instance, eventfd and timerfd:
    // out of descriptors (EMFILE) that throws, and an exception out of a git call ended the run.
    ::close(fds[0]);
    ::close(fds[1]);
    const bool system = e.code().category() == boost::system::system_category();
    return std::unexpected(util::SystemError{"pipe: " + e.code().message(), system ? e.code().value() : 0});
  }
}

} // namespace harness::worker
