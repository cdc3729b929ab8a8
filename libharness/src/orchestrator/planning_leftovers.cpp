#include "harness/orchestrator/planning_leftovers.hpp"

#include "session_files.hpp"

#include "harness/util/discarded_dir.hpp"
#include "harness/util/private_directory.hpp"
#include "harness/worker/git.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <set>

namespace harness::orchestrator {
namespace fs = std::filesystem;

std::vector<PlanningLeftover> planning_leftovers(const spec::Spec& spec,
                                                 const std::vector<spec::PhaseNumber>& interrupted) {
  std::map<fs::path, const spec::PhaseDir*> interrupted_dirs;
  for (const auto& phase : spec.layout.phases)
    if (std::ranges::find(interrupted, phase.number) != interrupted.end())
      interrupted_dirs[phase.plans_dir.lexically_normal()] = &phase;
  std::vector<PlanningLeftover> out;
  for (const auto& d : spec.diagnostics) {
    if (d.severity != spec::Severity::error) continue;
    const fs::path file = fs::path(d.file).is_absolute() ? fs::path(d.file) : spec.layout.spec_dir / d.file;
    const std::string name = file.filename().string();
    const auto dir = interrupted_dirs.find(file.parent_path().lexically_normal());
    if (dir == interrupted_dirs.end() || !name.ends_with("-PLAN.md")) return {};
    // Only a file that gave no plan: one that parsed has a planner's whole frontmatter, and an
    // error in it (a dependency, a path) is a finding for the user, not a cut-off write.
    const bool parsed = std::ranges::any_of(spec.plans, [&](const spec::Plan& p) {
      return p.phase == dir->second->number && spec.layout.plan_file(*dir->second, p.id) == file;
    });
    if (parsed) return {};
    if (std::ranges::none_of(out, [&](const PlanningLeftover& l) { return l.file == file; }))
      out.push_back({file, d.file, fmt::format("{}: {}", d.code, d.message)});
  }
  return out;
}

std::string uncommitted_plan_errors_hint(const spec::Spec& spec) {
  std::set<std::string> with_errors; // relative to the project root
  for (const auto& d : spec.diagnostics) {
    if (d.severity != spec::Severity::error) continue;
    const fs::path file = fs::path(d.file).is_absolute() ? fs::path(d.file) : spec.layout.spec_dir / d.file;
    if (!file.filename().string().ends_with("-PLAN.md")) continue;
    std::error_code ec;
    if (auto rel = fs::relative(file, spec.layout.project_root, ec).generic_string(); !ec && !rel.empty()) with_errors.insert(rel);
  }
  if (with_errors.empty()) return {};
  std::vector<std::string> changed, added;
  for (const auto& c : worker::changed_paths(spec.layout.project_root, {with_errors.begin(), with_errors.end()}))
    if (!c.deleted && with_errors.contains(c.path)) (c.untracked || c.added ? added : changed).push_back(c.path);
  if (changed.empty() && added.empty()) return {};
  std::string out = "PLAN files with errors that no commit holds as they are (a planner, gap planner or reconcile of an "
                    "earlier run may have left them, or an edit):";
  if (!changed.empty()) out += fmt::format(" changed since their commit: {} (git restore them to run the committed plans);",
                                           fmt::join(changed, ", "));
  if (!added.empty()) out += fmt::format(" new: {} (remove them; a phase left without plans is planned again);", fmt::join(added, ", "));
  out.back() = '.';
  return out + " Or fix them and run again.";
}

std::vector<spec::PhaseNumber> interrupted_planning_phases(const fs::path& project_root, std::string_view spec_name) {
  std::vector<spec::PhaseNumber> out;
  for (const auto& m : stored_planning_marks(project_root, spec_name))
    if (m.stage == PlanningStage::planning)
      if (auto n = spec::parse_phase_number(m.phase)) out.push_back(*n);
  return out;
}

std::expected<std::string, std::string> set_aside_leftovers(const spec::Layout& layout,
                                                           const std::vector<PlanningLeftover>& leftovers) {
  const std::string rel = util::new_discarded_dir(layout.spec_name, "planning");
  for (const auto& l : leftovers) {
    const fs::path to = layout.project_root / rel / l.shown;
    std::error_code ec = util::create_private_directories(to.parent_path());
    if (!ec) fs::rename(l.file, to, ec); // one rename: the file is in the spec or in discarded/, never lost
    if (ec) return std::unexpected(fmt::format("could not move {} to {}: {}", l.shown, rel, ec.message()));
  }
  return rel;
}

} // namespace harness::orchestrator
