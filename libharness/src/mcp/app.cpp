#include "harness/mcp/app.hpp"

#include "harness/mcp/conformance_fixture.hpp"
#include "harness/mcp/harness_tools.hpp"
#include "harness/util/project_root.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>

namespace harness::mcp {

namespace {

constexpr std::string_view k_instructions =
    "harness orchestrates AI coding-agent sessions for a spec-driven project. "
    "Orchestrator tools (harness_*) read and change sessions and state; worker tools "
    "(harness_worker_*) let a worker report progress, wait for the orchestrator's answer and commit "
    "its plan's files safely beside the other workers.";

Server filtered(Server full, const std::vector<std::string>& keep) {
  if (keep.empty()) return full;
  Server out(full.info());
  for (const Tool& tool : full.tools()) {
    if (std::find(keep.begin(), keep.end(), tool.name) != keep.end()) out.add_tool(tool);
  }
  return out;
}

}  // namespace

WorkerIdentity identity_from_environment() {
  WorkerIdentity id;
  if (const char* s = std::getenv("HARNESS_SESSION_ID")) id.session_id = s;
  if (const char* t = std::getenv("HARNESS_TOKEN")) id.token = t;
  if (const char* d = std::getenv("HARNESS_SPEC_DIR")) id.spec_dir = d;
  if (const char* d = std::getenv("HARNESS_STATE_DIR")) id.state_dir = d;
  return id;
}

Server build_server(const McpOptions& options, const WorkerIdentity& identity) {
  ServerInfo info;
  info.title = "harness";
  if (options.role == Role::conformance_fixture) {
    info.instructions = "Conformance fixture of harness-mcp.";
    Server server(info);
    add_conformance_fixture(server);
    return server;
  }
  info.instructions = std::string(k_instructions);
  Server server(info);
  // Claude Code starts the server in the directory it runs in, which may be below the project.
  ToolEnvironment env{options.project.empty() ? util::find_project_root(".").value_or(".") : options.project, identity};
  if (options.role == Role::worker) {
    add_worker_tools(server, env);
  } else {
    add_orchestrator_tools(server, env);
  }
  return filtered(std::move(server), options.tools);
}

std::optional<std::string> unusable_options(const McpOptions& options, const WorkerIdentity& identity) {
  std::error_code ec;
  // A mistyped path would serve an empty project ("nothing pending") and create it on a write.
  if (!options.project.empty() && !std::filesystem::is_directory(options.project, ec))
    return "--project " + options.project.string() + " is not a directory";
  if (options.tools.empty()) return std::nullopt;
  McpOptions all = options;
  all.tools.clear();
  const Server full = build_server(all, identity);
  std::string unknown, known;
  for (const auto& name : options.tools)
    if (std::ranges::none_of(full.tools(), [&](const Tool& t) { return t.name == name; }))
      unknown += (unknown.empty() ? "" : ", ") + name;
  if (unknown.empty()) return std::nullopt;
  for (const Tool& t : full.tools()) known += (known.empty() ? "" : ", ") + t.name;
  // A typo in a client's config must not make a tool vanish without a word.
  return "--tools names no tool of this server: " + unknown + " (it has " + known + ")";
}

int run_server(const McpOptions& options, int in_fd, int out_fd) {
  if (auto why = unusable_options(options, identity_from_environment())) {
    std::cerr << "harness-mcp: " << *why << "\n";
    return 2;
  }
  const Server server = build_server(options, identity_from_environment());
  ServeOptions serve_options;
  serve_options.page_size = options.page_size;
  return server.serve(in_fd, out_fd, serve_options);
}

}  // namespace harness::mcp
