#pragma once
// Waiting for a child's exit on an Asio executor without ever blocking the loop.
//
// Boost.Process v2 (1.81) waits on a pidfd and, once epoll reports it readable, calls a blocking
// waitpid(). That readiness is sometimes reported while the child still runs: in
// tests/integration/test_orchestrate_control.sh the blocking waitpid froze the orchestrator's
// whole loop on a live worker in about one run in six, and a 40-line program (a child reaped, its
// process object destroyed, the next child waited on) froze its loop for the child's whole life in
// 3 runs of 40 on Linux 6.18. We did not pin down the cause. Here readiness is only a hint:
// waitpid(WNOHANG) decides, and the pidfd is taken out of epoll explicitly before it is closed.

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>

#include <functional>
#include <memory>

namespace harness::worker {

class ChildWatch {
public:
  /// Watches child `pid` of this process (it must not be reaped by anyone else).
  ChildWatch(const boost::asio::any_io_executor& executor, int pid);
  ~ChildWatch();
  ChildWatch(const ChildWatch&) = delete;
  ChildWatch& operator=(const ChildWatch&) = delete;

  /// Calls `on_exit` with waitpid's status once the child has exited and been reaped; -1 when
  /// the child cannot be waited for (not ours, or already reaped). Once per watch.
  void async_wait(std::function<void(int status)> on_exit);

private:
  void arm();
  bool try_reap();
  int m_pid;
  std::unique_ptr<boost::asio::posix::stream_descriptor> m_pidfd; ///< null: polling fallback
  boost::asio::steady_timer m_poll;
  std::function<void(int)> m_on_exit;
  std::shared_ptr<bool> m_alive = std::make_shared<bool>(true);
};

} // namespace harness::worker
