#include "harness/spec/plan_parser.hpp"

#include "harness/util/text.hpp"

#include "check_parser.hpp"
#include "near_miss.hpp"
#include "text_match.hpp"
#include "harness/spec/frontmatter.hpp"
#include "harness/spec/yaml_load.hpp"
#include "harness/spec/markdown.hpp"
#include "harness/spec/plan_checkpoints.hpp"
#include "yaml_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <set>

namespace harness::spec {
namespace {

using detail::YamlReader;

const std::set<std::string, std::less<>> k_plan_keys = {
    "plan_id", "depends_on", "files_modified", "files_read", "checkpoints", "autonomous", "must_pass",
    "estimate", "automation", "phase", "plan", "type", "wave", "requirements", "must_haves", "user_setup",
    "gap_closure", "title", "description", "tags", "created", "status", "subsystem"};
// The keys that steer scheduling or verification: a typo of one is an error (H026), since the
// plan would otherwise run unchecked or out of order. Typos of the descriptive keys only warn.
const std::set<std::string, std::less<>> k_weighty_keys = {
    "plan_id", "depends_on", "files_modified", "files_read", "checkpoints", "autonomous", "must_pass", "must_haves"};

void parse_automation(const YAML::Node& n, Plan& p, YamlReader& r) {
  if (!n.IsMap()) {
    r.error(n, "H004", "automation must be a map with type, scope, ralph, ecc");
    return;
  }
  struct Field {
    const char* key;
    std::string Automation::*member;
    std::set<std::string, std::less<>> allowed;
  };
  const Field fields[] = {{"type", &Automation::type, {"conceptual", "mechanical", "mixed"}},
                          {"scope", &Automation::scope, {"bounded", "unbounded"}},
                          {"ralph", &Automation::ralph, {"allowed", "discouraged", "forbidden"}},
                          {"ecc", &Automation::ecc, {"suggested", "optional", "unnecessary"}}};
  Automation a;
  for (const auto& f : fields) {
    const YAML::Node v = n[f.key];
    if (!v) continue;
    auto s = r.string(v, fmt::format("automation.{}", f.key));
    if (!s) continue;
    if (!f.allowed.contains(*s)) {
      std::string list;
      for (const auto& x : f.allowed) list += (list.empty() ? "" : ", ") + x;
      r.error(v, "H017", fmt::format("automation.{} is '{}'; expected one of {}", f.key, *s, list));
      continue;
    }
    a.*f.member = *s;
  }
  p.automation = a;
}

void parse_must_haves(const YAML::Node& n, Plan& p, YamlReader& r) {
  if (!n.IsMap()) {
    r.error(n, "H004", "must_haves must be a map with truths, artifacts, key_links");
    return;
  }
  if (const YAML::Node t = n["truths"]) p.must_haves.truths = r.string_list(t, "must_haves.truths").value_or(std::vector<std::string>{});
  if (const YAML::Node arts = n["artifacts"]) {
    if (!arts.IsSequence()) r.error(arts, "H004", "must_haves.artifacts must be a list");
    else
      for (const auto& a : arts) {
        Artifact art;
        art.line = r.line_of(a);
        if (a.IsScalar()) art.path = a.Scalar();
        else if (a.IsMap()) {
          if (a["path"]) art.path = r.string(a["path"], "artifacts.path").value_or("");
          else r.error(a, "H013", "must_haves artifact needs 'path'");
          if (a["provides"]) art.provides = r.string(a["provides"], "artifacts.provides").value_or("");
          if (a["min_lines"]) art.min_lines = r.integer(a["min_lines"], "artifacts.min_lines");
          if (a["contains"]) art.contains = r.string_list(a["contains"], "artifacts.contains").value_or(std::vector<std::string>{});
          if (a["exports"]) art.exports = r.string_list(a["exports"], "artifacts.exports").value_or(std::vector<std::string>{});
        }
        p.must_haves.artifacts.push_back(std::move(art));
      }
  }
  if (const YAML::Node links = n["key_links"]) {
    if (!links.IsSequence()) r.error(links, "H004", "must_haves.key_links must be a list");
    else
      for (const auto& l : links) {
        KeyLink k;
        k.line = r.line_of(l);
        if (!l.IsMap()) {
          r.error(l, "H004", "a key_link must be a map with from, to, via, pattern");
          continue;
        }
        for (auto [key, member] : {std::pair{"from", &KeyLink::from}, std::pair{"to", &KeyLink::to},
                                   std::pair{"via", &KeyLink::via}, std::pair{"pattern", &KeyLink::pattern}})
          if (l[key]) k.*member = r.string(l[key], fmt::format("key_links.{}", key)).value_or("");
        if (k.from.empty() || k.pattern.empty()) r.error(l, "H013", "a key_link needs 'from' and 'pattern'");
        p.must_haves.key_links.push_back(std::move(k));
      }
  }
}

void parse_must_pass(const YAML::Node& n, Plan& p, YamlReader& r) {
  if (n.IsNull()) return;
  if (!n.IsSequence()) {
    r.error(n, "H004", "must_pass must be a list of checks");
    return;
  }
  std::set<std::string> ids;
  size_t i = 0;
  for (const auto& item : n) {
    if (auto c = detail::parse_check(item, i, r)) {
      if (!c->id.empty() && !ids.insert(c->id).second)
        r.error(item["id"], "H016", fmt::format("duplicate check id '{}'", c->id));
      p.must_pass.push_back(std::move(*c));
    }
    ++i;
  }
}

/// H033: a checkpoint value harness does not know would be ignored, and a plan its planner marked
/// as needing a person would run with nobody asked.
void parse_checkpoints(const YAML::Node& v, Plan& p, YamlReader& r) {
  p.checkpoints = r.string_list(v, "checkpoints").value_or(std::vector<std::string>{});
  for (std::size_t i = 0; i < p.checkpoints.size(); ++i)
    if (!parse_checkpoint_kind(p.checkpoints[i]))
      r.warning(v.IsSequence() ? v[i] : v, "H033",
                fmt::format("checkpoints value '{}' is not one harness knows, so it asks nobody for it: use verification "
                            "(or human-verify), decision or action (or human-action)",
                            p.checkpoints[i]));
}

void parse_key(const std::string& key, const YAML::Node& v, Plan& p, YamlReader& r) {
  if (key == "plan_id") p.id = r.string(v, "plan_id").value_or("");
  else if (key == "depends_on") p.depends_on = r.string_list(v, "depends_on").value_or(std::vector<std::string>{});
  else if (key == "files_modified") p.files_modified = r.string_list(v, "files_modified").value_or(std::vector<std::string>{});
  else if (key == "files_read") p.files_read = r.string_list(v, "files_read").value_or(std::vector<std::string>{});
  else if (key == "checkpoints") parse_checkpoints(v, p, r);
  else if (key == "autonomous") p.autonomous = r.boolean(v, "autonomous").value_or(true);
  else if (key == "must_pass") parse_must_pass(v, p, r);
  else if (key == "estimate") {
    p.estimate_minutes = r.number(v, "estimate (minutes)");
    if (p.estimate_minutes && *p.estimate_minutes < 0) r.error(v, "H017", "estimate must not be negative");
    // The bound simulate --durations sets (H301): a larger one drowned every other plan's minutes
    // and printed 300-digit figures (review FF F9).
    else if (p.estimate_minutes && *p.estimate_minutes > 52'560'000)
      r.error(v, "H017", "estimate must be at most 52560000 minutes (100 years)");
  } else if (key == "automation") parse_automation(v, p, r);
  else if (key == "type") p.type = r.string(v, "type").value_or("");
  else if (key == "title") p.title = util::printable(r.string(v, "title").value_or(""), false);
  else if (key == "wave") p.wave = r.integer(v, "wave");
  else if (key == "phase") p.phase_key = r.string(v, "phase").value_or("");
  else if (key == "plan") p.plan_key = r.string(v, "plan").value_or("");
  else if (key == "requirements") p.requirements = r.string_list(v, "requirements").value_or(std::vector<std::string>{});
  else if (key == "must_haves") parse_must_haves(v, p, r);
  else if (key == "gap_closure") p.gap_closure = r.boolean(v, "gap_closure").value_or(false);
  else if (key == "user_setup") {
    if (v.IsSequence())
      for (const auto& u : v) p.user_setup.push_back(u.IsScalar() ? u.Scalar() : detail::yaml_to_json(u));
    else if (!v.IsNull()) r.error(v, "H004", "user_setup must be a list");
  }
}

/// A plan without a `# ` heading or `title:` (GSD plans often have none) is named by its
/// objective's first sentence, so that status and commit subjects do not show an empty title.
std::string title_from_objective(std::string_view objective) {
  std::string line = util::printable(objective.substr(0, objective.find('\n')), false);
  while (!line.empty() && line.front() == ' ') line.erase(0, 1);
  if (auto stop = line.find(". "); stop != std::string::npos) line.resize(stop);
  while (!line.empty() && (line.back() == ' ' || line.back() == '.')) line.pop_back();
  constexpr std::size_t k_max = 80;
  if (line.size() <= k_max) return line;
  return std::string(util::utf8_prefix(line, k_max)) + "\u2026";
}

/// The keys a PLAN must have: GSD's legacy layout takes the id from the file name.
const std::set<std::string, std::less<>>& required_keys(PlanDialect dialect) {
  static const std::set<std::string, std::less<>> harness = {"plan_id", "depends_on", "files_modified"};
  static const std::set<std::string, std::less<>> gsd = {"depends_on", "files_modified"};
  return dialect == PlanDialect::harness ? harness : gsd;
}

/// H032: tasks with `files_modified: []` run, but nothing they write is committed by the script
/// worker (it commits declared files only) and no file conflict keeps the plan apart from plans
/// running beside it; the run still ends verified when the checks pass on the uncommitted files.
void warn_empty_write_set(const YAML::Node& root, const Plan& p, YamlReader& r) {
  const YAML::Node files = root["files_modified"];
  if (!files || !files.IsSequence() || files.size() != 0 || p.tasks.empty()) return;
  r.warning(files, "H032",
            fmt::format("plan has {} task{} but files_modified is empty: nothing it writes is committed by the script "
                        "worker, and no file conflict keeps it apart from the plans that run beside it (list the files "
                        "its tasks write)",
                        p.tasks.size(), p.tasks.size() == 1 ? "" : "s"));
}

} // namespace

std::optional<std::pair<PhaseNumber, int>> parse_plan_file_name(std::string_view name) {
  if (!name.ends_with("-PLAN.md")) return std::nullopt;
  name.remove_suffix(8);
  const auto dash = name.rfind('-');
  if (dash == std::string_view::npos) return std::nullopt;
  auto phase = parse_phase_number(name.substr(0, dash));
  std::string_view num = name.substr(dash + 1);
  int n = 0;
  auto [ptr, ec] = std::from_chars(num.data(), num.data() + num.size(), n);
  if (!phase || ec != std::errc{} || ptr != num.data() + num.size() || num.empty()) return std::nullopt;
  return std::pair{*phase, n};
}

std::string title_without_id(std::string_view heading, std::string_view id) {
  auto blank = [](char c) { return c == ' ' || c == '\t'; };
  auto trim_front = [&](std::string_view t) {
    while (!t.empty() && blank(t.front())) t.remove_prefix(1);
    return t;
  };
  heading = trim_front(heading);
  if (id.empty() || !heading.starts_with(id)) return std::string(heading);
  std::string_view rest = heading.substr(id.size());
  // "01-02:" or "01-02 ...", never "01-023" or "01-02a", which are other names.
  if (!rest.empty() && rest.front() != ':' && !blank(rest.front())) return std::string(heading);
  rest = trim_front(rest);
  for (std::string_view sep : {":", "-", "\u2013", "\u2014"}) // ':', '-', en and em dash
    if (rest.starts_with(sep)) {
      rest = trim_front(rest.substr(sep.size()));
      break;
    }
  return rest.empty() ? std::string(heading) : std::string(rest);
}

std::string plan_id_of(PhaseNumber phase, int number) { return fmt::format("{}-{:02}", to_string(phase), number); }

std::optional<std::string> same_phase_plan_id(PhaseNumber phase, std::string_view dependency) {
  if (dependency.empty() || dependency.size() > 3 ||
      !std::ranges::all_of(dependency, [](unsigned char c) { return std::isdigit(c); }))
    return std::nullopt;
  int number = 0;
  std::from_chars(dependency.data(), dependency.data() + dependency.size(), number);
  return plan_id_of(phase, number);
}

namespace {

/// `text` with every run of white space one blank, trimmed: a GSD element's indented lines as
/// one line of a question.
std::string one_line(std::string_view text) {
  std::string out;
  for (char c : util::printable(text, false)) {
    const bool blank = c == ' ';
    if (blank && (out.empty() || out.back() == ' ')) continue;
    out += c;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

/// Appends the <what-built> and <how-to-verify> of the checkpoint task starting at `from` in
/// `text` to plan.human_check.
void add_human_check(std::string_view text, size_t from, Plan& plan) {
  std::string said;
  if (auto built = detail::element_text(text, "what-built", from); built && !one_line(*built).empty())
    said = "built: " + one_line(*built);
  if (auto how = detail::element_text(text, "how-to-verify", from); how && !one_line(*how).empty())
    said += (said.empty() ? "" : "; ") + std::string("to check: ") + one_line(*how);
  if (!said.empty()) plan.human_check += (plan.human_check.empty() ? "" : "; ") + said;
}

} // namespace

void scan_plan_body(std::string_view body, int first_line, Plan& plan) {
  bool in_objective_section = false;
  for (auto& b : markdown_blocks(body, first_line)) {
    switch (b.kind) {
    case MdBlockKind::heading:
      in_objective_section = b.text == "Objective";
      if (b.level == 1 && plan.title.empty()) {
        // The id is known here only from `plan_id:`; load_plans strips it again once the file name
        // gave it (GSD plans need not write plan_id).
        plan.title = util::printable(title_without_id(b.text, plan.id), false); // printed by status, put in commit subjects
      } else if (auto name = detail::task_heading_name(b.text)) {
        plan.tasks.push_back({util::printable(*name, false), b.line});
      }
      break;
    case MdBlockKind::code: plan.code_blocks.push_back({b.info, b.text, b.line}); break;
    case MdBlockKind::html: {
      // GSD <task> elements: one block may hold several tasks, each with a <name>.
      size_t pos = 0;
      while ((pos = b.text.find("<task", pos)) != std::string::npos) {
        const char after = pos + 5 < b.text.size() ? b.text[pos + 5] : '>';
        if (after == ' ' || after == '>' || after == '\n') {
          int task_line = b.line + static_cast<int>(std::count(b.text.begin(), b.text.begin() + static_cast<long>(pos), '\n'));
          const size_t end = b.text.find("</task>", pos);
          auto name = detail::element_text(std::string_view(b.text).substr(0, end), "name", pos);
          plan.tasks.push_back({name ? util::printable(*name, false) : fmt::format("Task {}", plan.tasks.size() + 1), task_line});
          // <task type="checkpoint:human-verify"> (or :decision, :human-action) is GSD's way of
          // saying the plan needs a person: as if `checkpoints:` listed it, so somebody is asked.
          const std::string_view tag = std::string_view(b.text).substr(pos, b.text.find('>', pos) - pos);
          if (const size_t t = tag.find("type=\"checkpoint:"); t != std::string_view::npos) {
            const std::string_view value = tag.substr(t + 6, tag.find('"', t + 6) - (t + 6));
            if (parse_checkpoint_kind(value) &&
                std::ranges::none_of(plan.checkpoints, [&](const std::string& c) { return parse_checkpoint_kind(c) == parse_checkpoint_kind(value); }))
              plan.checkpoints.emplace_back(value);
            if (value == "checkpoint:human-verify") add_human_check(std::string_view(b.text).substr(0, end), pos, plan);
          }
        }
        pos += 5;
      }
      if (plan.objective.empty()) {
        if (auto o = detail::element_text(b.text, "objective")) {
          plan.objective = *o;
        } else if (const size_t at = b.text.find("<objective>"); at != std::string::npos) {
          // GSD's objective holds a blank line ("What...\n\nPurpose: ..."), where Markdown ends
          // the HTML block: the block holds the element's first part, which is what a title needs.
          const std::string_view rest = std::string_view(b.text).substr(at + 11);
          const size_t first = rest.find_first_not_of(" \t\r\n");
          if (first != std::string_view::npos) plan.objective = std::string(rest.substr(first));
          while (!plan.objective.empty() && std::isspace(static_cast<unsigned char>(plan.objective.back())))
            plan.objective.pop_back();
        }
      }
      break;
    }
    case MdBlockKind::paragraph:
      if (in_objective_section && plan.objective.empty()) plan.objective = b.text;
      break;
    default: break;
    }
  }
}

std::optional<Plan> parse_plan(std::string_view text, const std::string& display_path, PlanDialect dialect,
                               std::vector<Diagnostic>& out) {
  const auto split = split_frontmatter(text);
  YamlReader r(display_path, text, split.yaml_first_line, out);
  if (!split.present) {
    r.add_at(1, 1, Severity::error, "H002", "a PLAN must start with YAML frontmatter between '---' lines");
    return std::nullopt;
  }
  if (!split.terminated) {
    r.add_at(1, 1, Severity::error, "H002", missing_fence_message(split));
    return std::nullopt;
  }
  YAML::Node root;
  try {
    root = load_yaml(std::string(split.yaml));
  } catch (const YAML::Exception& e) {
    r.add_at(e.mark.line >= 0 ? e.mark.line + split.yaml_first_line : 1, e.mark.column >= 0 ? e.mark.column + 1 : 0,
             Severity::error, "H001", fmt::format("malformed YAML: {}", e.msg));
    return std::nullopt;
  }
  if (!root.IsMap()) {
    r.add_at(split.yaml_first_line, 1, Severity::error, "H001", "the frontmatter must be a YAML map of keys");
    return std::nullopt;
  }
  r.check_unique_keys(root);
  Plan p;
  p.file = display_path;
  p.body_line = split.body_first_line;
  for (const auto& kv : root) {
    const std::string key = kv.first.Scalar();
    p.key_lines[key] = r.line_of(kv.first);
    if (!k_plan_keys.contains(key)) {
      if (auto like = detail::near_miss(key, k_weighty_keys))
        r.error(kv.first, "H026", fmt::format("unknown frontmatter key '{}': did you mean '{}'? (as written, the plan "
                                              "would run without it)", key, *like));
      else if (auto hint = detail::near_miss(key, k_plan_keys))
        r.warning(kv.first, "H014", fmt::format("unknown frontmatter key '{}' is ignored (did you mean '{}'?)", key, *hint));
      else r.warning(kv.first, "H014", fmt::format("unknown frontmatter key '{}' is ignored", key));
      continue;
    }
    // A required key left without a value (`files_modified:`) is as good as missing: read as
    // "none", it would let the plan's writes go uncommitted and its conflicts unseen.
    if (kv.second.IsNull() && required_keys(dialect).contains(key)) {
      r.error(kv.first, "H003", fmt::format("required field '{}' has no value (write [] for none)", key));
      continue;
    }
    parse_key(key, kv.second, p, r);
  }
  for (const auto& key : required_keys(dialect))
    if (!root[key]) r.add_at(split.yaml_first_line, 1, Severity::error, "H003", fmt::format("required field '{}' is missing", key));
  scan_plan_body(split.body, split.body_first_line, p);
  if (p.title.empty()) p.title = title_from_objective(p.objective);
  warn_empty_write_set(root, p, r);
  return p;
}

} // namespace harness::spec
