#include "harness/graph/render.hpp"

#include <boost/json.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace harness::graph {
namespace {

bool on_critical(const PlanGraph& g, int v) {
  return std::find(g.critical_path.begin(), g.critical_path.end(), v) != g.critical_path.end();
}

std::string critical_text(const PlanGraph& g) {
  std::string s;
  for (int v : g.critical_path) s += (s.empty() ? "" : " -> ") + g.ids[static_cast<size_t>(v)];
  return s;
}

std::string render_text(const PlanGraph& g) {
  std::string out;
  int max_level = -1;
  for (int l : g.level) max_level = std::max(max_level, l);
  out += fmt::format("{} plans, {} edges, {} levels, critical path {:g} of {:g} total\n", g.ids.size(),
                     [&] { size_t e = 0; for (const auto& d : g.deps) e += d.size(); return e; }(), max_level + 1,
                     g.critical_length, g.total_work);
  for (int lvl = 0; lvl <= max_level; ++lvl) {
    out += fmt::format("level {}:", lvl);
    for (size_t v = 0; v < g.ids.size(); ++v)
      if (g.level[v] == lvl) out += " " + g.ids[v] + (on_critical(g, static_cast<int>(v)) ? "*" : "");
    out += "\n";
  }
  out += "edges:\n";
  for (size_t v = 0; v < g.ids.size(); ++v)
    for (int d : g.deps[v]) out += fmt::format("  {} -> {}\n", g.ids[static_cast<size_t>(d)], g.ids[v]);
  out += fmt::format("critical path: {}\n", critical_text(g));
  out += "file conflicts (never run together):\n";
  if (g.conflicts.empty()) out += "  none\n";
  for (auto [a, b] : g.conflicts) out += fmt::format("  {} <-> {}\n", g.ids[static_cast<size_t>(a)], g.ids[static_cast<size_t>(b)]);
  for (const auto& c : g.cycles) {
    std::string s;
    for (const auto& id : c) s += (s.empty() ? "" : " -> ") + id;
    out += "cycle: " + s + "\n";
  }
  return out;
}

std::string render_json(const PlanGraph& g) {
  namespace json = boost::json;
  json::array plans, edges, conflicts, critical, cycles;
  for (size_t v = 0; v < g.ids.size(); ++v)
    plans.push_back(json::object{{"id", g.ids[v]}, {"weight", g.weight[v]}, {"level", g.level[v]}, {"rank", g.rank[v]}});
  for (size_t v = 0; v < g.ids.size(); ++v)
    for (int d : g.deps[v]) edges.push_back(json::object{{"from", g.ids[static_cast<size_t>(d)]}, {"to", g.ids[v]}});
  for (auto [a, b] : g.conflicts) conflicts.push_back(json::array{json::string(g.ids[static_cast<size_t>(a)]), json::string(g.ids[static_cast<size_t>(b)])});
  for (int v : g.critical_path) critical.push_back(json::string(g.ids[static_cast<size_t>(v)]));
  for (const auto& c : g.cycles) {
    json::array a;
    for (const auto& id : c) a.push_back(json::string(id));
    cycles.push_back(std::move(a));
  }
  json::object o{{"plans", std::move(plans)},       {"edges", std::move(edges)},
                 {"critical_path", std::move(critical)}, {"critical_length", g.critical_length},
                 {"total_work", g.total_work},       {"conflicts", std::move(conflicts)},
                 {"cycles", std::move(cycles)}};
  return json::serialize(o) + "\n";
}

std::string render_dot(const PlanGraph& g) {
  std::string out = "digraph plans {\n  rankdir=LR;\n  node [shape=box];\n";
  for (size_t v = 0; v < g.ids.size(); ++v)
    out += fmt::format("  \"{}\"{};\n", g.ids[v], on_critical(g, static_cast<int>(v)) ? " [penwidth=2,color=red]" : "");
  for (size_t v = 0; v < g.ids.size(); ++v)
    for (int d : g.deps[v]) out += fmt::format("  \"{}\" -> \"{}\";\n", g.ids[static_cast<size_t>(d)], g.ids[v]);
  for (auto [a, b] : g.conflicts)
    out += fmt::format("  \"{}\" -> \"{}\" [dir=none,style=dashed,color=orange,label=\"files\"];\n",
                       g.ids[static_cast<size_t>(a)], g.ids[static_cast<size_t>(b)]);
  return out + "}\n";
}

std::string render_mermaid(const PlanGraph& g) {
  auto node = [](const std::string& id) {
    std::string n = "p" + id;
    std::replace(n.begin(), n.end(), '.', '_');
    std::replace(n.begin(), n.end(), '-', '_');
    return n;
  };
  std::string out = "graph LR\n";
  for (size_t v = 0; v < g.ids.size(); ++v) out += fmt::format("  {}[\"{}\"]\n", node(g.ids[v]), g.ids[v]);
  for (size_t v = 0; v < g.ids.size(); ++v)
    for (int d : g.deps[v]) out += fmt::format("  {} --> {}\n", node(g.ids[static_cast<size_t>(d)]), node(g.ids[v]));
  for (auto [a, b] : g.conflicts)
    out += fmt::format("  {} -. files .- {}\n", node(g.ids[static_cast<size_t>(a)]), node(g.ids[static_cast<size_t>(b)]));
  for (int v : g.critical_path) out += fmt::format("  style {} stroke:#d33,stroke-width:3px\n", node(g.ids[static_cast<size_t>(v)]));
  return out;
}

} // namespace

std::optional<GraphFormat> parse_graph_format(std::string_view s) {
  if (s == "text") return GraphFormat::text;
  if (s == "json") return GraphFormat::json;
  if (s == "dot") return GraphFormat::dot;
  if (s == "mermaid") return GraphFormat::mermaid;
  return std::nullopt;
}

std::string render_graph(const PlanGraph& g, GraphFormat format) {
  switch (format) {
  case GraphFormat::text: return render_text(g);
  case GraphFormat::json: return render_json(g);
  case GraphFormat::dot: return render_dot(g);
  case GraphFormat::mermaid: return render_mermaid(g);
  }
  return render_text(g);
}

} // namespace harness::graph
