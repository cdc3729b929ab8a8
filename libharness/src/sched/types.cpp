#include "harness/sched/types.hpp"

#include <array>

namespace harness::sched {
namespace {

// One table per enum: the index is the enumerator's value, so to_string and parse stay in step.
constexpr std::array<std::string_view, task_kind_count> kind_names{
    "research", "plan", "check-plans", "reconcile", "execute", "verify-plan",
    "verify-phase", "plan-gaps", "admin", "final"};
constexpr std::array<std::string_view, 6> failure_names{
    "crashed", "timed_out", "verification_failed", "rate_limited", "refused", "no_retry"};
constexpr std::array<std::string_view, 4> verdict_names{"passed", "revise", "gaps_found", "human_needed"};
constexpr std::array<std::string_view, 2> answer_names{"approved", "refused"};
constexpr std::array<std::string_view, 3> policy_names{"graph", "waves", "serial"};
constexpr std::array<std::string_view, 10> event_names{
    "begin",           "succeeded", "failed",    "checkpoint", "answered", "retry_due",
    "admin_requested", "requested", "escalated", "plans_edited"};
constexpr std::array<std::string_view, 7> action_names{
    "start", "resume", "ask_human", "defer", "blocked", "finished", "rejected"};

template <typename E, std::size_t N>
std::optional<E> parse_in(const std::array<std::string_view, N>& names, std::string_view s) {
  for (std::size_t i = 0; i < N; ++i)
    if (names[i] == s) return static_cast<E>(i);
  return std::nullopt;
}

} // namespace

WorkPlan with_frontmatter(const WorkPlan& known, WorkPlan edited) {
  auto keep = [&](auto... field) { ((edited.*field = known.*field), ...); };
  keep(&WorkPlan::id, &WorkPlan::phase, &WorkPlan::executed, &WorkPlan::has_deviations, &WorkPlan::verified,
       &WorkPlan::reconciled);
  return edited;
}

Event make_event(EventType type, std::string task) {
  Event e;
  e.type = type;
  e.task = std::move(task);
  return e;
}

std::string_view to_string(TaskKind k) { return kind_names[static_cast<std::size_t>(k)]; }
std::optional<TaskKind> parse_task_kind(std::string_view s) { return parse_in<TaskKind>(kind_names, s); }

int priority_class(TaskKind k) {
  switch (k) {
  case TaskKind::verify_plan:
  case TaskKind::verify_phase:
  case TaskKind::verify_final: return 0;
  case TaskKind::reconcile: return 1;
  case TaskKind::execute: return 2;
  case TaskKind::research:
  case TaskKind::plan:
  case TaskKind::check_plans:
  case TaskKind::plan_gaps: return 3;
  case TaskKind::admin: return 4;
  }
  return 4;
}

std::string_view to_string(FailureClass f) { return failure_names[static_cast<std::size_t>(f)]; }
std::optional<FailureClass> parse_failure_class(std::string_view s) {
  return parse_in<FailureClass>(failure_names, s);
}
std::string_view to_string(Verdict v) { return verdict_names[static_cast<std::size_t>(v)]; }
std::optional<Verdict> parse_verdict(std::string_view s) { return parse_in<Verdict>(verdict_names, s); }
std::string_view to_string(Answer a) { return answer_names[static_cast<std::size_t>(a)]; }
std::optional<Answer> parse_answer(std::string_view s) { return parse_in<Answer>(answer_names, s); }
std::string_view to_string(Policy p) { return policy_names[static_cast<std::size_t>(p)]; }
std::optional<Policy> parse_policy(std::string_view s) { return parse_in<Policy>(policy_names, s); }
std::string_view to_string(EventType t) { return event_names[static_cast<std::size_t>(t)]; }
std::optional<EventType> parse_event_type(std::string_view s) { return parse_in<EventType>(event_names, s); }
std::string_view to_string(ActionType t) { return action_names[static_cast<std::size_t>(t)]; }
std::optional<ActionType> parse_action_type(std::string_view s) {
  return parse_in<ActionType>(action_names, s);
}

} // namespace harness::sched
