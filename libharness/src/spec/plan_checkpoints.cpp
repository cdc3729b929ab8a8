#include "harness/spec/plan_checkpoints.hpp"

#include <algorithm>

namespace harness::spec {

std::optional<CheckpointKind> parse_checkpoint_kind(std::string_view value) {
  if (value.starts_with("checkpoint:")) value.remove_prefix(11);
  if (value == "verification" || value == "human-verify") return CheckpointKind::verification;
  if (value == "decision") return CheckpointKind::decision;
  if (value == "action" || value == "human-action") return CheckpointKind::action;
  return std::nullopt;
}

std::string_view to_string(CheckpointKind k) {
  switch (k) {
  case CheckpointKind::verification: return "verification";
  case CheckpointKind::decision: return "decision";
  case CheckpointKind::action: return "action";
  }
  return "verification";
}

std::vector<CheckpointKind> checkpoint_kinds(const Plan& p) {
  std::vector<CheckpointKind> out;
  for (const auto& v : p.checkpoints)
    if (auto k = parse_checkpoint_kind(v); k && std::ranges::find(out, *k) == out.end()) out.push_back(*k);
  return out;
}

bool needs_approval(const Plan& p, ExecutorAsked asked) {
  const auto kinds = checkpoint_kinds(p);
  if (std::ranges::find(kinds, CheckpointKind::verification) != kinds.end() || !p.autonomous) return true;
  return asked == ExecutorAsked::no && !kinds.empty(); // only decision or action left
}

} // namespace harness::spec
