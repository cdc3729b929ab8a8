#pragma once
// One pipe that receives a child's stdout and stderr together. Boost.Process 1.81 drops stderr
// when both are bound to the same asio pipe object, so the child gets the raw write end twice.

#include <boost/asio/io_context.hpp>
#include <boost/asio/readable_pipe.hpp>

#include <expected>
#include <string>

namespace harness::worker {

struct MergedPipe {
  boost::asio::readable_pipe read_end; ///< the parent reads here
  int write_end = -1;                  ///< pass as stdout and stderr, then close_write_end()
  void close_write_end();
  ~MergedPipe() { close_write_end(); }
};

/// Creates the pipe (both ends close-on-exec in this process; the child's dup2'd copies are not).
std::expected<std::unique_ptr<MergedPipe>, std::string> make_merged_pipe(boost::asio::io_context& ctx);

} // namespace harness::worker
