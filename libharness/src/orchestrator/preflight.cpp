#include "harness/orchestrator/preflight.hpp"

#include "harness/util/glob.hpp"

#include <algorithm>
#include <filesystem>

namespace harness::orchestrator {

std::vector<std::string> pending_write_globs(const spec::Spec& spec) {
  std::vector<std::string> out;
  for (const auto& p : spec.plans)
    if (!spec.summaries.contains(p.id)) out.insert(out.end(), p.files_modified.begin(), p.files_modified.end());
  return out;
}

std::vector<DirtyDeclaredFile> dirty_declared_files(const spec::Spec& spec, const std::vector<worker::GitChange>& changes) {
  std::error_code ec;
  const std::string spec_rel = std::filesystem::relative(spec.layout.spec_dir, spec.layout.project_root, ec).string() + "/";
  std::vector<DirtyDeclaredFile> out;
  for (const auto& c : changes) {
    if (c.path.starts_with(spec_rel) || c.path.starts_with(".orchestration/")) continue;
    for (const auto& p : spec.plans) {
      if (spec.summaries.contains(p.id)) continue;
      const bool declared = std::ranges::any_of(p.files_modified, [&](const std::string& g) { return util::glob_match(g, c.path); });
      if (declared) {
        out.push_back({p.id, c.path});
        break; // one plan is enough to name
      }
    }
  }
  return out;
}

} // namespace harness::orchestrator
