// harness-mcp: the MCP server over stdio. Being built (issue 5); until then it says so and fails.
#include <iostream>

int main() {
  std::cerr << "harness-mcp: not built yet in this revision\n";
  return 1;
}
