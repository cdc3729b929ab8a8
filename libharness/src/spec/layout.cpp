#include "harness/spec/layout.hpp"

#include "harness/spec/spec_identity.hpp"
#include "harness/util/project_root.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace harness::spec {
namespace fs = std::filesystem;

namespace {

/// "03-auth" → phase 3; "02.1-hotfix" → 2.1; anything else → nullopt.
std::optional<PhaseNumber> phase_of_dir(const std::string& name) {
  const auto dash = name.find('-');
  return parse_phase_number(dash == std::string::npos ? std::string_view(name) : std::string_view(name).substr(0, dash));
}

std::vector<PhaseDir> scan_phases(const fs::path& plans_dir, const fs::path& results_dir, bool results_beside) {
  std::vector<PhaseDir> phases;
  std::error_code ec;
  if (!fs::is_directory(plans_dir, ec)) return phases;
  for (const auto& e : fs::directory_iterator(plans_dir, ec)) {
    if (std::error_code entry_ec; !e.is_directory(entry_ec)) continue; // a link loop too, without throwing
    const std::string name = e.path().filename().string();
    auto n = phase_of_dir(name);
    if (!n) continue;
    PhaseDir d{*n, name, e.path(), results_beside ? e.path() : results_dir / name};
    phases.push_back(std::move(d));
  }
  std::sort(phases.begin(), phases.end(), [](const PhaseDir& a, const PhaseDir& b) {
    return a.number != b.number ? a.number < b.number : a.slug < b.slug;
  });
  return phases;
}

/// A phase directory renamed after it ran (`git mv planning/plans/01-core 01-foundation`) leaves
/// its SUMMARYs and VERIFICATION in execution/phases/01-core. Plan ids are unique in a spec and
/// carry the phase number, so the one results directory of that number that no phase directory is
/// named after holds this phase's results: read and written there, the work counts and nothing
/// runs again (load_spec says to move it, H035). Only when that is unambiguous: one phase
/// directory of the number, none of the results under its own name, one candidate.
void adopt_renamed_results(std::vector<PhaseDir>& phases, const fs::path& results_dir) {
  std::error_code ec;
  std::map<PhaseNumber, std::vector<fs::path>> orphans; // results directories no phase directory is named after
  for (auto it = fs::directory_iterator(results_dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    std::error_code e2;
    const std::string name = it->path().filename().string();
    const auto n = phase_of_dir(name);
    if (!n || !it->is_directory(e2)) continue;
    if (std::ranges::none_of(phases, [&](const PhaseDir& p) { return p.slug == name; })) orphans[*n].push_back(it->path());
  }
  for (auto& p : phases) {
    const auto it = orphans.find(p.number);
    if (it == orphans.end() || it->second.size() != 1 || fs::exists(p.results_dir, ec)) continue;
    if (std::ranges::count_if(phases, [&](const PhaseDir& q) { return q.number == p.number; }) != 1) continue;
    p.results_dir = it->second.front();
  }
}

// spec_dir and project_root are canonical, and the paths shown are built from them, so a lexical
// comparison gives what fs::relative would. fs::relative resolves every component of both paths
// (a readlink each): half of `status`'s system calls on the example spec went there.
fs::path relative_to(const fs::path& p, const fs::path& base) {
  if (auto rel = p.lexically_relative(base); !rel.empty() && *rel.begin() != "..") return rel;
  std::error_code ec;
  auto rel = fs::relative(p, base, ec);
  return ec ? fs::path() : rel;
}

} // namespace

fs::path Layout::plan_file(const PhaseDir& phase, const std::string& plan_id) const {
  return phase.plans_dir / (plan_id + "-PLAN.md");
}

fs::path Layout::summary_file(const PhaseDir& phase, const std::string& plan_id) const {
  return phase.results_dir / (plan_id + "-SUMMARY.md");
}

fs::path Layout::verification_file(const PhaseDir& phase) const {
  if (kind == LayoutKind::legacy_gsd) return phase.results_dir / (to_string(phase.number) + "-VERIFICATION.md");
  return phase.results_dir / "VERIFICATION.md";
}

fs::path Layout::research_file(PhaseNumber phase) const {
  return research_dir / fmt::format("phase-{}-research.md", to_string(phase));
}

const PhaseDir* Layout::find_phase(PhaseNumber n) const {
  for (const auto& p : phases)
    if (p.number == n) return &p;
  return nullptr;
}

bool Layout::owns_spec_trailer(std::string_view trailer) const {
  return (!spec_trailer.empty() && trailer == spec_trailer) || same_spec(trailer, spec_name, sibling_specs);
}

std::string Layout::relative(const fs::path& p) const {
  auto rel = relative_to(p, spec_dir);
  return rel.empty() ? p.string() : rel.string();
}

std::string Layout::spec_dir_in_project() const {
  const std::string rel = relative_to(spec_dir, project_root).generic_string();
  return rel.empty() || rel == "." || rel.starts_with("..") ? std::string() : rel + "/";
}

std::string Layout::command_argument() const {
  const fs::path dir = kind == LayoutKind::legacy_gsd ? spec_dir.parent_path() : spec_dir;
  std::error_code ec;
  const fs::path rel = fs::relative(dir, project_root, ec);
  if (ec || rel.empty() || *rel.begin() == "..") return dir.string();
  return rel.string();
}

std::expected<Layout, std::string> discover_layout(const fs::path& spec_dir_in, const fs::path& cwd) {
  std::error_code ec;
  fs::path dir = fs::absolute(spec_dir_in, ec);
  if (ec) return std::unexpected(fmt::format("{}: no such directory", spec_dir_in.string()));
  const auto st = fs::status(dir, ec); // with ec: a link loop is an answer, not an exception
  if (ec == std::errc::too_many_symbolic_link_levels)
    return std::unexpected(fmt::format("{}: not a directory (a symbolic link loop)", spec_dir_in.string()));
  if (!fs::exists(st)) return std::unexpected(fmt::format("{}: no such directory", spec_dir_in.string()));
  if (!fs::is_directory(st)) return std::unexpected(fmt::format("{}: not a directory", spec_dir_in.string()));
  dir = fs::weakly_canonical(dir, ec);
  if (ec) return std::unexpected(fmt::format("{}: {}", spec_dir_in.string(), ec.message()));
  Layout l;
  // GSD's legacy layout: the directory holds .planning/ (or is it).
  fs::path planning = dir.filename() == ".planning" ? dir : dir / ".planning";
  const bool legacy = fs::is_directory(planning, ec) && !fs::exists(dir / "planning" / "plans", ec);
  if (legacy) {
    l.kind = LayoutKind::legacy_gsd;
    l.spec_dir = planning;
    l.spec_name = (dir.filename() == ".planning" ? dir.parent_path() : dir).filename().string();
    l.spec_md = planning / "PROJECT.md";
    // GSD's own STATE.md is its memory (position, decisions, blockers) and stays GSD's: harness's
    // status report goes beside it under harness's name.
    l.status_md = planning / "STATUS.md";
    l.roadmap_md = planning / "ROADMAP.md";
    l.project_md = planning / "PROJECT.md";
    l.requirements_md = planning / "REQUIREMENTS.md";
    l.research_dir = planning / "research";
    l.plans_dir = planning / "phases";
    l.results_dir = planning / "phases";
    l.final_verification = planning / "VERIFICATION.md";
    l.commits_log = planning / "commits.log";
    l.phases = scan_phases(l.plans_dir, l.results_dir, true);
  } else {
    l.kind = LayoutKind::spec_centric;
    l.spec_dir = dir;
    l.spec_name = dir.filename().string();
    l.spec_md = dir / "SPEC.md";
    l.status_md = dir / "STATUS.md";
    l.roadmap_md = dir / "ROADMAP.md";
    l.project_md = dir / "planning" / "PROJECT.md";
    l.requirements_md = dir / "planning" / "REQUIREMENTS.md";
    l.research_dir = dir / "planning" / "research";
    l.plans_dir = dir / "planning" / "plans";
    l.results_dir = dir / "execution" / "phases";
    l.final_verification = dir / "execution" / "FINAL-VERIFICATION.md";
    l.commits_log = dir / "execution" / "commits.log";
    l.phases = scan_phases(l.plans_dir, l.results_dir, false);
    adopt_renamed_results(l.phases, l.results_dir);
    // Only numbered ones matter (same_spec): an unnumbered name is matched exactly anyway.
    for (const auto& e : fs::directory_iterator(dir.parent_path(), ec)) {
      std::string name = e.path().filename().string();
      if (name != l.spec_name && spec_number(name) && e.is_directory(ec)) l.sibling_specs.push_back(std::move(name));
    }
    std::sort(l.sibling_specs.begin(), l.sibling_specs.end());
  }
  l.project_root = util::find_project_root(l.spec_dir).value_or(fs::weakly_canonical(cwd));
  l.spec_trailer = l.spec_name;
  if (legacy) {
    // The project directory's name is the clone's, not the repository's: a teammate's checkout,
    // CI's or a `git worktree` elsewhere would own none of the commits made here.
    std::string in_project = l.spec_dir_in_project();
    if (!in_project.empty()) in_project.pop_back();
    if (!in_project.empty()) l.spec_trailer = std::move(in_project);
  }
  return l;
}

} // namespace harness::spec
