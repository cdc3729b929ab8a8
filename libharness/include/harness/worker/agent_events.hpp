#pragma once
// Reading an agent CLI's JSON event stream as data: Claude Code's `--output-format stream-json`
// and Codex's `exec --json`. Exit code 0 alone proves nothing (a refused tool still ends with
// success), so the orchestrator judges an attempt on these facts.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace harness::worker {

/// What an agent run showed about itself.
struct AgentRunFacts {
  bool saw_init = false;
  std::vector<std::string> mcp_servers_failed;  ///< "name: status" of servers not connected
  std::vector<std::string> tool_calls;          ///< tool names in call order
  std::vector<std::string> permission_denials;  ///< tool names the CLI refused
  std::vector<std::string> failed_tool_calls;   ///< calls that ran and failed (Codex reports these)
  int num_turns = 0;
  double cost_usd = 0.0;
  bool cost_reported = false;                   ///< the CLI said what it cost (Codex never does)
  bool saw_result = false;                      ///< the final result event arrived
  bool is_error = false;
  std::string result_subtype;                   ///< "success", "error_max_turns", ...
  std::string error_message;
  bool rate_limited = false;
  int non_json_lines = 0;                       ///< garbage on stdout
};

/// Incremental reader of Claude Code stream-json lines.
class ClaudeStreamReader {
public:
  /// Feeds one line of stdout (without the newline).
  void feed_line(std::string_view line);
  const AgentRunFacts& facts() const { return m_facts; }

private:
  AgentRunFacts m_facts;
};

/// Incremental reader of Codex `exec --json` lines.
class CodexEventReader {
public:
  void feed_line(std::string_view line);
  const AgentRunFacts& facts() const { return m_facts; }

private:
  AgentRunFacts m_facts;
};

/// "7 turns, $0.0018" for a finished attempt; "1 turn, cost unknown" when the CLI reports no
/// cost: $0.0000 would read as free.
std::string describe_usage(const AgentRunFacts& facts);

/// Why an attempt with these facts must count as failed even if the process exited 0, or nullopt.
/// A refused harness tool, a harness MCP server that did not connect, an error result, or a
/// stream that never reached its result event all fail the attempt.
std::optional<std::string> agent_failure(const AgentRunFacts& facts);

} // namespace harness::worker
