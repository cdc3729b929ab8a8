#pragma once
// Internal: one client session's dispatcher (method table, in-flight calls).
#include "harness/mcp/jsonrpc.hpp"
#include "harness/mcp/server.hpp"
#include "session_state.hpp"

#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>

namespace harness::mcp {

/// Answers requests of one session; blocking tool calls run on threads it tracks.
class Session {
 public:
  Session(const Server& server, int out_fd, std::size_t page_size);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  /// Handles one input line (without its newline).
  void handle_line(std::string_view line);
  /// Writes a line-too-long error, with the request's id if `start` (the line's first bytes)
  /// shows it.
  void reject_long_line(std::string_view start);
  /// Cancels every in-flight call and waits until their threads finished.
  void shutdown();
  /// True once writing to the client failed (it went away).
  bool output_closed() const { return m_shared->write_failed.load(); }

 private:
  void handle_request(Request& request);
  void handle_notification(const Notification& note);
  void handle_response(const Response& response);
  std::string dispatch(Request& request);
  std::string initialize(const Request& request);
  std::string call_tool(Request& request);
  std::string list_page(const Request& request, const boost::json::array& all, std::string_view field);
  std::string read_resource(const Request& request);
  std::string get_prompt(const Request& request);
  std::string set_level(const Request& request);
  std::string complete(const Request& request);
  void run_call(const Tool& tool, const std::shared_ptr<CallState>& state, const boost::json::object& args);
  void finish_call(const std::shared_ptr<CallState>& state, const ToolResult& result);

  const Server& m_server;
  std::size_t m_page_size;
  std::shared_ptr<SessionShared> m_shared;
  std::mutex m_calls_mutex;
  std::condition_variable m_calls_cv;
  std::map<std::string, std::shared_ptr<CallState>> m_in_flight;
  std::size_t m_threads = 0;
};

}  // namespace harness::mcp
