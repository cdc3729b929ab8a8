#pragma once
// What a plan's `checkpoints:` and `autonomous:` ask of a person. A planner marks where a plan
// needs someone; harness must then ask, never run and approve the plan with nobody asked.

#include "harness/spec/plan.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace harness::spec {

/// The kinds of checkpoint a plan can declare.
enum class CheckpointKind {
  verification, ///< a person approves the plan after its checks pass
  decision,     ///< its executor asks a choice (decision_needed) while it works
  action,       ///< its executor asks for something only a person can do (action_needed)
};

/// The kind a `checkpoints:` value names: `verification`, `decision`, `action`, or GSD's
/// `human-verify`, `decision`, `human-action`, each also with GSD's `checkpoint:` prefix. Nullopt
/// for any other value (validate warns, H033; the run ignores it).
std::optional<CheckpointKind> parse_checkpoint_kind(std::string_view value);

/// "verification" | "decision" | "action".
std::string_view to_string(CheckpointKind k);

/// The plan's known checkpoint kinds, in their order, each once.
std::vector<CheckpointKind> checkpoint_kinds(const Plan& p);

/// Whether the plan's executor asked a person anything (a decision, an action, a look) in the run
/// that executed it.
enum class ExecutorAsked { yes, no };

/// Whether the plan's verification waits for a person once its checks pass (a verification
/// checkpoint, which `--yes` approves): it lists a verification checkpoint; it says
/// `autonomous: false`; or it declares a decision or action its executor never asked (the script
/// worker cannot ask), so that a person sees the plan after all.
bool needs_approval(const Plan& p, ExecutorAsked asked);

} // namespace harness::spec
