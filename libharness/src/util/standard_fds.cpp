#include "harness/util/standard_fds.hpp"

#include <cerrno>
#include <fcntl.h>
#include <unistd.h>

namespace harness::util {

void hold_closed_standard_fds() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    // open() returns the lowest free descriptor, which is this one: those below it are open.
    const int got = ::open("/dev/null", O_RDONLY); // no O_CLOEXEC: a child inherits the same hold
    if (got >= 0 && got != fd) ::close(got);
  }
}

} // namespace harness::util
