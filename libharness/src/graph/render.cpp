#include "harness/graph/render.hpp"
#include "harness/util/json_text.hpp"

#include <boost/json.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <map>
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

/// The nodes of each phase, in plan order.
std::map<spec::PhaseNumber, std::vector<size_t>> plans_by_phase(const PlanGraph& g) {
  std::map<spec::PhaseNumber, std::vector<size_t>> out;
  for (size_t v = 0; v < g.ids.size(); ++v) out[g.phase[v]].push_back(v);
  return out;
}

std::string render_text(const PlanGraph& g) {
  std::string out;
  int max_level = -1;
  for (int l : g.level) max_level = std::max(max_level, l);
  out += fmt::format("{} plans, {} edges, {}{} levels, critical path {:g} of {:g} total\n", g.ids.size(),
                     [&] { size_t e = 0; for (const auto& d : g.deps) e += d.size(); return e; }(),
                     g.phase_edges.empty() ? "" : fmt::format("{} phase edges, ", g.phase_edges.size()), max_level + 1,
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
  if (!g.phase_edges.empty()) out += "phase edges (ROADMAP Depends on: the later phase's plans wait for every plan of the earlier):\n";
  for (const auto& e : g.phase_edges)
    out += fmt::format("  phase {} -> phase {}{}\n", to_string(e.first), to_string(e.second),
                       std::ranges::binary_search(g.inserted_phase_edges, e) ? " (inserted before it, not a Depends on line)" : "");
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
  json::array plans, edges, phase_edges, conflicts, critical, cycles;
  for (size_t v = 0; v < g.ids.size(); ++v)
    plans.push_back(json::object{{"id", g.ids[v]}, {"weight", g.weight[v]}, {"level", g.level[v]}, {"rank", g.rank[v]}});
  for (size_t v = 0; v < g.ids.size(); ++v)
    for (int d : g.deps[v]) edges.push_back(json::object{{"from", g.ids[static_cast<size_t>(d)]}, {"to", g.ids[v]}});
  for (const auto& [from, to] : g.phase_edges) phase_edges.push_back(json::object{{"from", to_string(from)}, {"to", to_string(to)}});
  for (auto [a, b] : g.conflicts) conflicts.push_back(json::array{json::string(g.ids[static_cast<size_t>(a)]), json::string(g.ids[static_cast<size_t>(b)])});
  for (int v : g.critical_path) critical.push_back(json::string(g.ids[static_cast<size_t>(v)]));
  for (const auto& c : g.cycles) {
    json::array a;
    for (const auto& id : c) a.push_back(json::string(id));
    cycles.push_back(std::move(a));
  }
  json::object o{{"plans", std::move(plans)},       {"edges", std::move(edges)}, {"phase_edges", std::move(phase_edges)},
                 {"critical_path", std::move(critical)}, {"critical_length", g.critical_length},
                 {"total_work", g.total_work},       {"conflicts", std::move(conflicts)},
                 {"cycles", std::move(cycles)}};
  return util::json_text(o) + "\n";
}

std::string render_dot(const PlanGraph& g) {
  std::string out = "digraph plans {\n  rankdir=LR;\n  node [shape=box];\n";
  auto node = [&](size_t v, const char* indent) {
    return fmt::format("{}\"{}\"{};\n", indent, g.ids[v], on_critical(g, static_cast<int>(v)) ? " [penwidth=2,color=red]" : "");
  };
  // With ROADMAP phase dependencies each phase is a cluster, and a phase edge joins two clusters
  // (drawn between their first plans, clipped at the cluster borders).
  const auto phases = plans_by_phase(g);
  if (g.phase_edges.empty()) {
    for (size_t v = 0; v < g.ids.size(); ++v) out += node(v, "  ");
  } else {
    out += "  compound=true;\n";
    for (const auto& [number, nodes] : phases) {
      out += fmt::format("  subgraph \"cluster_{0}\" {{\n    label=\"phase {0}\";\n", to_string(number));
      for (size_t v : nodes) out += node(v, "    ");
      out += "  }\n";
    }
  }
  auto first_plan = [&](spec::PhaseNumber n) { return g.ids[phases.at(n).front()]; };
  for (const auto& [from, to] : g.phase_edges)
    out += fmt::format("  \"{}\" -> \"{}\" [ltail=\"cluster_{}\",lhead=\"cluster_{}\",style=bold,color=gray40,label=\"ROADMAP\"];\n",
                       first_plan(from), first_plan(to), to_string(from), to_string(to));
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
  auto phase_node = [](spec::PhaseNumber n) {
    std::string s = "phase" + to_string(n);
    std::replace(s.begin(), s.end(), '.', '_');
    return s;
  };
  std::string out = "graph LR\n";
  // With ROADMAP phase dependencies each phase is a subgraph, and a phase edge joins two of them.
  if (g.phase_edges.empty()) {
    for (size_t v = 0; v < g.ids.size(); ++v) out += fmt::format("  {}[\"{}\"]\n", node(g.ids[v]), g.ids[v]);
  } else {
    for (const auto& [number, nodes] : plans_by_phase(g)) {
      out += fmt::format("  subgraph {}[\"phase {}\"]\n", phase_node(number), to_string(number));
      for (size_t v : nodes) out += fmt::format("    {}[\"{}\"]\n", node(g.ids[v]), g.ids[v]);
      out += "  end\n";
    }
  }
  for (const auto& [from, to] : g.phase_edges) out += fmt::format("  {} ==> {}\n", phase_node(from), phase_node(to));
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
