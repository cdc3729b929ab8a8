#include "harness/worker/agent_events.hpp"

#include "harness/protocol/codec.hpp"

#include <boost/json.hpp>
#include <fmt/format.h>

#include <algorithm>

namespace harness::worker {
namespace {

namespace json = boost::json;

const json::object* parse_object(std::string_view line, json::value& holder) {
  boost::system::error_code ec;
  holder = json::parse(line, ec);
  if (ec || !holder.is_object()) return nullptr;
  return &holder.as_object();
}

/// HTTP 429 as a number of its own ("error 429", "429 Too Many Requests"), not "4290 tokens".
bool mentions_429(std::string_view text) {
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  for (auto at = text.find("429"); at != std::string_view::npos; at = text.find("429", at + 1)) {
    const bool before = at == 0 || !digit(text[at - 1]);
    const bool after = at + 3 >= text.size() || !digit(text[at + 3]);
    if (before && after) return true;
  }
  return false;
}

bool looks_rate_limited(std::string_view text) {
  for (std::string_view needle : {"rate limit", "rate_limit", "Rate limit", "Too Many Requests", "overloaded"})
    if (text.find(needle) != std::string_view::npos) return true;
  return mentions_429(text);
}

void read_claude_assistant(const json::object& ev, AgentRunFacts& f) {
  auto msg = ev.find("message");
  if (msg == ev.end() || !msg->value().is_object()) return;
  auto content = msg->value().as_object().find("content");
  if (content == msg->value().as_object().end() || !content->value().is_array()) return;
  for (const auto& block : content->value().as_array())
    if (block.is_object() && protocol::string_field(block.as_object(), "type") == "tool_use")
      f.tool_calls.push_back(protocol::string_field(block.as_object(), "name"));
}

void read_claude_result(const json::object& ev, AgentRunFacts& f) {
  // One result ends a run; a second line that looks like one (something else writing to the
  // stream) neither clears an error nor lowers the cost --max-cost counts.
  if (f.saw_result && f.is_error) return;
  f.saw_result = true;
  f.result_subtype = protocol::string_field(ev, "subtype");
  if (auto it = ev.find("is_error"); it != ev.end() && it->value().is_bool()) f.is_error = it->value().as_bool();
  if (auto it = ev.find("num_turns"); it != ev.end() && it->value().is_int64())
    f.num_turns = std::max(f.num_turns, static_cast<int>(it->value().as_int64()));
  if (auto it = ev.find("total_cost_usd"); it != ev.end() && it->value().is_number()) {
    f.cost_usd = f.cost_reported ? std::max(f.cost_usd, it->value().to_number<double>()) : it->value().to_number<double>();
    f.cost_reported = true;
  }
  if (auto it = ev.find("permission_denials"); it != ev.end() && it->value().is_array())
    for (const auto& d : it->value().as_array())
      if (d.is_object()) f.permission_denials.push_back(protocol::string_field(d.as_object(), "tool_name"));
  if (f.is_error) {
    f.error_message = protocol::string_field(ev, "result");
    f.rate_limited = looks_rate_limited(f.error_message);
  }
}

/// The JSON object of one event line, or nullptr for a blank line (ignored) or garbage (counted).
const json::object* event_of(std::string_view line, json::value& holder, AgentRunFacts& facts) {
  if (line.find_first_not_of(" \t\r") == std::string_view::npos) return nullptr;
  const json::object* ev = parse_object(line, holder);
  if (!ev) ++facts.non_json_lines;
  return ev;
}

} // namespace

void ClaudeStreamReader::feed_line(std::string_view line) {
  json::value holder;
  const json::object* ev = event_of(line, holder, m_facts);
  if (!ev) return;
  const std::string type = protocol::string_field(*ev, "type");
  if (type == "system" && protocol::string_field(*ev, "subtype") == "init") {
    m_facts.saw_init = true;
    if (auto it = ev->find("mcp_servers"); it != ev->end() && it->value().is_array())
      for (const auto& s : it->value().as_array())
        if (s.is_object() && protocol::string_field(s.as_object(), "status") != "connected")
          m_facts.mcp_servers_failed.push_back(protocol::string_field(s.as_object(), "name") + ": " + protocol::string_field(s.as_object(), "status"));
  } else if (type == "assistant") {
    read_claude_assistant(*ev, m_facts);
  } else if (type == "result") {
    read_claude_result(*ev, m_facts);
  }
}

void CodexEventReader::feed_line(std::string_view line) {
  json::value holder;
  const json::object* ev = event_of(line, holder, m_facts);
  if (!ev) return;
  const std::string type = protocol::string_field(*ev, "type");
  if (type == "thread.started") {
    m_facts.saw_init = true;
  } else if (type == "turn.started") {
    ++m_facts.num_turns;
  } else if (type == "item.completed" || type == "item.started") {
    auto item = ev->find("item");
    if (item == ev->end() || !item->value().is_object()) return;
    const auto& it = item->value().as_object();
    if (type == "item.completed" && protocol::string_field(it, "type") == "mcp_tool_call") {
      m_facts.tool_calls.push_back(protocol::string_field(it, "server") + "." + protocol::string_field(it, "tool"));
      if (protocol::string_field(it, "status") == "failed") m_facts.failed_tool_calls.push_back(protocol::string_field(it, "server") + "." + protocol::string_field(it, "tool"));
    }
  } else if (type == "turn.completed") {
    m_facts.saw_result = true;
  } else if (type == "error") {
    // "Reconnecting... 2/5" and the like: remembered, but only a failed turn ends the run, and
    // only a failed turn's error says whether it was a rate limit (a retried 429 is not one).
    m_facts.error_message = protocol::string_field(*ev, "message");
  } else if (type == "turn.failed") {
    m_facts.saw_result = true;
    m_facts.is_error = true;
    auto err = ev->find("error");
    m_facts.error_message = err != ev->end() && err->value().is_object() ? protocol::string_field(err->value().as_object(), "message")
                                                                          : protocol::string_field(*ev, "message");
    m_facts.rate_limited = looks_rate_limited(m_facts.error_message);
  }
}

std::string describe_usage(const AgentRunFacts& f) {
  const auto turns = fmt::format("{} turn{}", f.num_turns, f.num_turns == 1 ? "" : "s");
  if (!f.cost_reported) return turns + ", cost unknown";
  return fmt::format("{}, ${:.4f}", turns, f.cost_usd);
}

std::optional<std::string> agent_failure(const AgentRunFacts& f) {
  for (const auto& d : f.permission_denials)
    if (d.find("harness") != std::string::npos)
      return fmt::format("the agent was refused the harness tool {}", d);
  for (const auto& s : f.mcp_servers_failed)
    if (s.starts_with("harness:")) return fmt::format("the harness MCP server did not connect ({})", s);
  if (!f.saw_result) return "the agent's event stream ended without a result";
  if (f.is_error) {
    // The Claude CLI flags a lost API connection `is_error` under subtype "success": only a
    // subtype that names an error (error_max_turns, ...) says more than the flag.
    std::string why = "the agent ended with an error";
    if (f.result_subtype.starts_with("error")) why += fmt::format(" ({})", f.result_subtype);
    if (!f.error_message.empty()) why += ": " + f.error_message;
    return why;
  }
  return std::nullopt;
}

} // namespace harness::worker
