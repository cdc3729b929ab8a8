#include "harness/orchestrator/preflight.hpp"

#include "harness/util/glob.hpp"

#include <algorithm>
#include <filesystem>
#include <set>

namespace harness::orchestrator {

namespace {

/// The project-relative prefix of the spec directory, with a trailing slash.
std::string spec_prefix(const spec::Spec& spec) {
  std::error_code ec;
  return std::filesystem::relative(spec.layout.spec_dir, spec.layout.project_root, ec).string() + "/";
}

bool harness_own(const std::string& path, const std::string& spec_rel) {
  return path.starts_with(spec_rel) || path.starts_with(".orchestration/");
}

} // namespace

std::vector<DirtyDeclaredFile> dirty_declared_files(const spec::Spec& spec, const std::vector<worker::GitChange>& changes) {
  const std::string spec_rel = spec_prefix(spec);
  std::vector<DirtyDeclaredFile> out;
  for (const auto& c : changes) {
    if (harness_own(c.path, spec_rel)) continue;
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

std::vector<std::string> undeclared_changes(const spec::Spec& spec, const std::vector<worker::GitChange>& before,
                                            const std::vector<worker::GitChange>& after) {
  const std::string spec_rel = spec_prefix(spec);
  std::set<std::string> already;
  for (const auto& c : before) already.insert(c.path);
  std::vector<std::string> out;
  for (const auto& c : after) {
    if (already.contains(c.path) || harness_own(c.path, spec_rel)) continue;
    const bool declared = std::ranges::any_of(spec.plans, [&](const spec::Plan& p) {
      return std::ranges::any_of(p.files_modified, [&](const std::string& g) { return util::glob_match(g, c.path); });
    });
    if (!declared) out.push_back(c.path);
  }
  return out;
}

} // namespace harness::orchestrator
