#include "harness/spec/document_parsers.hpp"

#include "harness/spec/frontmatter.hpp"
#include "harness/spec/markdown.hpp"
#include "harness/spec/yaml_load.hpp"
#include "text_match.hpp"
#include "yaml_reader.hpp"

#include <fmt/format.h>

#include <map>

#include <algorithm>
#include <cctype>

namespace harness::spec {
namespace {

using detail::YamlReader;

/// Loads the frontmatter map, or an empty node (with a diagnostic for malformed YAML).
YAML::Node load_frontmatter(const FrontmatterSplit& split, YamlReader& r) {
  if (!split.present) return {};
  if (!split.terminated) {
    r.add_at(1, 1, Severity::error, "H002", missing_fence_message(split));
    return {};
  }
  try {
    YAML::Node n = load_yaml(std::string(split.yaml));
    if (n.IsMap()) {
      r.check_unique_keys(n);
      return n;
    }
    if (!n.IsNull()) r.add_at(split.yaml_first_line, 1, Severity::error, "H001", "the frontmatter must be a YAML map of keys");
  } catch (const YAML::Exception& e) {
    r.add_at(e.mark.line >= 0 ? e.mark.line + split.yaml_first_line : 1, e.mark.column >= 0 ? e.mark.column + 1 : 0,
             Severity::error, "H001", fmt::format("malformed YAML: {}", e.msg));
  }
  return {};
}

void read_roadmap_frontmatter(const YAML::Node& fm, RoadmapFrontmatter& out, YamlReader& r) {
  auto opt_int = [&](const char* key, std::optional<int>& target) {
    if (fm[key]) target = r.integer(fm[key], key);
  };
  if (fm["version"]) out.version = r.integer(fm["version"], "version").value_or(1);
  if (const YAML::Node p = fm["project"]) {
    if (p.IsMap() && p["name"]) out.project = r.string(p["name"], "project.name").value_or("");
    else if (p.IsScalar()) out.project = p.Scalar();
  }
  if (fm["milestone"]) out.milestone = r.string(fm["milestone"], "milestone").value_or("");
  if (fm["current_phase"]) out.current_phase = r.string(fm["current_phase"], "current_phase");
  opt_int("current_plan", out.current_plan);
  if (fm["status"]) {
    out.status = r.string(fm["status"], "status").value_or("");
    static const std::vector<std::string> allowed = {"planning", "executing", "verifying", "blocked", "complete"};
    if (!out.status.empty() && std::find(allowed.begin(), allowed.end(), out.status) == allowed.end())
      r.error(fm["status"], "H017", fmt::format("status '{}' is not one of planning, executing, verifying, blocked, complete", out.status));
  }
  opt_int("total_phases", out.total_phases);
  opt_int("completed_phases", out.completed_phases);
  opt_int("total_plans", out.total_plans);
  opt_int("completed_plans", out.completed_plans);
  if (const YAML::Node v = fm["velocity"]; v && v.IsMap()) {
    if (v["total_plans_completed"]) out.velocity_total_plans_completed = r.integer(v["total_plans_completed"], "velocity.total_plans_completed");
    if (v["total_execution_minutes"]) out.velocity_total_execution_minutes = r.number(v["total_execution_minutes"], "velocity.total_execution_minutes");
    if (v["average_minutes_per_plan"]) out.velocity_average_minutes_per_plan = r.number(v["average_minutes_per_plan"], "velocity.average_minutes_per_plan");
  }
}

/// "Goal: x" → ("goal", "x"); keys compared case-insensitively, markup already stripped.
/// A parenthetical between key and colon is dropped: GSD's template writes
/// "**Success Criteria** (what must be TRUE):", which arrives here as
/// "Success Criteria (what must be TRUE):".
std::optional<std::pair<std::string, std::string>> field_line(std::string_view line) {
  const auto colon = line.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  std::string_view key_text = line.substr(0, colon);
  while (!key_text.empty() && key_text.back() == ' ') key_text.remove_suffix(1);
  if (key_text.ends_with(')'))
    if (const auto open = key_text.rfind('('); open != std::string_view::npos) key_text = key_text.substr(0, open);
  while (!key_text.empty() && key_text.back() == ' ') key_text.remove_suffix(1);
  // A long "key" is a sentence that happens to contain a colon, not a field.
  if (key_text.size() > 24) return std::nullopt;
  std::string key(key_text);
  for (auto& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string value(line.substr(colon + 1));
  value.erase(0, value.find_first_not_of(" \t"));
  return std::pair{key, value};
}

/// The lines of a block's text, which keeps soft breaks as '\n'.
std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> lines;
  for (size_t start = 0;;) {
    const size_t nl = text.find('\n', start);
    lines.push_back(text.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start));
    if (nl == std::string_view::npos) return lines;
    start = nl + 1;
  }
}

/// The phase fields the roadmap reads, and those GSD's template writes next to them.
bool is_phase_key(std::string_view key) {
  static constexpr std::string_view keys[] = {"goal", "depends on", "depends_on", "success criteria", "plans", "requirements"};
  return std::ranges::find(keys, key) != std::end(keys);
}

bool is_phase_field(std::string_view line) {
  const auto f = field_line(line);
  return f && is_phase_key(f->first);
}

/// Applies one line of a phase's field paragraph. Any field after the criteria ends them.
void apply_phase_field(std::string_view line, RoadmapPhase& phase, bool& in_criteria) {
  const auto f = field_line(line);
  if (!f || !is_phase_key(f->first)) return;
  in_criteria = f->first == "success criteria";
  if (f->first == "goal") phase.goal = f->second;
  else if (f->first == "depends on" || f->first == "depends_on") {
    phase.depends_on_text = f->second;
    phase.depends_on = detail::phase_list(f->second).numbers;
  }
}

/// A criterion from a list item. GSD's template puts "**Plans**: 3 plans" right under the last
/// criterion, which markdown reads as a lazy continuation of that item: from the first known
/// field line on, the lines are fields, not criterion text.
void read_criterion(std::string_view text, RoadmapPhase& phase, bool& in_criteria) {
  const auto lines = lines_of(text);
  size_t end = 1;
  while (end < lines.size() && !is_phase_field(lines[end])) ++end;
  const size_t length = end < lines.size() ? static_cast<size_t>(lines[end].data() - text.data()) - 1 : text.size();
  phase.success_criteria.emplace_back(text.substr(0, length));
  for (size_t i = end; i < lines.size(); ++i) apply_phase_field(lines[i], phase, in_criteria);
}

/// The cells of a VERIFICATION results table's rows (`| plan | check | type | status | ...`),
/// trimmed; nullopt when the body has no such table.
std::optional<std::vector<std::vector<std::string_view>>> table_rows(std::string_view body) {
  std::optional<std::vector<std::vector<std::string_view>>> rows;
  bool in_table = false;
  for (const auto line : lines_of(body)) {
    if (line.starts_with("| plan |")) {
      in_table = true;
      rows.emplace();
      continue;
    }
    if (!in_table) continue;
    if (!line.starts_with("|")) {
      in_table = false;
      continue;
    }
    if (line.starts_with("|--") || line.starts_with("| --")) continue;
    std::vector<std::string_view> cells;
    for (std::size_t at = 1; at < line.size();) {
      const auto end = std::min(line.find('|', at), line.size());
      auto cell = line.substr(at, end - at);
      while (!cell.empty() && cell.front() == ' ') cell.remove_prefix(1);
      while (!cell.empty() && cell.back() == ' ') cell.remove_suffix(1);
      cells.push_back(cell);
      at = end + 1;
    }
    rows->push_back(std::move(cells));
  }
  return rows;
}

/// The plan column of the results table, in order, each id once; "-" marks a phase-level item.
/// nullopt when the body has no such table, or an empty one (a template's, a hand-written
/// report's): it says nothing about which plans were covered.
std::optional<std::vector<std::string>> table_plans(const std::optional<std::vector<std::vector<std::string_view>>>& rows) {
  if (!rows) return std::nullopt;
  std::vector<std::string> plans;
  for (const auto& row : *rows) {
    const auto cell = row.empty() ? std::string_view() : row[0];
    if (cell.empty() || cell == "-") continue;
    if (std::ranges::find(plans, cell) == plans.end()) plans.emplace_back(cell);
  }
  if (plans.empty()) return std::nullopt;
  return plans;
}

/// The (plan, check) of the results table's rows whose status is failed or error: the gaps.
std::vector<std::pair<std::string, std::string>> table_gaps(const std::optional<std::vector<std::vector<std::string_view>>>& rows) {
  std::vector<std::pair<std::string, std::string>> gaps;
  if (!rows) return gaps;
  for (const auto& row : *rows)
    if (row.size() >= 4 && (row[3] == "failed" || row[3] == "error"))
      gaps.emplace_back(row[0] == "-" ? std::string() : std::string(row[0]), std::string(row[1]));
  return gaps;
}

/// The approval (`approved_by/at`, `approval_note`) or the refusal the orchestrator recorded.
std::optional<HumanAnswer> answer_keys(const YAML::Node& fm, YamlReader& r, bool approved) {
  const char* by = approved ? "approved_by" : "refused_by";
  if (!fm[by]) return std::nullopt;
  HumanAnswer a;
  a.approved = approved;
  a.by = r.string(fm[by], by).value_or("");
  const char* at = approved ? "approved_at" : "refused_at";
  if (fm[at]) a.at = r.string(fm[at], at).value_or("");
  const char* note = approved ? "approval_note" : "refusal_note";
  if (fm[note]) a.note = r.string(fm[note], note).value_or("");
  return a;
}

/// The person's answer the orchestrator recorded in a VERIFICATION, if any (an approval wins
/// over a refusal: a phase once approved is not asked again).
std::optional<HumanAnswer> human_answer(const YAML::Node& fm, YamlReader& r) {
  if (auto approval = answer_keys(fm, r, true)) return approval;
  return answer_keys(fm, r, false);
}

/// In a SUMMARY the latest answer counts: a plan refused, then approved when asked again (or the
/// other way round after its work changed) keeps both records.
std::optional<HumanAnswer> latest_human_answer(const YAML::Node& fm, YamlReader& r) {
  auto approval = answer_keys(fm, r, true);
  auto refusal = answer_keys(fm, r, false);
  if (approval && refusal) return refusal->at > approval->at ? refusal : approval; // ISO 8601 UTC: text order is time order
  return approval ? approval : refusal;
}

/// The SUMMARY keys that decide a plan's state: `status: failed` fails it, `verification: passed`
/// verifies it. A value outside their sets (`Passed`, `yes`, `gaps-found`, `done`) would silently
/// read as "executed, not verified", so it is an error, as a VERIFICATION's status is (H022).
void read_summary_facts(const YAML::Node& fm, std::string_view file_plan_id, Summary& s, YamlReader& r) {
  if (const YAML::Node id = fm["plan_id"]) {
    s.plan_id = r.string(id, "plan_id").value_or("");
    // The file name decides which plan it is for, as for a PLAN (H006).
    if (!file_plan_id.empty() && !s.plan_id.empty() && s.plan_id != file_plan_id)
      r.error(id, "H006", fmt::format("plan_id '{}' does not match the file name (expected '{}'): harness reads this "
                                      "SUMMARY as {}'s", s.plan_id, file_plan_id, file_plan_id));
  }
  if (const YAML::Node st = fm["status"]) {
    s.status = r.string(st, "status").value_or("");
    static constexpr std::string_view allowed[] = {"complete", "partial", "failed"};
    if (!s.status.empty() && std::ranges::find(allowed, s.status) == std::end(allowed))
      r.error(st, "H017", fmt::format("status '{}' is not one of complete, partial, failed", s.status));
  }
  // No value reads as not verified yet, as no key does: the safe side.
  if (const YAML::Node v = fm["verification"]; v && !v.IsNull()) {
    const auto text = r.string(v, "verification");
    if (text) s.verification = parse_verification_status(*text);
    if (text && !s.verification)
      r.error(v, "H017", fmt::format("verification '{}' is not one of passed, gaps_found, human_needed", *text));
  }
  s.answer = latest_human_answer(fm, r);
}

/// The line of phase `p`'s `Depends on` field: the first line from its heading that names it.
int depends_line(std::string_view text, const RoadmapPhase& p) {
  int line = 1;
  for (std::size_t start = 0;; ++line) {
    const std::size_t nl = text.find('\n', start);
    std::string l(text.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start));
    for (auto& c : l) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (line >= p.line && (l.find("depends on") != std::string::npos || l.find("depends_on") != std::string::npos)) return line;
    if (nl == std::string_view::npos) return p.line;
    start = nl + 1;
  }
}

/// H034: the scheduler holds a phase's plans until the phases it depends on are done, so it can
/// only follow an earlier phase; a name the roadmap does not list is most likely a typo, and a
/// value it cannot read in full orders nothing (or less than its author meant).
void check_phase_dependencies(std::string_view text, const Roadmap& rm, YamlReader& r) {
  for (const auto& p : rm.phases) {
    if (const auto list = detail::phase_list(p.depends_on_text); !list.unread.empty())
      r.add_at(depends_line(text, p), 1, Severity::warning, "H034",
               fmt::format("phase {}'s Depends on '{}' {} (write 'Phase N', 'Phases N, M and K' or 'nothing')",
                           to_string(p.number), p.depends_on_text, list.unread));
    for (const auto d : p.depends_on) {
      if (d >= p.number)
        r.add_at(depends_line(text, p), 1, Severity::warning, "H034",
                 fmt::format("phase {} depends on {}: ignored, a phase can only wait for an earlier one", to_string(p.number),
                             d == p.number ? "itself" : "a later phase " + to_string(d)));
      else if (std::ranges::none_of(rm.phases, [&](const RoadmapPhase& q) { return q.number == d; }))
        r.add_at(depends_line(text, p), 1, Severity::warning, "H034",
                 fmt::format("phase {} depends on phase {}, which the roadmap does not list", to_string(p.number), to_string(d)));
    }
  }
}

/// Whether a deviations entry says there were none: "None", "none.", "No deviations", "N/A",
/// and "None" followed by punctuation ("None - all files within files_modified", the template's
/// own "None. (Otherwise: ...)"). "None of the tests ran" is a deviation.
bool says_no_deviation(std::string_view text) {
  std::string t;
  for (const char c : text) t += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  while (!t.empty() && (t.back() == '.' || t.back() == '\n' || t.back() == ' ')) t.pop_back();
  while (!t.empty() && (t.front() == ' ' || t.front() == '-' || t.front() == '*')) t.erase(0, 1);
  if (t.empty() || t == "no deviations" || t == "n/a" || t == "false" || t == "nothing") return true;
  if (!t.starts_with("none")) return false;
  std::size_t i = 4;
  while (i < t.size() && t[i] == ' ') ++i;
  return i == t.size() || std::string_view(".,;:-(\xe2").find(t[i]) != std::string_view::npos; // \xe2: an en or em dash
}

} // namespace

Roadmap parse_roadmap(std::string_view text, const std::string& display_path, std::vector<Diagnostic>& out) {
  Roadmap rm;
  rm.file = display_path;
  const auto split = split_frontmatter(text);
  YamlReader r(display_path, text, split.yaml_first_line, out);
  if (YAML::Node fm = load_frontmatter(split, r); fm.IsMap()) {
    rm.has_frontmatter = true;
    read_roadmap_frontmatter(fm, rm.frontmatter, r);
  }
  std::vector<std::pair<PhaseNumber, bool>> overview; // "- [x] Phase 1: ..." before the sections
  RoadmapPhase* current = nullptr;
  bool in_criteria = false;
  std::map<PhaseNumber, int> first_heading; // each phase's first heading line
  for (const auto& b : markdown_blocks(split.body, split.body_first_line)) {
    if (b.kind == MdBlockKind::heading) {
      in_criteria = false;
      auto heading = b.level == 2 || b.level == 3 ? detail::phase_heading(b.text) : std::nullopt;
      if (heading) {
        RoadmapPhase p;
        p.number = heading->first;
        p.name = heading->second;
        if (p.name.ends_with("✓") || p.name.ends_with("(complete)")) p.complete = true;
        // GSD's mark of a phase /gsd:insert-phase added: how it came, not its name.
        if (p.name.ends_with(" (INSERTED)")) p.name.resize(p.name.size() - 11);
        p.line = b.line;
        // One error per repeated heading, naming the first: one per pair of copies grew with the
        // square (1,000 copies: half a million errors, review FF F3b).
        if (auto [first, added] = first_heading.try_emplace(p.number, b.line); !added)
          r.add_at(b.line, 1, Severity::error, "H005",
                   fmt::format("phase {} is listed again in the roadmap (first at line {})", to_string(p.number), first->second));
        rm.phases.push_back(std::move(p));
        current = &rm.phases.back();
      } else if (b.level <= 2) {
        current = nullptr;
      }
      continue;
    }
    if (b.kind == MdBlockKind::list_item && b.is_task && !current) {
      if (auto item = detail::phase_heading(b.text)) {
        overview.emplace_back(item->first, b.checked);
        continue;
      }
    }
    if (!current) continue;
    if (b.kind == MdBlockKind::paragraph) {
      in_criteria = false;
      for (const auto line : lines_of(b.text)) apply_phase_field(line, *current, in_criteria);
    } else if (b.kind == MdBlockKind::list_item) {
      if (b.is_task) current->checklist.push_back({b.text, b.checked, b.line});
      else if (in_criteria) read_criterion(b.text, *current, in_criteria);
    }
  }
  for (const auto& [n, checked] : overview)
    for (auto& p : rm.phases)
      if (p.number == n && checked) p.complete = true;
  check_phase_dependencies(text, rm, r);
  return rm;
}

Summary parse_summary(std::string_view text, const std::string& display_path, std::vector<Diagnostic>& out,
                      std::string_view file_plan_id) {
  Summary s;
  s.file = display_path;
  const auto split = split_frontmatter(text);
  YamlReader r(display_path, text, split.yaml_first_line, out);
  YAML::Node fm = load_frontmatter(split, r);
  if (fm.IsMap()) {
    read_summary_facts(fm, file_plan_id, s, r);
    if (fm["commits"]) s.commits = r.string_list(fm["commits"], "commits").value_or(std::vector<std::string>{});
    if (fm["files_touched"]) s.files_touched = r.string_list(fm["files_touched"], "files_touched").value_or(std::vector<std::string>{});
    if (const YAML::Node d = fm["deviations"]) {
      if (d.IsScalar()) {
        std::string v = d.Scalar();
        if (!says_no_deviation(v)) s.deviations.push_back(v);
      } else {
        s.deviations = r.string_list(d, "deviations").value_or(std::vector<std::string>{});
      }
    }
  }
  // A "## Deviations" section with anything but "None" also counts.
  bool in_dev = false;
  for (const auto& b : markdown_blocks(split.body, split.body_first_line)) {
    if (b.kind == MdBlockKind::heading) {
      in_dev = b.text.starts_with("Deviations");
      continue;
    }
    if (!in_dev || b.kind == MdBlockKind::html) continue; // an HTML comment (the template's instructions) says nothing
    if (!says_no_deviation(b.text))
      if (std::find(s.deviations.begin(), s.deviations.end(), b.text) == s.deviations.end()) s.deviations.push_back(b.text);
  }
  s.has_deviations = !s.deviations.empty();
  return s;
}

Verification parse_verification(std::string_view text, const std::string& display_path, std::vector<Diagnostic>& out) {
  Verification v;
  v.file = display_path;
  const auto split = split_frontmatter(text);
  YamlReader r(display_path, text, split.yaml_first_line, out);
  YAML::Node fm = load_frontmatter(split, r);
  if (!fm.IsMap()) {
    if (split.present) return v;
    r.add_at(1, 1, Severity::warning, "H022", "VERIFICATION has no frontmatter with a status");
    return v;
  }
  if (const YAML::Node s = fm["status"]) {
    auto text_status = r.string(s, "status").value_or("");
    v.status = parse_verification_status(text_status);
    if (!v.status)
      r.error(s, "H022", fmt::format("status '{}' is not one of passed, gaps_found, human_needed", text_status));
  } else {
    r.add_at(split.yaml_first_line, 1, Severity::error, "H003", "required field 'status' is missing");
  }
  if (fm["phase"]) v.phase = r.string(fm["phase"], "phase").value_or("");
  if (const YAML::Node sc = fm["score"]; sc && sc.IsScalar()) {
    int a = 0, b = 0;
    if (std::sscanf(sc.Scalar().c_str(), "%d/%d", &a, &b) == 2) v.score_passed = a, v.score_total = b;
  }
  const auto rows = table_rows(split.body);
  if (fm["plans"]) v.plans = r.string_list(fm["plans"], "plans");
  else v.plans = table_plans(rows);
  v.gaps = table_gaps(rows);
  if (const YAML::Node c = fm["checks_status"]; c && c.IsScalar()) v.checks_status = parse_verification_status(c.Scalar());
  if (fm["work_hash"]) v.work_hash = r.string(fm["work_hash"], "work_hash").value_or("");
  if (fm["executed_since"]) v.executed_since = r.string_list(fm["executed_since"], "executed_since").value_or(std::vector<std::string>{});
  v.answer = human_answer(fm, r);
  return v;
}

StatusDocument parse_status_document(std::string_view text, const std::string& display_path, std::vector<Diagnostic>& out) {
  StatusDocument d;
  d.file = display_path;
  const auto split = split_frontmatter(text);
  if (!split.present) return d;
  YamlReader r(display_path, text, split.yaml_first_line, out);
  YAML::Node fm = load_frontmatter(split, r);
  if (!fm.IsMap()) return d;
  const YAML::Node blocked = fm["blocked"];
  if (!blocked) return d;
  if (!blocked.IsSequence()) {
    r.error(blocked, "H004", "'blocked' must be a list of {task, reason}");
    return d;
  }
  for (const auto& b : blocked) {
    if (!b.IsMap() || !b["task"]) {
      r.error(b, "H004", "each 'blocked' entry needs a 'task'");
      continue;
    }
    BlockedTask t;
    t.task = r.string(b["task"], "blocked.task").value_or("");
    if (b["reason"]) t.reason = r.string(b["reason"], "blocked.reason").value_or("");
    d.blocked.push_back(std::move(t));
  }
  return d;
}

} // namespace harness::spec
