#pragma once
// The worker <-> orchestrator message protocol (seed 000 Phase 1): a versioned envelope around one
// typed payload per message type. Workers report through harness_worker_report (MCP) or through
// the `.orchestration/sessions/<id>/` files; both end up as the same Envelope in the store.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace harness::protocol {

/// Envelope version written by this build; decoders accept exactly this version.
inline constexpr int protocol_version = 1;

/// Every message type, worker -> orchestrator first, then orchestrator -> worker.
enum class MessageType {
  session_ready,
  task_started,
  progress_update,
  verification_needed,
  decision_needed,
  action_needed,
  task_completed,
  task_failed,
  awaiting_answer,
  assign_task,
  verification_result,
  decision_made,
  action_completed,
  abort_task,
};

/// Who sends a message type.
enum class Direction { worker_to_orchestrator, orchestrator_to_worker };

/// Wire name, e.g. "decision_needed".
std::string_view to_string(MessageType type);
/// The type named `name`; nullopt for unknown names.
std::optional<MessageType> parse_message_type(std::string_view name);
/// Sender of `type`.
Direction direction_of(MessageType type);
/// True for the checkpoint types a worker blocks on (verification/decision/action needed).
bool expects_response(MessageType type);
/// All types in declaration order (for tests and tool schemas).
const std::vector<MessageType>& all_message_types();

// ---- worker -> orchestrator payloads ----

/// The worker process is up and connected.
struct SessionReady {
  std::string adapter;               ///< "claude", "codex", "command", "script", ...
  std::optional<std::int64_t> pid;   ///< the worker's own pid when it knows it
};

/// The worker began its assigned task.
struct TaskStarted {
  std::string task_id;
  int attempt = 1;
};

/// Free-form progress; the counters mirror status.json.
struct ProgressUpdate {
  std::string message;
  std::optional<int> current_task;
  std::optional<int> total_tasks;
};

/// checkpoint:human-verify: something was built and a human must look at it.
struct VerificationNeeded {
  std::string what_built;
  std::vector<std::string> how_to_verify;  ///< steps, in order
  std::optional<std::string> url;
};

/// checkpoint:decision: the worker needs one of `options` chosen.
struct DecisionNeeded {
  std::string question;
  std::vector<std::string> options;
  std::optional<std::string> context;
};

/// checkpoint:human-action: a human must do something the worker cannot (e.g. log in).
struct ActionNeeded {
  std::string action;
  std::string reason;
};

/// The task finished; the orchestrator verifies it next.
struct TaskCompleted {
  std::string summary_path;                ///< relative to the project root
  std::vector<std::string> commits;        ///< oldest first
  std::vector<std::string> files_touched;  ///< relative paths, sorted
  /// check-plans only: "pass" or "revise" (the plans go back to the planner with `findings`).
  std::optional<std::string> verdict;
  std::vector<std::string> findings;       ///< check-plans: what to change, one item each
};

/// Whether a failure may be retried by a new attempt.
enum class Retry { allowed, forbidden };

/// The task failed.
struct TaskFailed {
  std::string error;
  Retry retry = Retry::allowed;
  std::optional<std::string> log_path;
};

/// Written by harness_worker_await (never reported by hand) when it starts to wait for the answer
/// to `message_id`: the orchestrator holds the worker's timeouts for at most `timeout_ms`, which a
/// question the worker went on from no longer does.
struct AwaitingAnswer {
  std::string message_id;
  std::int64_t timeout_ms = 0;
};

// ---- orchestrator -> worker payloads ----

/// Which seed-004 agent an assignment is for.
enum class AgentKind { researcher, planner, plan_checker, executor, verifier };

/// Wire name: "researcher", "planner", "plan_checker", "executor", "verifier".
std::string_view to_string(AgentKind kind);
/// The kind named `name`; nullopt when unknown.
std::optional<AgentKind> parse_agent_kind(std::string_view name);

/// Seed 004 A: phase researcher input.
struct ResearcherInput {
  std::string phase_number;
  std::string phase_name;
  std::string requirements;
  std::string roadmap_context;
  std::optional<std::string> user_decisions;
  std::string current_state;
};

/// Planner mode (seed 004 B; revision after a failed plan check).
enum class PlannerMode { standard, gap_closure, revision };

/// Seed 004 B: planner input.
struct PlannerInput {
  PlannerMode mode = PlannerMode::standard;
  std::string phase_number;
  std::string project_state;
  std::string roadmap;
  std::string requirements;
  std::optional<std::string> context;
  std::optional<std::string> research;
  std::optional<std::string> verification_gaps;  ///< gap_closure only
  std::vector<std::string> revision_issues;       ///< revision only
};

/// Seed 004 C: plan checker input.
struct PlanCheckerInput {
  std::vector<std::string> plans;  ///< plan file contents
  std::string requirements;
  std::optional<std::string> user_decisions;
};

/// Seed 004 D: executor input.
struct ExecutorInput {
  std::string plan_id;
  std::string plan_content;
  std::string project_state;
  std::string config;
  /// Set for a continuation agent after a checkpoint: the answer it resumes with.
  std::optional<std::string> continuation;
};

/// Seed 004 E: phase verifier input.
struct VerifierInput {
  std::string phase_dir;
  std::string phase_goal;
  std::vector<std::string> must_haves;
};

/// The per-kind input; the variant index determines `AgentKind`.
using AgentInput = std::variant<ResearcherInput, PlannerInput, PlanCheckerInput, ExecutorInput, VerifierInput>;

/// Kind of an input.
AgentKind kind_of(const AgentInput& input);

/// Starts (or continues) a task in a worker.
struct AssignTask {
  std::string task_id;
  int attempt = 1;
  AgentInput input;
};

/// Whether a human verification passed.
enum class Verdict { approved, rejected };

/// Answer to verification_needed.
struct VerificationResult {
  Verdict verdict = Verdict::approved;
  std::string feedback;
};

/// Answer to decision_needed.
struct DecisionMade {
  std::string choice;
  std::optional<std::string> note;
};

/// Answer to action_needed.
struct ActionCompleted {
  std::string outcome;
};

/// The orchestrator stops the task.
struct AbortTask {
  std::string reason;
};

/// One payload; the alternative order matches MessageType.
using Payload = std::variant<SessionReady, TaskStarted, ProgressUpdate, VerificationNeeded, DecisionNeeded,
                             ActionNeeded, TaskCompleted, TaskFailed, AwaitingAnswer, AssignTask,
                             VerificationResult, DecisionMade, ActionCompleted, AbortTask>;

/// Type of a payload.
MessageType type_of(const Payload& payload);

/// A message on the wire and in the store.
struct Envelope {
  int v = protocol_version;
  std::string id;          ///< globally unique; re-sending the same id is a no-op (idempotent)
  std::string session_id;
  std::string created_at;  ///< ISO-8601 UTC, e.g. 2026-11-22T23:59:01.123Z
  Payload payload;

  /// The message type (from the payload).
  MessageType type() const { return type_of(payload); }
};

/// A new random message id (32 lowercase hex digits).
std::string new_message_id();
/// Current UTC time as ISO-8601 with milliseconds.
std::string now_iso8601();
/// An envelope with a fresh id and timestamp.
Envelope make_envelope(std::string session_id, Payload payload);

}  // namespace harness::protocol
