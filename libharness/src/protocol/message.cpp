// Message type names, kinds and envelope helpers.
#include "harness/protocol/message.hpp"

#include <array>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <random>

namespace harness::protocol {
namespace {

constexpr std::array<std::string_view, 14> type_names{
    "session_ready",       "task_started",     "progress_update", "verification_needed", "decision_needed",
    "action_needed",       "task_completed",   "task_failed",     "awaiting_answer",     "assign_task",
    "verification_result", "decision_made",    "action_completed", "abort_task"};

constexpr std::array<std::string_view, 5> kind_names{"researcher", "planner", "plan_checker", "executor", "verifier"};

}  // namespace

std::string_view to_string(MessageType type) { return type_names[static_cast<std::size_t>(type)]; }

std::optional<MessageType> parse_message_type(std::string_view name) {
  for (std::size_t i = 0; i < type_names.size(); ++i)
    if (type_names[i] == name) return static_cast<MessageType>(i);
  return std::nullopt;
}

Direction direction_of(MessageType type) {
  return static_cast<int>(type) <= static_cast<int>(MessageType::awaiting_answer) ? Direction::worker_to_orchestrator
                                                                               : Direction::orchestrator_to_worker;
}

bool expects_response(MessageType type) {
  return type == MessageType::verification_needed || type == MessageType::decision_needed ||
         type == MessageType::action_needed;
}

const std::vector<MessageType>& all_message_types() {
  static const std::vector<MessageType> all = [] {
    std::vector<MessageType> v;
    for (std::size_t i = 0; i < type_names.size(); ++i) v.push_back(static_cast<MessageType>(i));
    return v;
  }();
  return all;
}

std::string_view to_string(AgentKind kind) { return kind_names[static_cast<std::size_t>(kind)]; }

std::optional<AgentKind> parse_agent_kind(std::string_view name) {
  for (std::size_t i = 0; i < kind_names.size(); ++i)
    if (kind_names[i] == name) return static_cast<AgentKind>(i);
  return std::nullopt;
}

AgentKind kind_of(const AgentInput& input) { return static_cast<AgentKind>(input.index()); }

MessageType type_of(const Payload& payload) { return static_cast<MessageType>(payload.index()); }

std::string new_message_id() {
  // One generator per thread seeded from the OS: ids only need to be unique, not secret.
  thread_local std::mt19937_64 gen{[] {
    std::random_device rd;
    return (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
  }()};
  char buf[33];
  std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(gen()),
                static_cast<unsigned long long>(gen()));
  return buf;
}

std::string now_iso8601() {
  const auto now = std::chrono::system_clock::now();
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
  const std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[96];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms % 1000));
  return buf;
}

Envelope make_envelope(std::string session_id, Payload payload) {
  Envelope e;
  e.id = new_message_id();
  e.session_id = std::move(session_id);
  e.created_at = now_iso8601();
  e.payload = std::move(payload);
  return e;
}

}  // namespace harness::protocol
