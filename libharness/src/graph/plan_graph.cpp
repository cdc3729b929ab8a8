#include "harness/graph/plan_graph.hpp"

#include "harness/util/glob.hpp"

#include <algorithm>
#include <map>
#include <queue>
#include <set>

namespace harness::graph {
namespace {

void find_cycles(PlanGraph& g) {
  const int n = static_cast<int>(g.ids.size());
  std::vector<int> state(static_cast<size_t>(n), 0);
  std::vector<int> stack;
  // Iterative DFS would be kinder to deep graphs; plan graphs are shallow enough for recursion
  // only up to a point, so use an explicit stack of (node, next edge).
  for (int root = 0; root < n; ++root) {
    if (state[static_cast<size_t>(root)]) continue;
    std::vector<std::pair<int, size_t>> frames{{root, 0}};
    state[static_cast<size_t>(root)] = 1;
    stack.push_back(root);
    while (!frames.empty()) {
      auto& [node, edge] = frames.back();
      const auto& out = g.deps[static_cast<size_t>(node)];
      if (edge < out.size()) {
        const int next = out[edge++];
        if (state[static_cast<size_t>(next)] == 0) {
          state[static_cast<size_t>(next)] = 1;
          stack.push_back(next);
          frames.push_back({next, 0});
        } else if (state[static_cast<size_t>(next)] == 1) {
          auto start = std::find(stack.begin(), stack.end(), next);
          std::vector<std::string> cycle;
          for (auto it = start; it != stack.end(); ++it) cycle.push_back(g.ids[static_cast<size_t>(*it)]);
          cycle.push_back(g.ids[static_cast<size_t>(next)]);
          g.cycles.push_back(std::move(cycle));
        }
      } else {
        state[static_cast<size_t>(node)] = 2;
        stack.pop_back();
        frames.pop_back();
      }
    }
  }
}

/// The plans and their phase dependencies as one DAG to order: nodes 0..n-1 are the plans, node
/// n+k stands for "every plan of phases[k] is done" (weight 0). A phase node depends on its
/// phase's plans; the plans of a phase depend on the nodes of the phases it depends on. This
/// counts |D| + |P| edges for a phase P depending on D, not |D| x |P|.
struct OrderGraph {
  std::vector<std::vector<int>> deps, dependents;
  std::vector<double> weight;
  std::size_t plans = 0;
  bool is_plan(int v) const { return static_cast<std::size_t>(v) < plans; }
};

/// Also fills g.phase_edges.
OrderGraph order_graph(PlanGraph& g, const spec::Roadmap* roadmap) {
  OrderGraph o{g.deps, g.dependents, g.weight, g.ids.size()};
  std::vector<spec::PhaseNumber> phases(g.phase.begin(), g.phase.end());
  std::ranges::sort(phases);
  phases.erase(std::unique(phases.begin(), phases.end()), phases.end());
  auto node_of = [&](spec::PhaseNumber n) {
    const auto it = std::ranges::lower_bound(phases, n);
    return it != phases.end() && *it == n ? static_cast<int>(o.plans + static_cast<std::size_t>(it - phases.begin())) : -1;
  };
  if (!roadmap) return o;
  o.deps.resize(o.plans + phases.size());
  o.dependents.resize(o.plans + phases.size());
  o.weight.resize(o.plans + phases.size(), 0);
  auto link = [&](int from, int to) { // `to` depends on `from`
    o.deps[static_cast<std::size_t>(to)].push_back(from);
    o.dependents[static_cast<std::size_t>(from)].push_back(to);
  };
  std::vector<std::vector<int>> plans_of(phases.size());
  for (std::size_t i = 0; i < o.plans; ++i) {
    link(static_cast<int>(i), node_of(g.phase[i]));
    plans_of[static_cast<std::size_t>(node_of(g.phase[i])) - o.plans].push_back(static_cast<int>(i));
  }
  // Only an earlier phase with plans counts, as in sched::Scheduler: waiting for the phase itself
  // or a later one could only deadlock against the gate (H034), and a phase without plans has
  // none to wait for here.
  for (const auto later : phases) {
    std::vector<spec::PhaseNumber> earlier, inserted;
    for (const auto& rp : roadmap->phases)
      if (rp.number == later) earlier = rp.depends_on, inserted = rp.inserted_before;
    std::ranges::sort(earlier);
    earlier.erase(std::unique(earlier.begin(), earlier.end()), earlier.end());
    for (const auto d : earlier)
      if (d < later && node_of(d) >= 0) {
        g.phase_edges.emplace_back(d, later);
        if (std::ranges::find(inserted, d) != inserted.end()) g.inserted_phase_edges.emplace_back(d, later);
      }
  }
  std::ranges::sort(g.phase_edges);
  std::ranges::sort(g.inserted_phase_edges);
  for (const auto& [d, later] : g.phase_edges)
    for (const int i : plans_of[static_cast<std::size_t>(node_of(later)) - o.plans]) link(node_of(d), i);
  return o;
}

/// Fills the plans' topological order and levels; returns the order of every node.
std::vector<int> order_and_levels(PlanGraph& g, const OrderGraph& o) {
  const size_t n = o.deps.size();
  std::vector<int> indegree(n, 0), level(n, -1);
  for (size_t i = 0; i < n; ++i) indegree[i] = static_cast<int>(o.deps[i].size());
  // Kahn's algorithm with a min-heap on the node index keeps the order stable (plan order).
  std::priority_queue<int, std::vector<int>, std::greater<>> ready;
  for (size_t i = 0; i < n; ++i)
    if (indegree[i] == 0) ready.push(static_cast<int>(i));
  g.level.assign(o.plans, -1);
  std::vector<int> order;
  while (!ready.empty()) {
    const int v = ready.top();
    ready.pop();
    order.push_back(v);
    // A phase node is as deep as its deepest plan; a plan one deeper than what it waits for.
    int lvl = 0;
    for (int d : o.deps[static_cast<size_t>(v)]) lvl = std::max(lvl, level[static_cast<size_t>(d)] + (o.is_plan(v) ? 1 : 0));
    level[static_cast<size_t>(v)] = lvl;
    if (o.is_plan(v)) g.topo_order.push_back(v), g.level[static_cast<size_t>(v)] = lvl;
    for (int w : o.dependents[static_cast<size_t>(v)])
      if (--indegree[static_cast<size_t>(w)] == 0) ready.push(w);
  }
  return order;
}

/// `order`: every node's, topological (from order_and_levels).
void critical_path(PlanGraph& g, const OrderGraph& o, const std::vector<int>& order) {
  const size_t n = o.deps.size();
  std::vector<double> rank(n, 0);
  std::vector<int> next(n, -1);
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const auto v = static_cast<size_t>(*it);
    double best = 0;
    for (int w : o.dependents[v])
      if (rank[static_cast<size_t>(w)] > best) best = rank[static_cast<size_t>(w)], next[v] = w;
    rank[v] = o.weight[v] + best;
  }
  int start = -1;
  for (int v : order)
    if (o.deps[static_cast<size_t>(v)].empty() && (start < 0 || rank[static_cast<size_t>(v)] > rank[static_cast<size_t>(start)]))
      start = v;
  for (int v = start; v >= 0; v = next[static_cast<size_t>(v)])
    if (o.is_plan(v)) g.critical_path.push_back(v);
  g.critical_length = start >= 0 ? rank[static_cast<size_t>(start)] : 0;
  g.rank.assign(rank.begin(), rank.begin() + static_cast<std::ptrdiff_t>(o.plans));
}

/// Write/write pairs, as the scheduler sees them (util::globs_overlap: every entry also names what
/// lies below it, so a directory `app/api` and `app/api/routes.py` conflict). Literal paths are
/// matched through a map (equal, or one a directory above the other); only patterns are compared
/// pairwise, so thousands of plans with literal paths stay cheap.
std::vector<std::pair<int, int>> conflict_pairs(const std::vector<spec::Plan>& plans) {
  std::map<std::string_view, std::vector<int>> literal_writers;
  std::vector<std::pair<int, std::string_view>> patterns;
  for (size_t i = 0; i < plans.size(); ++i)
    for (const auto& f : plans[i].files_modified) {
      if (util::is_literal_glob(f)) {
        std::string_view path = f;
        while (path.size() > 1 && path.back() == '/') path.remove_suffix(1); // `app/api/` is `app/api`
        auto& w = literal_writers[path];
        if (w.empty() || w.back() != static_cast<int>(i)) w.push_back(static_cast<int>(i));
      } else {
        patterns.emplace_back(static_cast<int>(i), f);
      }
    }
  std::set<std::pair<int, int>> pairs;
  auto add = [&](int a, int b) {
    if (a != b) pairs.emplace(std::min(a, b), std::max(a, b));
  };
  for (const auto& [path, writers] : literal_writers) {
    for (size_t a = 0; a < writers.size(); ++a)
      for (size_t b = a + 1; b < writers.size(); ++b) add(writers[a], writers[b]);
    // The directories above it that a plan declares whole.
    for (auto cut = path.rfind('/'); cut != std::string_view::npos && cut > 0; cut = path.rfind('/', cut - 1))
      if (auto above = literal_writers.find(path.substr(0, cut)); above != literal_writers.end())
        for (int a : above->second)
          for (int b : writers) add(a, b);
  }
  for (size_t k = 0; k < patterns.size(); ++k) {
    const auto& [i, pat] = patterns[k];
    for (const auto& [path, writers] : literal_writers)
      if (util::globs_overlap(pat, path))
        for (int w : writers) add(i, w);
    for (size_t m = k + 1; m < patterns.size(); ++m)
      if (patterns[m].first != i && util::globs_overlap(pat, patterns[m].second)) add(i, patterns[m].first);
  }
  return {pairs.begin(), pairs.end()};
}

} // namespace

int PlanGraph::index_of(std::string_view id) const {
  for (size_t i = 0; i < ids.size(); ++i)
    if (ids[i] == id) return static_cast<int>(i);
  return -1;
}

bool writes_overlap(const spec::Plan& a, const spec::Plan& b) {
  for (const auto& x : a.files_modified)
    for (const auto& y : b.files_modified)
      if (util::globs_overlap(x, y)) return true;
  return false;
}

PlanGraph build_plan_graph(const std::vector<spec::Plan>& plans, const spec::Roadmap* roadmap) {
  PlanGraph g;
  const size_t n = plans.size();
  std::map<std::string, int, std::less<>> index;
  for (size_t i = 0; i < n; ++i) {
    g.ids.push_back(plans[i].id);
    g.weight.push_back(plans[i].estimate_minutes.value_or(default_estimate_minutes));
    g.phase.push_back(plans[i].phase);
    g.total_work += g.weight.back();
    index.emplace(plans[i].id, static_cast<int>(i));
  }
  g.deps.resize(n);
  g.dependents.resize(n);
  for (size_t i = 0; i < n; ++i)
    for (const auto& d : plans[i].depends_on) {
      auto it = index.find(d);
      if (it == index.end() || it->second == static_cast<int>(i)) continue;
      if (std::find(g.deps[i].begin(), g.deps[i].end(), it->second) != g.deps[i].end()) continue;
      g.deps[i].push_back(it->second);
      g.dependents[static_cast<size_t>(it->second)].push_back(static_cast<int>(i));
    }
  find_cycles(g);
  const auto order = order_graph(g, roadmap);
  critical_path(g, order, order_and_levels(g, order));
  g.conflicts = conflict_pairs(plans);
  return g;
}

} // namespace harness::graph
