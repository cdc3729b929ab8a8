#include "harness/spec/spec.hpp"

#include "harness/spec/document_parsers.hpp"
#include "harness/spec/frontmatter.hpp"
#include "harness/spec/plan_parser.hpp"
#include "harness/util/atomic_file.hpp"
#include "harness/util/glob.hpp"
#include "inserted_phases.hpp"
#include "requirement_ids.hpp"
#include "validate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <set>
#include <cctype>

namespace harness::spec {
namespace fs = std::filesystem;

namespace {

/// The entries of `dir` in name order: regular files only, or every entry.
enum class Entries { files, all };
std::vector<fs::path> sorted_entries(const fs::path& dir, Entries which) {
  std::vector<fs::path> out;
  std::error_code ec;
  // is_regular_file(ec): a link loop among the entries is no file, not an exception.
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (std::error_code entry_ec; which == Entries::all || e.is_regular_file(entry_ec)) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

Diagnostic file_diag(std::string file, Severity sev, std::string code, std::string message) {
  Diagnostic d;
  d.file = std::move(file);
  d.severity = sev;
  d.code = std::move(code);
  d.message = std::move(message);
  return d;
}

/// Larger than any spec document: a file this big is a mistake (or a link to a device), not a
/// plan, and reading it whole would take the machine's memory.
constexpr std::uintmax_t max_document_bytes = 64u << 20;

/// Why `file`, a spec document, is no file one can be read from; empty when it is one. A
/// directory, a link loop, a dangling link, a device or a pipe named like a document would
/// otherwise vanish from the spec, or (/dev/zero) be read until memory ran out (review FF F3, F4).
std::string unreadable_entry(const fs::path& file) {
  std::error_code ec;
  const auto st = fs::status(file, ec);
  if (!ec && fs::is_regular_file(st)) {
    const auto size = fs::file_size(file, ec);
    if (!ec && size > max_document_bytes)
      return fmt::format("it holds {} MB, more than any spec document ({} MB at most)", size >> 20, max_document_bytes >> 20);
    return {};
  }
  if (!ec && fs::is_directory(st)) return "it is a directory, not a file";
  if (ec == std::errc::too_many_symbolic_link_levels) return "it is a symbolic link loop";
  if (!ec && fs::exists(st)) return "it is not a regular file (a device, a pipe or a socket)";
  std::error_code link_ec;
  if (fs::is_symlink(fs::symlink_status(file, link_ec))) {
    const auto target = fs::read_symlink(file, link_ec);
    return fmt::format("it is a symbolic link to {}, which does not exist", link_ec ? std::string("a missing file") : target.string());
  }
  return "it is not a regular file (a device, a pipe or a socket)";
}

/// The text of the spec document `file`; nullopt when there is none. One that is there but cannot
/// be read (unreadable_entry, or a read error) is an error (H002), where it was silently taken as
/// absent: a ROADMAP.md that was a directory lost every phase's `Depends on` (review FF F7).
std::optional<std::string> read_document(Spec& spec, const fs::path& file) {
  std::error_code ec;
  if (fs::symlink_status(file, ec).type() == fs::file_type::not_found) return std::nullopt;
  const std::string shown = spec.layout.relative(file);
  if (const auto why = unreadable_entry(file); !why.empty()) {
    spec.diagnostics.push_back(file_diag(shown, Severity::error, "H002", fmt::format("'{}' cannot be read: {}", shown, why)));
    return std::nullopt;
  }
  auto text = util::read_file(file);
  if (!text) {
    spec.diagnostics.push_back(file_diag(shown, Severity::error, "H002", text.error()));
    return std::nullopt;
  }
  return std::move(*text);
}

/// A Markdown file whose name says "plan" in any case: meant as a plan, most likely.
bool looks_like_a_plan(const std::string& name) {
  std::string lower = name;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower.ends_with(".md") && lower.find("plan") != std::string::npos;
}

/// The number a GSD `phase:` or `plan:` value starts with ("02.1-hotfix" -> "02.1", "03" -> "03").
std::string_view leading_number(std::string_view v) {
  std::size_t n = 0;
  while (n < v.size() && ((v[n] >= '0' && v[n] <= '9') || v[n] == '.')) ++n;
  return v.substr(0, n);
}

/// H037: GSD plans carry `phase:` and `plan:` keys, but the file's place decides which plan it
/// is (its phase directory and NN-MM name). A key that says otherwise (a plan copied from
/// another phase, or moved without its frontmatter) misleads whoever reads the file: the plan
/// runs where it lies, not where the key says.
void warn_declared_place(const Plan& plan, std::string_view text, std::vector<Diagnostic>& out) {
  auto warn = [&](const std::string& key, std::string message) {
    Diagnostic d = file_diag(plan.file, Severity::warning, "H037", std::move(message));
    d.line = plan.key_lines.count(key) ? plan.key_lines.at(key) : 1;
    d.col = 1;
    d.source_line = std::string(line_at(text, d.line));
    out.push_back(std::move(d));
  };
  if (const auto said = parse_phase_number(leading_number(plan.phase_key)); said && *said != plan.phase)
    warn("phase", fmt::format("phase: '{}' names phase {}, but the file is in phase {}'s directory ({}): the directory "
                              "decides, so it runs as plan {} (to move it, put it in phase {}'s directory with that "
                              "phase's number in its name; else correct the key)",
                              plan.phase_key, to_string(*said), to_string(plan.phase), plan.phase_slug, plan.id,
                              to_string(*said)));
  // A whole id ('01-02', as an agent may fill the key; review NN F5) names the plan by its part
  // after the phase, as GSD's bare number does.
  std::string_view number = plan.plan_key;
  if (const auto dash = number.rfind('-'); dash != std::string_view::npos && !number.substr(dash + 1).empty() &&
                                           leading_number(number.substr(dash + 1)).size() == number.size() - dash - 1)
    if (const auto phase = parse_phase_number(number.substr(0, dash))) {
      if (*phase != plan.phase) // another phase's plan id ('03-02' in 01-02-PLAN.md; review OO F10)
        return warn("plan", fmt::format("plan: '{}' names plan {}, but the file is {}-PLAN.md: the file name decides, so "
                                        "it runs as plan {}",
                                        plan.plan_key, plan.plan_key, plan.id, plan.id));
      number.remove_prefix(dash + 1);
    }
  const auto digits = leading_number(number);
  int said_number = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), said_number);
  if (!digits.empty() && ec == std::errc{} && end == digits.data() + digits.size() && said_number != plan.number)
    warn("plan", fmt::format("plan: '{}' names plan {}, but the file is {}-PLAN.md: the file name decides, so it runs "
                             "as plan {}",
                             plan.plan_key, number.size() < plan.plan_key.size() ? plan.plan_key : std::to_string(said_number),
                             plan.id, plan.id));
}

void warn_misplaced_plans(Spec& spec);

/// GSD's plan template names a plan of the same phase by its number alone (`depends_on: ["01"]`
/// in plan 02-02 is plan 02-01): in a GSD project such an entry is read as the full id.
void read_short_dependencies(Plan& plan) {
  for (auto& dep : plan.depends_on)
    if (auto full = same_phase_plan_id(plan.phase, dep)) dep = std::move(*full);
}

void load_plans(Spec& spec, detail::SourceTexts& texts) {
  const auto dialect = spec.layout.kind == LayoutKind::legacy_gsd ? PlanDialect::gsd : PlanDialect::harness;
  for (const auto& phase : spec.layout.phases) {
    for (const auto& file : sorted_entries(phase.plans_dir, Entries::all)) {
      const std::string name = file.filename().string();
      const std::string shown = spec.layout.relative(file);
      std::error_code ec;
      if (!name.ends_with("PLAN.md") && !fs::is_regular_file(file, ec)) continue; // a subdirectory, say
      if (const auto why = unreadable_entry(file); name.ends_with("PLAN.md") && !why.empty()) {
        spec.diagnostics.push_back(file_diag(shown, Severity::error, "H002", fmt::format("'{}' cannot be read: {}", name, why)));
        continue;
      }
      if (!name.ends_with("PLAN.md")) {
        // Only NN-MM-PLAN.md files are plans: a plan saved as plan-01.md or 01-01-plan.md would
        // never run, and nothing else would say so.
        if (looks_like_a_plan(name))
          spec.diagnostics.push_back(file_diag(shown, Severity::warning, "H027",
                                               fmt::format("'{}' is not read: plan files are named NN-MM-PLAN.md", name)));
        continue;
      }
      auto parsed_name = parse_plan_file_name(name);
      if (!parsed_name) {
        spec.diagnostics.push_back(file_diag(shown, Severity::error, "H018",
                                             fmt::format("'{}' is not a plan file name like NN-MM-PLAN.md", name)));
        continue;
      }
      // 01-1-PLAN.md reads as plan 01-01, but workers and verifiers open 01-01-PLAN.md.
      if (const auto canonical = plan_id_of(parsed_name->first, parsed_name->second) + "-PLAN.md"; name != canonical) {
        spec.diagnostics.push_back(file_diag(shown, Severity::error, "H018",
                                             fmt::format("'{}' is not a plan file name like NN-MM-PLAN.md: name it {}", name, canonical)));
        continue;
      }
      if (parsed_name->first != phase.number) {
        spec.diagnostics.push_back(file_diag(shown, Severity::error, "H018",
                                             fmt::format("plan '{}' is in the directory of phase {}", name, to_string(phase.number))));
        continue;
      }
      auto text = util::read_file(file);
      if (!text) {
        spec.diagnostics.push_back(file_diag(shown, Severity::error, "H002", text.error()));
        continue;
      }
      texts[shown] = *text;
      auto plan = parse_plan(*text, shown, dialect, spec.diagnostics);
      if (!plan) continue;
      const std::string file_id = plan_id_of(parsed_name->first, parsed_name->second);
      if (plan->id.empty()) {
        plan->id = file_id;
      } else if (plan->id != file_id) {
        const int line = plan->key_lines.count("plan_id") ? plan->key_lines.at("plan_id") : 1;
        Diagnostic d = file_diag(shown, Severity::error, "H006",
                                 fmt::format("plan_id '{}' does not match the file name (expected '{}')", plan->id, file_id));
        d.line = line;
        d.col = 1;
        d.source_line = std::string(line_at(*text, line));
        spec.diagnostics.push_back(std::move(d));
        plan->id = file_id; // the file name decides, so dependents are not reported twice
      }
      plan->title = title_without_id(plan->title, plan->id); // a GSD plan's heading "01-02: ..." without plan_id
      plan->phase = parsed_name->first;
      plan->number = parsed_name->second;
      plan->phase_slug = phase.slug;
      if (dialect == PlanDialect::gsd) read_short_dependencies(*plan);
      warn_declared_place(*plan, *text, spec.diagnostics);
      detail::validate_plan_paths(*plan, texts, spec.diagnostics);
      // Frontmatter alone (a planner that stopped early, a truncated file) would "verify" with
      // nothing done: valid, but said.
      if (plan->tasks.empty())
        spec.diagnostics.push_back(file_diag(shown, Severity::warning, "H028",
                                             fmt::format("plan {} has no tasks ('### Task 1: name' headings or <task> "
                                                         "elements): a worker gets nothing to do",
                                                         plan->id)));
      spec.plans.push_back(std::move(*plan));
    }
  }
  std::stable_sort(spec.plans.begin(), spec.plans.end(), [](const Plan& a, const Plan& b) {
    return a.phase != b.phase ? a.phase < b.phase : a.number < b.number;
  });
  warn_misplaced_plans(spec);
}

/// Plan-like files elsewhere under the plans directory (a phase directory without its number,
/// a subdirectory of a phase) are never read either: the spec would end "complete" without them.
void warn_misplaced_plans(Spec& spec) {
  std::set<fs::path> read;
  for (const auto& phase : spec.layout.phases) read.insert(phase.plans_dir.lexically_normal());
  std::error_code ec;
  constexpr int max_files = 10'000; // a plans directory, not a source tree: stop looking beyond this
  int seen = 0;
  for (auto it = fs::recursive_directory_iterator(spec.layout.plans_dir, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator() && ++seen < max_files; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!it->is_regular_file(ec) || !looks_like_a_plan(name)) continue;
    if (read.contains(it->path().parent_path().lexically_normal())) continue; // reported above if misnamed
    spec.diagnostics.push_back(file_diag(spec.layout.relative(it->path()), Severity::warning, "H027",
                                         fmt::format("'{}' is not read: plans live in a phase directory named "
                                                     "NN-slug directly under {}",
                                                     name, spec.layout.relative(spec.layout.plans_dir))));
  }
}

/// The phase directory whose results are in `dir`, or nullptr.
const PhaseDir* phase_with_results(const Layout& layout, const fs::path& dir) {
  for (const auto& p : layout.phases)
    if (p.results_dir.lexically_normal() == dir.lexically_normal()) return &p;
  return nullptr;
}

/// H031: a SUMMARY is read only as `<id>-SUMMARY.md` in the results directory of its PLAN's phase.
/// One for a removed or renumbered plan, with a typo in its name or in another phase's directory
/// is ignored, while whoever wrote it may take the plan for done. When the plan is there under
/// another phase directory (renamed, and its results directory too by now), say where the SUMMARY
/// belongs: "there is no plan" would be false.
void warn_unread_summaries(Spec& spec) {
  constexpr std::string_view suffix = "-SUMMARY.md";
  std::error_code ec;
  for (auto dir = fs::directory_iterator(spec.layout.results_dir, ec); !ec && dir != fs::directory_iterator(); dir.increment(ec)) {
    std::error_code e2;
    if (!dir->is_directory(e2)) continue;
    const PhaseDir* owner = phase_with_results(spec.layout, dir->path());
    const fs::path plans = owner ? owner->plans_dir : spec.layout.plans_dir / dir->path().filename();
    for (const auto& file : sorted_entries(dir->path(), Entries::files)) {
      const std::string name = file.filename().string();
      if (!name.ends_with(suffix)) continue;
      const std::string id = name.substr(0, name.size() - suffix.size());
      const Plan* plan = spec.find_plan(id);
      const PhaseDir* home = plan ? spec.layout.find_phase(plan->phase) : nullptr;
      if (home && spec.layout.summary_file(*home, id) != file) {
        spec.diagnostics.push_back(file_diag(
            spec.layout.relative(file), Severity::warning, "H031",
            fmt::format("'{}' is not read: plan {} is in {}/ now, and its SUMMARY belongs in {}", name, id,
                        spec.layout.relative(home->plans_dir), spec.layout.relative(spec.layout.summary_file(*home, id)))));
        continue;
      }
      const fs::path plan_file = plans / (id + "-PLAN.md");
      if (home || fs::is_regular_file(plan_file, e2)) continue; // read with its plan (or its PLAN has errors of its own)
      spec.diagnostics.push_back(file_diag(spec.layout.relative(file), Severity::warning, "H031",
                                           fmt::format("'{}' is not read: there is no plan {} ({})", name, id,
                                                       spec.layout.relative(plan_file))));
    }
  }
}

/// H035: the results of a phase directory renamed after it ran are read under the old name
/// (Layout), so its work counts; said once per phase, with the command that puts them in place.
void warn_renamed_results(Spec& spec) {
  for (const auto& phase : spec.layout.phases) {
    if (!phase.results_renamed()) continue;
    // The command runs from the project root, where git paths start.
    const std::string prefix = spec.layout.spec_dir_in_project();
    const fs::path target = phase.results_dir.parent_path() / phase.slug;
    spec.diagnostics.push_back(file_diag(
        spec.layout.relative(phase.results_dir), Severity::warning, "H035",
        fmt::format("phase {}'s results are read from {}/, under the phase directory's old name (its plans are in {}/): "
                    "move them with `git mv {}{} {}{}`",
                    to_string(phase.number), spec.layout.relative(phase.results_dir), spec.layout.relative(phase.plans_dir), prefix,
                    fs::path(spec.layout.relative(phase.results_dir)).generic_string(), prefix,
                    fs::path(spec.layout.relative(target)).generic_string())));
  }
}

/// The plan's SUMMARY in its phase's results directory into spec.summaries, when there is one.
void load_summary(Spec& spec, const PhaseDir& phase, const Plan& plan) {
  const auto file = spec.layout.summary_file(phase, plan.id);
  if (auto text = read_document(spec, file)) {
    auto s = parse_summary(*text, spec.layout.relative(file), spec.diagnostics, plan.id);
    if (s.plan_id.empty()) s.plan_id = plan.id;
    spec.summaries[plan.id] = std::move(s);
  }
}

void load_results(Spec& spec) {
  for (const auto& phase : spec.layout.phases) {
    for (const auto& plan : spec.plans)
      if (plan.phase == phase.number) load_summary(spec, phase, plan);
    const auto vfile = spec.layout.verification_file(phase);
    if (auto text = read_document(spec, vfile))
      spec.verifications[phase.number] = parse_verification(*text, spec.layout.relative(vfile), spec.diagnostics);
  }
  if (auto text = read_document(spec, spec.layout.final_verification))
    spec.final_verification = parse_verification(*text, spec.layout.relative(spec.layout.final_verification), spec.diagnostics);
  if (auto text = read_document(spec, spec.layout.status_md))
    spec.status = parse_status_document(*text, spec.layout.relative(spec.layout.status_md), spec.diagnostics);
  warn_unread_summaries(spec);
  warn_renamed_results(spec);
}

} // namespace

void reload_summaries(Spec& spec, const std::set<std::string>& plan_ids) {
  for (const auto& id : plan_ids) {
    const Plan* plan = spec.find_plan(id);
    const PhaseDir* phase = plan ? spec.layout.find_phase(plan->phase) : nullptr;
    if (!phase) continue;
    const auto file = spec.layout.relative(spec.layout.summary_file(*phase, id));
    std::erase_if(spec.diagnostics, [&](const Diagnostic& d) { return d.file == file; }); // the new reading's replace them
    spec.summaries.erase(id);
    load_summary(spec, *phase, *plan);
  }
}

const Plan* Spec::find_plan(std::string_view id) const {
  for (const auto& p : plans)
    if (p.id == id) return &p;
  return nullptr;
}

namespace {

/// A directory holds a spec when it has what a spec starts with (or GSD's .planning/).
bool holds_a_spec(const fs::path& dir) {
  std::error_code ec;
  return fs::exists(dir / "SPEC.md", ec) || fs::exists(dir / "ROADMAP.md", ec) || fs::is_directory(dir / "planning", ec) ||
         fs::is_directory(dir / ".planning", ec);
}

/// The spec directories just below `dir` and in its docs/specs/, when `dir` holds none itself:
/// `validate docs/specs` or `orchestrate .` meant one of these, and an empty spec would mislead.
std::vector<std::string> specs_below(const fs::path& dir) {
  std::vector<std::string> out;
  if (holds_a_spec(dir)) return out;
  for (const fs::path& base : {dir, dir / "docs" / "specs"}) {
    std::error_code ec;
    for (auto it = fs::directory_iterator(base, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
      std::error_code e2;
      // A spec has its SPEC.md or its planning/ (a ROADMAP.md alone is any document).
      if (it->is_directory(e2) && (fs::exists(it->path() / "SPEC.md", e2) || fs::is_directory(it->path() / "planning", e2)))
        out.push_back((fs::path(dir) / fs::relative(it->path(), dir, e2)).lexically_normal().generic_string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

} // namespace

std::expected<Spec, std::string> load_spec(const fs::path& spec_dir, const fs::path& cwd) {
  if (const auto below = specs_below(spec_dir); !below.empty()) {
    std::string names;
    for (std::size_t i = 0; i < below.size() && i < 5; ++i) names += (i ? ", " : "") + below[i];
    if (below.size() > 5) names += fmt::format(" and {} more", below.size() - 5);
    return std::unexpected(below.size() == 1
                               ? fmt::format("{} is not a spec directory; it holds the spec {}: give that", spec_dir.string(), names)
                               : fmt::format("{} is not a spec directory; it holds the specs {}: give one of them",
                                             spec_dir.string(), names));
  }
  auto layout = discover_layout(spec_dir, cwd);
  if (!layout) return std::unexpected(layout.error());
  Spec spec;
  spec.layout = std::move(*layout);
  std::error_code ec;
  // A GSD project whose planning/plans/ someone (or /harness:plan-phase) added: that directory
  // decides the layout, and GSD's plans under .planning/phases/ would vanish without a word.
  if (spec.layout.kind == LayoutKind::spec_centric && fs::is_directory(spec.layout.spec_dir / ".planning" / "phases", ec))
    spec.diagnostics.push_back(file_diag(
        ".planning", Severity::warning, "H041",
        fmt::format("both GSD's .planning/ and {} are here: harness reads {} and not the plans under .planning/phases/ "
                    "(move one set of plans, or keep harness's spec in a directory of its own such as docs/specs/SPC-001-name)",
                    spec.layout.relative(spec.layout.plans_dir), spec.layout.relative(spec.layout.plans_dir))));
  if (fs::is_directory(spec.layout.plans_dir, ec)) {
  } else if (fs::symlink_status(spec.layout.plans_dir, ec).type() != fs::file_type::not_found) {
    // A file or a link loop in its place: "no plans yet" would have the spec planned again.
    const auto shown = spec.layout.relative(spec.layout.plans_dir);
    const auto why = unreadable_entry(spec.layout.plans_dir); // empty: a readable file
    spec.diagnostics.push_back(file_diag(shown, Severity::error, "H002",
                                         fmt::format("'{}' cannot be read: {}", shown, why.empty() ? "it is not a directory" : why)));
  } else {
    spec.diagnostics.push_back(file_diag(spec.layout.relative(spec.layout.plans_dir), Severity::warning, "H023",
                                         "no plans directory yet (plan the spec with /harness:plan-phase)"));
  }
  if (auto text = read_document(spec, spec.layout.roadmap_md))
    spec.roadmap = parse_roadmap(*text, spec.layout.relative(spec.layout.roadmap_md), spec.diagnostics);
  if (spec.roadmap && spec.layout.kind == LayoutKind::legacy_gsd) detail::order_inserted_phases(*spec.roadmap, spec.layout.phases);
  detail::validate_links_outside(spec.layout, spec.diagnostics);
  detail::validate_directory_names(spec.layout, spec.diagnostics);
  detail::SourceTexts texts;
  load_plans(spec, texts);
  detail::validate_plan_set(spec.plans, texts, spec.diagnostics);
  if (auto requirements = read_document(spec, spec.layout.requirements_md))
    detail::validate_requirement_ids(spec.plans, detail::parse_requirement_ids(*requirements),
                                     spec.layout.relative(spec.layout.requirements_md), texts, spec.diagnostics);
  if (spec.roadmap) detail::validate_roadmap_cycles(spec.plans, *spec.roadmap, texts, spec.diagnostics);
  load_results(spec);
  std::stable_sort(spec.diagnostics.begin(), spec.diagnostics.end(), [](const Diagnostic& a, const Diagnostic& b) {
    return a.file != b.file ? a.file < b.file : a.line < b.line;
  });
  return spec;
}

namespace {

/// The phase directory a plan id names ("03-02": phase 03's), or nullptr.
const PhaseDir* phase_dir_of(const Layout& layout, const std::string& plan_id) {
  const auto dash = plan_id.rfind('-');
  auto phase = parse_phase_number(plan_id.substr(0, dash == std::string::npos ? 0 : dash));
  return phase ? layout.find_phase(*phase) : nullptr;
}

} // namespace

std::filesystem::path plan_path(const Layout& layout, const std::string& plan_id) {
  const auto* dir = phase_dir_of(layout, plan_id);
  return dir ? layout.plan_file(*dir, plan_id) : std::filesystem::path();
}

std::expected<Plan, std::string> load_one_plan(const Layout& layout, const std::string& plan_id) {
  const auto file = plan_path(layout, plan_id);
  if (file.empty()) return std::unexpected(fmt::format("plan {} not found in {}", plan_id, layout.spec_dir.string()));
  auto text = util::read_file(file);
  if (!text) return std::unexpected(fmt::format("plan {} not found: {}", plan_id, text.error()));
  return plan_from_text(layout, plan_id, *text);
}

std::expected<Plan, std::string> plan_from_text(const Layout& layout, const std::string& plan_id, std::string_view text) {
  const auto* dir = phase_dir_of(layout, plan_id);
  if (!dir) return std::unexpected(fmt::format("plan {} not found in {}", plan_id, layout.spec_dir.string()));
  const auto file = layout.plan_file(*dir, plan_id);
  std::vector<Diagnostic> diags;
  auto plan = parse_plan(text, layout.relative(file),
                         layout.kind == LayoutKind::legacy_gsd ? PlanDialect::gsd : PlanDialect::harness, diags);
  if (!plan || has_errors(diags)) {
    std::string why;
    for (const auto& d : diags) why += render(d);
    return std::unexpected(fmt::format("plan {} does not validate:\n{}", plan_id, why));
  }
  plan->id = plan_id;
  plan->phase = dir->number;
  plan->phase_slug = dir->slug;
  return *plan;
}

std::vector<std::filesystem::path> harness_written_files(const Spec& spec) {
  const auto& l = spec.layout;
  std::vector<std::filesystem::path> out{l.status_md, l.roadmap_md, l.requirements_md, l.final_verification, l.commits_log};
  for (const auto& d : l.phases) {
    out.push_back(l.verification_file(d));
    for (const auto& p : spec.plans)
      if (p.phase == d.number) out.push_back(l.summary_file(d, p.id));
  }
  std::erase_if(out, [](const auto& p) { return p.empty(); });
  return out;
}

std::vector<std::string> plans_declaring(const Spec& spec, std::string_view file) {
  std::vector<std::string> out;
  for (const auto& p : spec.plans)
    if (std::ranges::any_of(p.files_modified, [&](const std::string& g) { return util::glob_match(g, file); }))
      out.push_back(p.id);
  return out;
}

} // namespace harness::spec
