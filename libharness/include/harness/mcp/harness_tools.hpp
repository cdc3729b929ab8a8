#pragma once
// The harness_* tool set: orchestrator side and worker side.
#include "harness/mcp/server.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace harness::mcp {

/// The environment a worker authenticates with (HARNESS_SESSION_ID, HARNESS_TOKEN), and its spec
/// directory (HARNESS_SPEC_DIR; when unset, docs/specs/<the session's spec>).
struct WorkerIdentity {
  std::string session_id;
  std::string token;
  std::string spec_dir = {};
  std::string state_dir = {}; ///< HARNESS_STATE_DIR: a worker's own project, whose checkpoints it may not answer
};

/// What the harness tools work on: the project root and (worker role) the caller's identity.
struct ToolEnvironment {
  std::filesystem::path project;
  WorkerIdentity identity;
};

/// Registers the orchestrator tools (harness_start_session ... harness_mark_phase_verified).
void add_orchestrator_tools(Server& server, const ToolEnvironment& env);

/// Registers the worker tools (harness_worker_get_task, _report, _await, _commit).
void add_worker_tools(Server& server, const ToolEnvironment& env);

/// Name, description and schemas of every harness tool, orchestrator then worker, for tests and
/// documentation (handlers are not callable: they have no project).
std::vector<Tool> harness_tool_catalog();

}  // namespace harness::mcp
