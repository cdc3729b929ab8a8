#pragma once
// What harness-mcp's main calls: build the server for the options and serve stdio.
#include "harness/mcp/harness_tools.hpp"
#include "harness/mcp/options.hpp"
#include "harness/mcp/server.hpp"

#include <map>
#include <optional>
#include <string>

namespace harness::mcp {

/// Builds the server for `options` (tools filtered by options.tools); `identity` is used by the
/// worker role only.
Server build_server(const McpOptions& options, const WorkerIdentity& identity);

/// Why the server cannot serve `options` (exit 2): a --project that is not a directory, a
/// --tools name no tool of its role has. Nullopt when it can.
std::optional<std::string> unusable_options(const McpOptions& options, const WorkerIdentity& identity);

/// Reads the worker identity from the process environment.
WorkerIdentity identity_from_environment();

/// Builds the server and serves `in_fd`/`out_fd` until EOF or a signal; the exit code.
int run_server(const McpOptions& options, int in_fd, int out_fd);

}  // namespace harness::mcp
