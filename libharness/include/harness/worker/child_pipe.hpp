#pragma once
// A pipe a child process writes into: its raw write end goes to the child as stdout, stderr, or
// both at once (a merged log). Raw, because Boost.Process 1.81 drops stderr when both streams are
// bound to the same asio pipe object.

#include "harness/util/system_error.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/readable_pipe.hpp>

#include <expected>
#include <string>

namespace harness::worker {

struct ChildPipe {
  boost::asio::readable_pipe read_end; ///< the parent reads here
  int write_end = -1;                  ///< pass as stdout and/or stderr, then close_write_end()
  void close_write_end();
  ~ChildPipe() { close_write_end(); }
};

/// Creates the pipe (both ends close-on-exec in this process; the child's dup2'd copies are not).
/// Out of descriptors (EMFILE, ENFILE), whether for the pipe or for `ctx`'s first I/O object, it
/// returns the reason ("pipe: Too many open files") and its errno; it never throws.
std::expected<std::unique_ptr<ChildPipe>, util::SystemError> make_child_pipe(boost::asio::io_context& ctx);

} // namespace harness::worker
