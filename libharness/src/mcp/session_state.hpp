#pragma once
// Internal state shared between the reader and the threads of blocking tool calls.
#include "harness/mcp/server.hpp"

#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <string>

namespace harness::mcp {

/// The output side and session-wide settings; shared by every call of one session.
struct SessionShared {
  int out_fd = -1;
  std::mutex write_mutex;
  std::atomic<bool> write_failed{false};
  std::atomic<int> log_level{static_cast<int>(LogLevel::info)};
  std::mutex caps_mutex;
  boost::json::object client_capabilities;

  /// One answer awaited from the client.
  struct Pending {
    bool done = false;
    boost::json::value result;
    boost::json::value error;
  };
  std::mutex pending_mutex;
  std::condition_variable pending_cv;
  std::map<std::string, Pending> pending;
  std::int64_t next_request_id = 1;

  /// Writes one line (plus '\n') atomically with respect to other writers.
  void write_line(const std::string& line);
};

/// One in-flight tools/call.
struct CallState {
  std::shared_ptr<SessionShared> shared;
  boost::json::value request_id;
  boost::json::value progress_token;  ///< null when the client asked for no progress
  std::mutex mutex;
  std::condition_variable cv;
  bool cancelled = false;

  /// Marks the call cancelled and wakes anything waiting in it.
  void cancel();
};

/// The map key of a JSON-RPC id: its compact JSON, so "1" and 1 stay distinct.
std::string id_key(const boost::json::value& id);

}  // namespace harness::mcp
