// What the entries of a spec directory could make harness do outside it: a symbolic link that
// leads out of the project (H038), a directory name with a control character (H039) or a shell's
// syntax (H042). A spec may come from someone else (a pull request), and harness writes into it.
#include "validate.hpp"

#include "harness/util/text.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace harness::spec::detail {
namespace fs = std::filesystem;

namespace {

Diagnostic whole_file(std::string file, std::string code, std::string message) {
  Diagnostic d;
  d.file = std::move(file);
  d.severity = Severity::error;
  d.code = std::move(code);
  d.message = std::move(message);
  return d;
}

/// Where `link` ends up once every link on the way is followed, the last component included even
/// when it does not exist yet (harness would create it there). weakly_canonical alone stops at a
/// dangling link and keeps its name, which would place `STATUS.md -> ~/.profile` inside.
fs::path final_target(const fs::path& link) {
  std::error_code ec;
  fs::path at = link;
  for (int hops = 0; hops < 40 && fs::is_symlink(at, ec); ++hops) {
    const fs::path to = fs::read_symlink(at, ec);
    if (ec) break;
    at = to.is_absolute() ? to : at.parent_path() / to;
    at = fs::weakly_canonical(at.parent_path(), ec) / at.filename();
  }
  return fs::weakly_canonical(at, ec);
}

bool inside(const fs::path& p, const fs::path& root) {
  const auto rel = p.lexically_relative(root);
  return !rel.empty() && *rel.begin() != "..";
}

/// The first character of `name` a shell reads as syntax (substitution, quoting, a command's
/// end, a redirection), or 0. `*` `?` `[` `~` `(` and blanks are left: a shell reads them only
/// where they stand unquoted, which harness's quoting of a placeholder never leaves them.
char shell_character(std::string_view name) {
  constexpr std::string_view syntax = "$`\"'\\;|&<>";
  const auto at = name.find_first_of(syntax);
  return at == std::string_view::npos ? '\0' : name[at];
}

} // namespace

void validate_links_outside(const Layout& layout, std::vector<Diagnostic>& out) {
  std::error_code ec;
  const fs::path root = fs::weakly_canonical(layout.project_root, ec);
  if (ec) return;
  constexpr int max_entries = 100'000; // a spec directory, not a source tree: stop looking beyond this
  int seen = 0;
  // Links to directories are not entered: the link itself is what is judged.
  for (auto it = fs::recursive_directory_iterator(layout.spec_dir, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator() && ++seen < max_entries; it.increment(ec)) {
    std::error_code e2;
    if (!it->is_symlink(e2)) continue;
    const fs::path target = final_target(it->path());
    if (target.empty() || inside(target, root)) continue;
    out.push_back(whole_file(layout.relative(it->path()), "H038",
                             fmt::format("a symbolic link to {}, outside the project: harness reads and writes the spec's "
                                         "files where they lead, so it would write there; replace the link with the "
                                         "file or directory itself",
                                         target.string())));
  }
}

void validate_directory_names(const Layout& layout, std::vector<Diagnostic>& out) {
  // The spec's name goes into every commit message harness writes (its subject and the `Spec:`
  // trailer): a newline there would add lines of the namer's choosing, a forged trailer among them.
  if (util::has_control_character(layout.spec_name))
    out.push_back(whole_file(".", "H039",
                             fmt::format("the spec directory's name '{}' holds a control character (a newline, a tab...): "
                                         "harness writes the name into every commit message, where it would add lines; "
                                         "rename the directory",
                                         util::escape_controls(layout.spec_name))));
  // Both names reach worker commands inside paths ({spec_dir}, {plan_file}, the prompt): a
  // command template quotes them for a shell it names (`bash -c`), but not for one a wrapper
  // starts (`flock -c`, `su -c`, a shell inside the shell's code), where `$(...)` in a name from a
  // pull request would run. The project's own path is the user's; these names come with the spec
  // (in a GSD project the spec's name is the project directory's: the user's too).
  if (const char c = shell_character(layout.spec_name); c && layout.kind != LayoutKind::legacy_gsd)
    out.push_back(whole_file(".", "H042",
                             fmt::format("the spec directory's name '{}' holds `{}`, which a shell reads as syntax: the "
                                         "name goes into worker commands, where a shell could run what follows it; "
                                         "rename the directory",
                                         util::escape_controls(layout.spec_name), c)));
  for (const auto& phase : layout.phases)
    if (const char c = shell_character(phase.slug))
      out.push_back(whole_file(util::escape_controls(layout.relative(phase.plans_dir)), "H042",
                               fmt::format("the phase directory's name '{}' holds `{}`, which a shell reads as syntax: "
                                           "the name goes into worker commands (its plans' paths), where a shell could "
                                           "run what follows it; rename the directory",
                                           util::escape_controls(phase.slug), c)));
  for (const auto& phase : layout.phases)
    if (util::has_control_character(phase.slug))
      out.push_back(whole_file(util::escape_controls(layout.relative(phase.plans_dir)), "H039",
                               fmt::format("the phase directory's name '{}' holds a control character (a newline, a "
                                           "tab...): harness writes it into STATUS.md and its messages; rename the directory",
                                           util::escape_controls(phase.slug))));
}

} // namespace harness::spec::detail
