#pragma once
// The reference fixture that @modelcontextprotocol/conformance's server scenarios call by name.
#include "harness/mcp/server.hpp"

namespace harness::mcp {

/// Registers the fixture tools (test_simple_text, test_tool_with_progress, ...), resources
/// (test://static-text, ...) and prompts (test_simple_prompt, ...) on `server`.
void add_conformance_fixture(Server& server);

}  // namespace harness::mcp
