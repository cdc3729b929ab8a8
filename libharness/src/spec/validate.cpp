#include "validate.hpp"

#include "harness/spec/frontmatter.hpp"
#include "harness/spec/plan_parser.hpp"
#include "harness/util/glob.hpp"
#include "harness/util/text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <queue>
#include <set>

namespace harness::spec::detail {
namespace {

void add(std::vector<Diagnostic>& out, const Plan& plan, const SourceTexts& texts, int line, Severity sev,
         std::string code, std::string message, std::string_view needle = {}) {
  Diagnostic d;
  d.file = plan.file;
  d.line = line;
  d.severity = sev;
  d.code = std::move(code);
  d.message = std::move(message);
  if (auto it = texts.find(plan.file); it != texts.end()) {
    d.source_line = std::string(line_at(it->second, line));
    // The caret goes under the offending item when it is on the line, else under the key.
    const size_t at = needle.empty() ? std::string::npos : d.source_line.find(needle);
    const size_t first = d.source_line.find_first_not_of(" -");
    d.col = at != std::string::npos ? static_cast<int>(at) + 1 : first == std::string::npos ? 1 : static_cast<int>(first) + 1;
    if (at != std::string::npos && at > 0 && (d.source_line[at - 1] == '\'' || d.source_line[at - 1] == '"')) --d.col;
  }
  out.push_back(std::move(d));
}

int key_line(const Plan& p, const std::string& key) {
  auto it = p.key_lines.find(key);
  return it == p.key_lines.end() ? 1 : it->second;
}

bool escapes_project(std::string_view path) {
  int depth = 0;
  size_t start = 0;
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    std::string_view seg = path.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
    if (seg == "..") {
      if (--depth < 0) return true;
    } else if (!seg.empty() && seg != ".") {
      ++depth;
    }
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return false;
}

enum class ItemMatch { whole, part };

/// Whether `line` holds `needle`; with ItemMatch::whole, as a YAML item of its own (between blanks,
/// quotes, brackets or commas), not as a piece of a longer path or id.
bool holds(std::string_view line, std::string_view needle, ItemMatch match) {
  constexpr std::string_view opens = " \t'\"[,", closes = " \t\r'\",]";
  for (size_t at = line.find(needle); at != std::string_view::npos; at = line.find(needle, at + 1)) {
    if (match == ItemMatch::part) return true;
    const size_t end = at + needle.size();
    if ((at == 0 || opens.find(line[at - 1]) != std::string_view::npos) &&
        (end == line.size() || closes.find(line[end]) != std::string_view::npos))
      return true;
  }
  return false;
}

/// The first directory of a path inside the project once `.` and `..` are resolved
/// ("./.git/hooks/x" and "src/../.git" both give ".git"); "" for the project root itself.
std::string top_directory(std::string_view path) {
  std::vector<std::string_view> kept;
  size_t start = 0;
  while (start <= path.size()) {
    const size_t slash = path.find('/', start);
    const std::string_view seg = path.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
    if (seg == "..") {
      if (!kept.empty()) kept.pop_back();
    } else if (!seg.empty() && seg != ".") {
      kept.push_back(seg);
    }
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return kept.empty() ? std::string() : std::string(kept.front());
}

/// H029: git's own data and harness's state are no plan's to write; a plan that declares them
/// would have its worker commit (or try to commit) them.
void warn_reserved_directory(const Plan& plan, const SourceTexts& texts, int line, const std::string& path,
                             std::vector<Diagnostic>& out) {
  const std::string top = top_directory(path);
  const char* whose = top == ".git" ? "git's own data" : top == ".orchestration" ? "harness's own state" : nullptr;
  if (!whose) return;
  add(out, plan, texts, line, Severity::warning, "H029",
      fmt::format("files_modified entry '{}' is in {}/, {}, which no plan may write: remove the entry", path, top, whose),
      path);
}

/// The plans and the ROADMAP's phase dependencies as one graph: nodes 0..n-1 are the plans (in the
/// order given), node n+k stands for "every plan of phases[k]". A plan's edges go to the plans it
/// depends on and to the phases its phase's `Depends on` names; a phase's edges go to its plans.
struct OrderGraph {
  std::vector<PhaseNumber> phases; ///< the phases with plans, in order
  std::vector<std::vector<int>> out;

  int phase_node(PhaseNumber n) const {
    const auto it = std::ranges::lower_bound(phases, n);
    return it != phases.end() && *it == n ? static_cast<int>(out.size() - phases.size() + static_cast<std::size_t>(it - phases.begin())) : -1;
  }
};

/// The earlier phases phase `n`'s ROADMAP entry names, as the scheduler follows them (a later or
/// the same phase is ignored there: H034).
std::vector<PhaseNumber> roadmap_waits(const Roadmap& roadmap, PhaseNumber n) {
  std::vector<PhaseNumber> out;
  for (const auto& rp : roadmap.phases)
    if (rp.number == n) {
      out.clear();
      for (const auto d : rp.depends_on)
        if (d < n) out.push_back(d);
    }
  return out;
}

OrderGraph order_graph(const std::vector<Plan>& plans, const std::map<std::string, int>& index, const Roadmap& roadmap) {
  OrderGraph g;
  for (const auto& p : plans) g.phases.push_back(p.phase);
  std::ranges::sort(g.phases);
  g.phases.erase(std::unique(g.phases.begin(), g.phases.end()), g.phases.end());
  g.out.resize(plans.size() + g.phases.size());
  for (std::size_t i = 0; i < plans.size(); ++i) {
    for (const auto& dep : plans[i].depends_on)
      if (const auto it = index.find(dep); it != index.end() && it->second != static_cast<int>(i)) g.out[i].push_back(it->second);
    for (const auto d : roadmap_waits(roadmap, plans[i].phase))
      if (const int node = g.phase_node(d); node >= 0) g.out[i].push_back(node);
    g.out[static_cast<std::size_t>(g.phase_node(plans[i].phase))].push_back(static_cast<int>(i));
  }
  return g;
}

/// The nodes of a shortest path from `from` to `to`, both included; empty when there is none.
std::vector<int> shortest_path(const OrderGraph& g, int from, int to) {
  std::vector<int> parent(g.out.size(), -2);
  std::queue<int> queue;
  parent[static_cast<std::size_t>(from)] = -1;
  queue.push(from);
  while (!queue.empty()) {
    const int v = queue.front();
    queue.pop();
    if (v == to) {
      std::vector<int> path;
      for (int x = to; x >= 0; x = parent[static_cast<std::size_t>(x)]) path.insert(path.begin(), x);
      return path;
    }
    for (const int w : g.out[static_cast<std::size_t>(v)])
      if (parent[static_cast<std::size_t>(w)] == -2) parent[static_cast<std::size_t>(w)] = v, queue.push(w);
  }
  return {};
}

} // namespace

void validate_roadmap_cycles(const std::vector<Plan>& plans, const Roadmap& roadmap, const SourceTexts& texts,
                             std::vector<Diagnostic>& out) {
  std::map<std::string, int> index; // by id; a duplicate id (H005) keeps its first plan
  for (std::size_t i = 0; i < plans.size(); ++i) index.emplace(plans[i].id, static_cast<int>(i));
  const auto g = order_graph(plans, index, roadmap);
  const auto n = static_cast<int>(plans.size());
  std::set<std::set<int>> reported;
  // Phase edges only lead to earlier phases, so a cycle through one climbs back up through a
  // depends_on on a later phase's plan (H015): start from those, in id order.
  for (const auto& [id, x] : index) {
    const Plan& p = plans[static_cast<std::size_t>(x)];
    for (const auto& dep : p.depends_on) {
      const auto it = index.find(dep);
      if (it == index.end() || !(p.phase < plans[static_cast<std::size_t>(it->second)].phase)) continue;
      const auto path = shortest_path(g, it->second, x);
      // A cycle through plans alone is H009's.
      if (std::ranges::none_of(path, [&](int v) { return v >= n; })) continue;
      if (!reported.insert(std::set<int>(path.begin(), path.end())).second) continue;
      std::string text = p.id, why;
      for (std::size_t k = 0; k < path.size(); ++k) {
        const int v = path[k];
        if (v < n) {
          text += " -> " + plans[static_cast<std::size_t>(v)].id;
          continue;
        }
        const PhaseNumber d = g.phases[static_cast<std::size_t>(v - n)];
        const PhaseNumber later = plans[static_cast<std::size_t>(path[k - 1])].phase;
        text += fmt::format(" -> phase {}'s plans", to_string(d));
        // An order GSD's insertion implies is no line of the ROADMAP: say what it is.
        const auto rp = std::ranges::find(roadmap.phases, later, &RoadmapPhase::number);
        const bool inserted = rp != roadmap.phases.end() && std::ranges::find(rp->inserted_before, d) != rp->inserted_before.end();
        why += fmt::format("{}phase {} {} phase {}{}", why.empty() ? "" : ", ", to_string(later),
                           inserted ? "comes after" : "depends on", to_string(d), inserted ? ", inserted before it" : "");
      }
      const std::string& source = texts.count(p.file) ? texts.at(p.file) : std::string();
      add(out, p, texts, find_line(source, key_line(p, "depends_on"), dep), Severity::error, "H036",
          fmt::format("dependency cycle through the ROADMAP: {} (ROADMAP: {}); none of these plans can ever execute", text, why), dep);
    }
  }
}

void validate_requirement_ids(const std::vector<Plan>& plans, const std::set<std::string, std::less<>>& defined,
                              const std::string& requirements_file, const SourceTexts& texts, std::vector<Diagnostic>& out) {
  if (defined.empty()) return; // no file, or no id in it: nothing to hold the names against
  auto lower = [](std::string s) {
    std::ranges::transform(s, s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
  };
  for (const auto& p : plans) {
    const auto text = texts.find(p.file);
    for (const auto& id : p.requirements) {
      if (defined.contains(id)) continue;
      const auto same_letters = std::ranges::find_if(defined, [&](const std::string& d) { return lower(d) == lower(id); });
      std::string known;
      if (same_letters != defined.end()) {
        known = fmt::format("it defines {}: ids are compared exactly", *same_letters);
      } else {
        std::size_t n = 0;
        for (const auto& d : defined) {
          if (n == 8) {
            known += fmt::format(" and {} more", defined.size() - n);
            break;
          }
          known += (n++ ? ", " : "it defines ") + d;
        }
      }
      const int line = text == texts.end() ? key_line(p, "requirements") : find_line(text->second, key_line(p, "requirements"), id);
      add(out, p, texts, line, Severity::warning, "H040",
          fmt::format("requirement '{}' is not defined in {} ({}): the link from this plan to what it is for is lost", id,
                      requirements_file, known),
          id);
    }
  }
}

int find_line(const std::string& text, int from, std::string_view needle) {
  // A line where the needle is a whole item wins over one where it is part of a longer one:
  // '.git' is on its own line, not on the line of '.git/hooks/x' above it.
  for (const auto whole : {ItemMatch::whole, ItemMatch::part})
    for (int line = from; line < from + 400; ++line) {
      auto l = line_at(text, line);
      if (l.empty() && line > from && line_at(text, line + 1).empty() && line_at(text, line + 2).empty()) break;
      if (line > from && l.starts_with("---")) break; // the end of the frontmatter
      if (holds(l, needle, whole)) return line;
    }
  return from;
}

/// A file a check reads is the project's too: an absolute path or one climbing out would let a
/// check pass on a file outside the work it verifies (`/etc/hostname` exists on every machine).
void validate_check_path(const Plan& plan, const SourceTexts& texts, int line, const std::string& what,
                         const std::string& path, std::vector<Diagnostic>& out) {
  if (path.starts_with('/'))
    add(out, plan, texts, line, Severity::error, "H010",
        fmt::format("{} '{}' is absolute; paths are relative to the project root", what, path), path);
  else if (escapes_project(path))
    add(out, plan, texts, line, Severity::error, "H010", fmt::format("{} '{}' escapes the project root", what, path), path);
}

void validate_plan_paths(const Plan& plan, const SourceTexts& texts, std::vector<Diagnostic>& out) {
  const std::string& text = texts.count(plan.file) ? texts.at(plan.file) : std::string();
  // The entry's line is its first; the path may be on a later one of the same entry.
  for (const auto& c : plan.must_pass)
    if (!c.path.empty())
      validate_check_path(plan, texts, find_line(text, c.line, c.path), fmt::format("must_pass check '{}' path", c.id), c.path, out);
  for (const auto& a : plan.must_haves.artifacts)
    validate_check_path(plan, texts, find_line(text, a.line, a.path), "must_haves artifact path", a.path, out);
  for (const auto& k : plan.must_haves.key_links)
    validate_check_path(plan, texts, find_line(text, k.line, k.from), "must_haves key_link from", k.from, out);
  for (const auto* key : {"files_modified", "files_read"}) {
    const auto& list = std::string_view(key) == "files_modified" ? plan.files_modified : plan.files_read;
    for (const auto& path : list) {
      const int line = find_line(text, key_line(plan, key), path.empty() ? std::string_view(key) : std::string_view(path));
      if (util::has_control_character(path)) {
        // A NUL or a line break: no file git can hold, and a line break would reach commit
        // messages and trailers that name the file (review FF F10).
        add(out, plan, texts, line, Severity::error, "H010",
            fmt::format("{} entry '{}' holds a control character (a line break, a NUL or a tab)", key, util::escape_controls(path)),
            path);
      } else if (path.starts_with('/')) {
        add(out, plan, texts, line, Severity::error, "H010",
            fmt::format("{} entry '{}' is absolute; paths are relative to the project root", key, path), path);
      } else if (escapes_project(path)) {
        add(out, plan, texts, line, Severity::error, "H010", fmt::format("{} entry '{}' escapes the project root", key, path), path);
      } else if (auto why = util::glob_error(path)) {
        add(out, plan, texts, line, Severity::error, "H011", fmt::format("{} entry '{}' is not a valid glob: {}", key, path, *why), path);
      } else if (&list == &plan.files_modified) {
        warn_reserved_directory(plan, texts, line, path, out);
      }
    }
  }
}

void validate_plan_set(const std::vector<Plan>& plans, const SourceTexts& texts, std::vector<Diagnostic>& out) {
  std::map<std::string, const Plan*> by_id;
  for (const auto& p : plans) {
    auto [it, inserted] = by_id.emplace(p.id, &p);
    if (!inserted)
      add(out, p, texts, key_line(p, "plan_id"), Severity::error, "H005",
          fmt::format("duplicate plan id '{}' (also in {})", p.id, it->second->file));
  }
  for (const auto& p : plans) {
    const std::string& text = texts.count(p.file) ? texts.at(p.file) : std::string();
    for (const auto& dep : p.depends_on) {
      const int line = find_line(text, key_line(p, "depends_on"), dep);
      auto it = by_id.find(dep);
      if (dep == p.id) {
        add(out, p, texts, line, Severity::error, "H008", fmt::format("plan '{}' depends on itself", p.id), dep);
      } else if (it == by_id.end()) {
        // GSD writes a plan of the same phase by its number alone; harness's plans name the full id.
        const auto full = same_phase_plan_id(p.phase, dep);
        const std::string hint = full ? fmt::format(" (a plan is named by its full id: '{}'?)", *full) : "";
        add(out, p, texts, line, Severity::error, "H007", fmt::format("depends_on names unknown plan '{}'{}", dep, hint), dep);
      } else if (it->second->phase > p.phase) {
        add(out, p, texts, line, Severity::warning, "H015",
            fmt::format("plan '{}' (phase {}) depends on '{}' of a later phase {}", p.id, to_string(p.phase), dep,
                        to_string(it->second->phase)), dep);
      }
    }
  }
  // Cycles: DFS in id order; each cycle reported once, on the plan where it was closed.
  std::map<std::string, int> state; // 0 new, 1 on stack, 2 done
  std::vector<std::string> stack;
  std::set<std::string> reported;
  std::function<void(const Plan&)> visit = [&](const Plan& p) {
    state[p.id] = 1;
    stack.push_back(p.id);
    for (const auto& dep : p.depends_on) {
      auto it = by_id.find(dep);
      if (it == by_id.end() || dep == p.id) continue;
      if (state[dep] == 1) {
        auto start = std::find(stack.begin(), stack.end(), dep);
        std::vector<std::string> cycle(start, stack.end());
        auto key = cycle;
        std::sort(key.begin(), key.end());
        std::string joined;
        for (const auto& k : key) joined += k + ",";
        if (!reported.insert(joined).second) continue;
        std::string path;
        for (const auto& c : cycle) path += c + " -> ";
        path += dep;
        const std::string& text = texts.count(p.file) ? texts.at(p.file) : std::string();
        add(out, p, texts, find_line(text, key_line(p, "depends_on"), dep), Severity::error, "H009",
            fmt::format("dependency cycle: {}", path), dep);
      } else if (state[dep] == 0) {
        visit(*it->second);
      }
    }
    stack.pop_back();
    state[p.id] = 2;
  };
  for (const auto& [id, p] : by_id)
    if (state[id] == 0) visit(*p);
}

} // namespace harness::spec::detail
