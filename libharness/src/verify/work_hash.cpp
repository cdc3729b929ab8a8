#include "harness/verify/work_hash.hpp"

#include "harness/util/atomic_file.hpp"
#include "harness/worker/git.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <set>

namespace harness::verify {
namespace {

/// FNV-1a twice, from two offsets: 128 bits, to tell two states of the work apart (not against
/// someone forging one).
class Fnv128 {
public:
  void add(std::string_view bytes) {
    for (const unsigned char c : bytes) {
      m_a = (m_a ^ c) * prime;
      m_b = (m_b ^ c) * prime;
    }
  }
  std::string hex() const { return fmt::format("{:016x}{:016x}", m_a, m_b); }

private:
  static constexpr std::uint64_t prime = 1099511628211ull;
  std::uint64_t m_a = 14695981039346656037ull;
  std::uint64_t m_b = 0x9e3779b97f4a7c15ull;
};

} // namespace

std::string work_hash(const spec::Spec& spec, const std::vector<std::string>& plans) {
  std::set<std::string> globs;
  for (const auto& id : plans)
    if (const auto* p = spec.find_plan(id)) globs.insert(p->files_modified.begin(), p->files_modified.end());
  Fnv128 h;
  if (globs.empty()) return h.hex(); // `git ls-files --` without a pathspec would list everything
  const auto& root = spec.layout.project_root;
  // The reports, SUMMARYs and STATUS harness writes after taking the hash are no plan's work,
  // even under a plan's `docs/**`: the hash would never match again.
  for (const auto& file : spec::harness_written_files(spec))
    globs.insert(":(exclude,literal)" + file.lexically_relative(root).generic_string());
  std::vector<std::string> args = {"ls-files", "--stage", "-z", "--"};
  for (const auto& g : globs) args.push_back(worker::glob_pathspec(g));
  const auto index = worker::run_git(root, std::move(args));
  if (index.exit_code != 0) return {};
  h.add(index.out);
  // The index says what was committed (or staged); the checks read the work tree, so what
  // differs there counts too, by content.
  for (const auto& c : worker::changed_paths(root, {globs.begin(), globs.end()})) {
    h.add(std::string_view("\0", 1));
    h.add(c.path);
    h.add(std::string_view("\0", 1));
    h.add(util::read_file(root / c.path).value_or("(no file)"));
  }
  return h.hex();
}

} // namespace harness::verify
