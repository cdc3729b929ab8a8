#include "harness/mcp/harness_tools.hpp"

namespace harness::mcp {

void add_orchestrator_tools(Server&, const ToolEnvironment&) {}
void add_worker_tools(Server&, const ToolEnvironment&) {}
std::vector<Tool> harness_tool_catalog() { return {}; }

}  // namespace harness::mcp
