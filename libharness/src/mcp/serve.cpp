// The stdio loop: Asio reads input lines and watches SIGINT/SIGTERM; answers go out through
// the session's synchronous line writer.
#include "session.hpp"

// GCC 12 at -O2/-O3 reports a false "potential null pointer dereference" inside Asio's headers.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnull-dereference"
#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/signal_set.hpp>
#pragma GCC diagnostic pop

#include <array>
#include <cerrno>
#include <csignal>
#include <sys/stat.h>
#include <unistd.h>

namespace harness::mcp {
namespace asio = boost::asio;

namespace {

/// How much of an over-long line is searched for the request's id.
constexpr std::size_t k_id_search_bytes = 64 * 1024;

/// Splits incoming bytes into lines, enforcing the length cap.
class LineSplitter {
 public:
  LineSplitter(Session& session, std::size_t cap) : m_session(session), m_cap(cap) {}

  void feed(const char* data, std::size_t size) {
    std::string_view chunk(data, size);
    while (!chunk.empty()) {
      const std::size_t nl = chunk.find('\n');
      const std::string_view part = chunk.substr(0, nl);
      if (!m_discarding) {
        m_line.append(part);
        if (m_line.size() > m_cap) {
          // The id, if the client wrote it first, is in the first bytes; reading on costs time.
          m_session.reject_long_line(std::string_view(m_line).substr(0, k_id_search_bytes));
          m_line.clear();
          m_discarding = true;
        }
      }
      if (nl == std::string_view::npos) return;
      if (!m_discarding) m_session.handle_line(m_line);
      m_line.clear();
      m_discarding = false;
      chunk.remove_prefix(nl + 1);
    }
  }

  /// A final line without a newline still counts at EOF.
  void finish() {
    if (!m_discarding && !m_line.empty()) m_session.handle_line(m_line);
    m_line.clear();
  }

 private:
  Session& m_session;
  std::size_t m_cap;
  std::string m_line;
  bool m_discarding = false;
};

void read_blocking(int in_fd, LineSplitter& splitter, Session& session) {
  std::array<char, 65536> buffer{};
  while (!session.output_closed()) {
    ssize_t n = ::read(in_fd, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    splitter.feed(buffer.data(), static_cast<std::size_t>(n));
  }
}

void read_async(int in_fd, LineSplitter& splitter, Session& session, HandleSignals signals) {
  asio::io_context io;
  asio::posix::stream_descriptor input(io, ::dup(in_fd));
  asio::signal_set stop_signals(io);
  if (signals == HandleSignals::yes) {
    stop_signals.add(SIGINT);
    stop_signals.add(SIGTERM);
    stop_signals.async_wait([&](const boost::system::error_code& ec, int) {
      if (!ec) io.stop();
    });
  }
  std::array<char, 65536> buffer{};
  std::function<void()> read_next = [&] {
    input.async_read_some(asio::buffer(buffer), [&](const boost::system::error_code& ec, std::size_t n) {
      if (ec || session.output_closed()) {
        io.stop();
        return;
      }
      splitter.feed(buffer.data(), n);
      read_next();
    });
  };
  read_next();
  io.run();
}

}  // namespace

int Server::serve(int in_fd, int out_fd, const ServeOptions& options) const {
  std::signal(SIGPIPE, SIG_IGN);  // a vanished client shows as a failed write, not a kill
  Session session(*this, out_fd, options.page_size);
  LineSplitter splitter(session, options.max_line_bytes);
  struct stat st {};
  const bool pollable = ::fstat(in_fd, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) || S_ISCHR(st.st_mode));
  try {
    if (pollable && !(S_ISCHR(st.st_mode) && !::isatty(in_fd))) {
      read_async(in_fd, splitter, session, options.handle_signals);
    } else {
      // Regular files and /dev/null cannot be polled by epoll; read them directly.
      read_blocking(in_fd, splitter, session);
    }
  } catch (const std::exception&) {
    read_blocking(in_fd, splitter, session);
  }
  splitter.finish();
  session.shutdown();
  return 0;
}

}  // namespace harness::mcp
