// harness-mcp: the MCP server over stdio. Flags → library → serve; nothing else here.
#include "harness/mcp/app.hpp"
#include "harness/util/standard_fds.hpp"

#include <iostream>
#include <string>
#include <unistd.h>
#include <vector>

int main(int argc, char** argv) {
  harness::util::hold_closed_standard_fds();
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
    std::cout << harness::mcp::usage();
    return 0;
  }
  auto options = harness::mcp::parse_options(args);
  if (!options) {
    std::cerr << "harness-mcp: " << options.error() << "\n" << harness::mcp::usage();
    return 2;
  }
  return harness::mcp::run_server(*options, STDIN_FILENO, STDOUT_FILENO);
}
