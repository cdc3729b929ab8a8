// The start check on where plans write: a declared file git cannot stage fails every attempt of
// its plan after the work is done, so it is refused before anything starts.
#include "harness/orchestrator/preflight.hpp"

#include "harness/util/glob.hpp"
#include "harness/util/shell_words.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace harness::orchestrator {
namespace fs = std::filesystem;

namespace {

/// `path` is `dir` or lies below it; the root ("") holds everything.
bool inside(std::string_view path, std::string_view dir) {
  return dir.empty() || path == dir || (path.starts_with(dir) && path.size() > dir.size() && path[dir.size()] == '/');
}

/// The directory part of a path ("" at the root).
std::string parent_of(std::string_view path) {
  const auto slash = path.rfind('/');
  return slash == std::string_view::npos ? std::string() : std::string(path.substr(0, slash));
}

/// The segments of a glob before its first wildcard: every file it matches lies below them.
std::string fixed_directory(std::string_view glob) {
  std::string dir;
  std::size_t start = 0;
  for (;;) {
    const auto slash = glob.find('/', start);
    if (slash == std::string_view::npos) return dir; // the last segment names files, not a directory
    const auto segment = glob.substr(start, slash - start);
    if (segment.find_first_of("*?[") != std::string_view::npos) return dir;
    dir = std::string(glob.substr(0, slash));
    start = slash + 1;
  }
}

/// Where a `files_modified` entry writes: the directory all its files lie below, and for a literal
/// entry the entry itself (a file, or a directory as a pathspec).
struct DeclaredPlace {
  std::string dir;
  std::optional<std::string> literal;
};

DeclaredPlace place_of(const std::string& entry) {
  if (util::is_literal_glob(entry)) return {parent_of(entry), entry};
  return {fixed_directory(entry), std::nullopt};
}

/// Whether some file of `place` can be in a cone-mode sparse checkout of `cone`: git keeps the
/// root's files, everything below a cone directory, and the files directly in each directory
/// above one (a/ for a cone a/b). Unsure (a glob with no fixed directory) counts as in.
bool in_cone(const DeclaredPlace& place, const std::vector<std::string>& cone) {
  if (place.dir.empty()) return true;
  return std::ranges::any_of(cone, [&](const std::string& c) {
    return inside(place.dir, c) || (place.literal && inside(*place.literal, c)) ||
           (c.size() > place.dir.size() && inside(c, place.dir));
  });
}

std::string joined(const std::vector<std::string>& items, std::string_view separator) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : std::string(separator)) + i;
  return out;
}

void sparse_problem(const spec::Spec& spec, const std::vector<std::string>& cone, std::vector<StartProblem>& out) {
  std::vector<std::string> named;
  std::set<std::string> dirs;
  for (const auto& p : spec.plans) {
    if (spec.summaries.contains(p.id)) continue;
    for (const auto& entry : p.files_modified) {
      const auto place = place_of(entry);
      if (in_cone(place, cone)) continue;
      named.push_back(fmt::format("{} ({})", p.id, entry));
      dirs.insert(util::quote_shell_word(place.dir));
    }
  }
  if (named.empty()) return;
  out.push_back({fmt::format("plans write outside this sparse checkout ({}), and git adds no file there: every attempt "
                             "would do its work and then fail to commit it: {}",
                             cone.empty()       ? std::string("only the root's files")
                             : cone.size() == 1 ? "directory " + cone.front()
                                                : "directories " + joined(cone, ", "), joined(named, ", ")),
                 fmt::format("add the directories to the checkout: git sparse-checkout add {} (or check out "
                             "everything: git sparse-checkout disable), then run again",
                             joined({dirs.begin(), dirs.end()}, " "))});
}

/// Whether `place` lies inside the submodule at `sub` (the submodule itself is a path of this
/// repository: a plan may move its commit).
bool in_submodule(const DeclaredPlace& place, const std::string& sub) {
  if (place.literal) return *place.literal != sub && inside(*place.literal, sub);
  return !place.dir.empty() && inside(place.dir, sub);
}

void submodule_problem(const spec::Spec& spec, const std::string& sub, std::vector<StartProblem>& out) {
  std::vector<std::string> named;
  for (const auto& p : spec.plans) {
    if (spec.summaries.contains(p.id)) continue;
    for (const auto& entry : p.files_modified)
      if (in_submodule(place_of(entry), sub)) named.push_back(fmt::format("{} ({})", p.id, entry));
  }
  if (named.empty()) return;
  out.push_back({fmt::format("{} is a git submodule, another repository whose files no commit of this one can hold, "
                             "and plans write inside it: every task would do its work and commit nothing: {}",
                             sub, joined(named, ", ")),
                 fmt::format("harness commits in this repository only: declare these plans in a spec of the "
                             "submodule's own project (in {}), or make {} a directory of this repository instead "
                             "of a submodule",
                             sub, sub)});
}

/// The lines of git's output that are not empty.
std::vector<std::string> output_lines(const std::string& out) {
  std::vector<std::string> lines;
  for (std::size_t pos = 0; pos < out.size();) {
    std::size_t nl = out.find('\n', pos);
    if (nl == std::string::npos) nl = out.size();
    if (nl > pos) lines.push_back(out.substr(pos, nl - pos));
    pos = nl + 1;
  }
  return lines;
}

} // namespace

std::vector<StartProblem> declared_path_problems(const spec::Spec& spec, const StartFacts& facts) {
  std::vector<StartProblem> out;
  for (const auto& sub : facts.submodules) submodule_problem(spec, sub, out);
  if (facts.sparse_cone) sparse_problem(spec, *facts.sparse_cone, out);
  return out;
}

std::optional<std::vector<std::string>> sparse_cone_directories(const fs::path& root) {
  auto on = [&](const char* key) {
    const auto r = worker::run_git(root, {"config", "--type=bool", "--get", key});
    return r.exit_code == 0 && r.out.starts_with("true");
  };
  if (!on("core.sparseCheckout") || !on("core.sparseCheckoutCone")) return std::nullopt;
  const auto list = worker::run_git(root, {"sparse-checkout", "list"});
  if (list.exit_code != 0) return std::nullopt; // git cannot say: the commits will, as without this check
  return output_lines(list.out);
}

} // namespace harness::orchestrator
