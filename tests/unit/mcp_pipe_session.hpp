#pragma once
// Test helper: runs a harness::mcp::Server on a pair of pipes in a thread and exchanges lines.
#include "harness/mcp/server.hpp"

#include <boost/json.hpp>

#include <chrono>
#include <optional>
#include <poll.h>
#include <string>
#include <thread>
#include <unistd.h>

namespace harness::mcp::test {

class PipeSession {
 public:
  explicit PipeSession(const Server& server, ServeOptions options = {}) {
    int to_server[2];
    int from_server[2];
    if (::pipe(to_server) != 0 || ::pipe(from_server) != 0) throw std::runtime_error("pipe failed");
    m_write = to_server[1];
    m_read = from_server[0];
    options.handle_signals = HandleSignals::no;
    m_thread = std::thread([&server, options, in = to_server[0], out = from_server[1]] {
      server.serve(in, out, options);
      ::close(in);
      ::close(out);
    });
  }
  ~PipeSession() {
    close_input();
    if (m_thread.joinable()) m_thread.join();
    ::close(m_read);
  }
  PipeSession(const PipeSession&) = delete;
  PipeSession& operator=(const PipeSession&) = delete;

  void send(const std::string& line) {
    const std::string data = line + "\n";
    REQUIRE(::write(m_write, data.data(), data.size()) == static_cast<ssize_t>(data.size()));
  }
  void send(const boost::json::object& message) { send(boost::json::serialize(message)); }

  /// The next line from the server, or nullopt after `timeout` / EOF.
  std::optional<std::string> read_line(std::chrono::milliseconds timeout = std::chrono::milliseconds(5000)) {
    for (;;) {
      if (auto nl = m_buffer.find('\n'); nl != std::string::npos) {
        std::string line = m_buffer.substr(0, nl);
        m_buffer.erase(0, nl + 1);
        return line;
      }
      pollfd p{m_read, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(timeout.count())) <= 0) return std::nullopt;
      char chunk[65536];
      const ssize_t n = ::read(m_read, chunk, sizeof chunk);
      if (n <= 0) return std::nullopt;
      m_buffer.append(chunk, static_cast<std::size_t>(n));
    }
  }

  /// The next message, parsed; fails the test on timeout.
  boost::json::object read_message(std::chrono::milliseconds timeout = std::chrono::milliseconds(5000)) {
    auto line = read_line(timeout);
    REQUIRE(line.has_value());
    return boost::json::parse(*line).as_object();
  }

  /// Sends a request and returns the first message carrying its id (skipping notifications).
  boost::json::object call(const boost::json::value& id, std::string_view method, boost::json::object params = {}) {
    send(boost::json::object{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}});
    for (;;) {
      boost::json::object msg = read_message();
      if (msg.contains("id") && msg.at("id") == id) return msg;
    }
  }

  void close_input() {
    if (m_write >= 0) ::close(m_write);
    m_write = -1;
  }
  /// Waits for the server thread to end (after close_input()).
  void join() {
    if (m_thread.joinable()) m_thread.join();
  }

 private:
  int m_write = -1;
  int m_read = -1;
  std::string m_buffer;
  std::thread m_thread;
};

}  // namespace harness::mcp::test
