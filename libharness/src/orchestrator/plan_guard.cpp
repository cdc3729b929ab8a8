#include "harness/orchestrator/plan_guard.hpp"

#include "harness/util/atomic_file.hpp"
#include "harness/util/discarded_dir.hpp"
#include "harness/util/private_directory.hpp"

#include <fmt/format.h>

namespace harness::orchestrator {
namespace fs = std::filesystem;
using sched::TaskKind;

PlanFilesBefore read_plan_files(const spec::Spec& spec) {
  PlanFilesBefore out;
  for (const auto& p : spec.plans) {
    const fs::path file = spec.layout.spec_dir / p.file;
    std::error_code ec;
    const std::string rel = fs::relative(file, spec.layout.project_root, ec).generic_string();
    if (ec || rel.empty()) continue;
    if (auto text = util::read_file(file)) out[rel] = {std::move(*text), p.id, p.phase};
  }
  return out;
}

bool may_change_plan(TaskKind kind, const std::string& subject, const std::string& plan, const spec::PhaseNumber& phase) {
  switch (kind) {
  case TaskKind::plan: return spec::parse_phase_number(subject) == phase; // a revision pass rewrites its phase
  case TaskKind::reconcile: return subject == plan;
  default: return false; // check-plans judges; plan-gaps adds plans; the rest plan nothing
  }
}

std::vector<std::string> forbidden_plan_changes(TaskKind kind, const std::string& subject, const PlanFilesBefore& before,
                                                const fs::path& root) {
  std::vector<std::string> out; // std::map's order: sorted
  for (const auto& [rel, was] : before) {
    if (may_change_plan(kind, subject, was.plan, was.phase)) continue;
    const auto now = util::read_file(root / rel);
    if (!now || *now != was.text) out.push_back(rel);
  }
  return out;
}

std::expected<std::string, std::string> put_back_plans(const spec::Layout& layout, const std::vector<std::string>& files,
                                                       const PlanFilesBefore& before) {
  const std::string rel = util::new_discarded_dir(layout.spec_name, "plan-edit");
  for (const auto& f : files) {
    const auto was = before.find(f);
    if (was == before.end()) continue;
    const fs::path file = layout.project_root / f;
    std::error_code ec;
    if (fs::exists(fs::symlink_status(file, ec))) {
      const fs::path to = layout.project_root / rel / f;
      ec = util::create_private_directories(to.parent_path());
      // A copy, then the old text over the file in one rename: a kill between the two leaves both
      // versions, never the file missing.
      if (!ec) fs::copy_file(file, to, fs::copy_options::overwrite_existing, ec);
      if (ec) return std::unexpected(fmt::format("could not copy {} to {}: {}", f, rel, ec.message()));
    }
    if (auto w = util::write_file_atomic(file, was->second.text); !w)
      return std::unexpected(fmt::format("could not put {} back: {}", f, w.error()));
  }
  return rel;
}

std::string plan_change_rule(TaskKind kind) {
  switch (kind) {
  case TaskKind::plan: return "a planner writes its own phase's plans only";
  case TaskKind::check_plans: return "a plan checker judges the plans and changes none";
  case TaskKind::plan_gaps: return "gap planning adds plans and changes none that exist";
  case TaskKind::reconcile: return "a reconcile changes only the plan it reconciles";
  default: return "this task changes no plan";
  }
}

} // namespace harness::orchestrator
