#pragma once
// Waiting for a child's exit on an Asio executor without ever blocking the loop.
//
// Boost.Process v2's async_wait ends in a blocking waitpid() once epoll reports its pidfd
// readable. In tests/integration/test_orchestrate_control.sh that waitpid blocked the
// orchestrator's whole loop on a live worker in about one run in six (its exit never came, so
// nothing else ran). We did not pin down where the readiness came from; a stale epoll
// registration is one known way (closing a descriptor does not remove it from epoll while a child
// spawned from another thread still holds a copy, and Asio recycles the state of the closed one).
// Here readiness is only a hint: waitpid(WNOHANG) decides, and the pidfd is taken out of epoll
// explicitly before it is closed.

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
