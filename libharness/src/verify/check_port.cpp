#include "check_port.hpp"

#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace harness::verify::detail {

namespace {

void replace_in(std::string& s, const std::string& port) {
  for (size_t at = s.find(spec::k_port_placeholder); at != std::string::npos; at = s.find(spec::k_port_placeholder, at + port.size()))
    s.replace(at, spec::k_port_placeholder.size(), port);
}

} // namespace

spec::Check with_port(spec::Check c, int port) {
  const std::string p = std::to_string(port);
  replace_in(c.url, p);
  replace_in(c.endpoint, p);
  replace_in(c.start.text, p);
  if (c.ready_url) replace_in(*c.ready_url, p);
  if (c.expects.url) replace_in(*c.expects.url, p);
  for (auto& a : c.start.argv) replace_in(a, p);
  for (auto& s : c.steps) replace_in(s.value, p);
  return c;
}

std::expected<int, std::string> free_local_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return std::unexpected(std::string("socket: ") + std::strerror(errno));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0; // the kernel picks
  socklen_t len = sizeof addr;
  int port = -1;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0)
    port = ntohs(addr.sin_port);
  const int err = errno;
  ::close(fd);
  if (port <= 0) return std::unexpected(std::string("no free port on 127.0.0.1: ") + std::strerror(err));
  return port;
}

} // namespace harness::verify::detail
