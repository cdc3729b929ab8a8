#pragma once
// The plan graph across all phases: dependency edges, ROADMAP phase dependencies, topological
// order, cycles, critical path, levels (GSD's "waves", for display only) and write/write file
// conflicts.

#include "harness/spec/documents.hpp"
#include "harness/spec/plan.hpp"

#include <string>
#include <utility>
#include <vector>

namespace harness::graph {

/// Execute minutes of a plan without `estimate`: its weight here and the scheduler's duration
/// (sched::Config::default_estimate, held equal by a test), so that `graph` marks the critical
/// path the scheduler prioritises and `simulate` predicts with.
inline constexpr double default_estimate_minutes = 30;

struct PlanGraph {
  std::vector<std::string> ids;                ///< node index -> plan id, in plan order (phase, number)
  std::vector<double> weight;                  ///< estimate in minutes, default_estimate_minutes when absent
  std::vector<std::vector<int>> deps;          ///< node -> nodes it depends on (unknown ids dropped)
  std::vector<std::vector<int>> dependents;    ///< reverse edges
  std::vector<spec::PhaseNumber> phase;        ///< node -> its plan's phase
  /// ROADMAP `Depends on` as the scheduler follows it: (earlier, later) phases, both with plans,
  /// in order. No plan of the later phase executes before every plan of the earlier one is
  /// verified, so the order, levels and critical path count them as edges from every plan of the
  /// earlier phase to every plan of the later; they are drawn once per pair of phases.
  std::vector<std::pair<spec::PhaseNumber, spec::PhaseNumber>> phase_edges;
  /// Of phase_edges, those that order a phase GSD inserted rather than a `Depends on` line.
  std::vector<std::pair<spec::PhaseNumber, spec::PhaseNumber>> inserted_phase_edges;
  std::vector<int> topo_order;                 ///< stable (ties by plan order); partial when cyclic
  std::vector<std::vector<std::string>> cycles;///< each cycle as ids, first id repeated at the end
  std::vector<int> level;                      ///< longest edge count from a root, phase edges included; -1 inside a cycle
  std::vector<double> rank;                    ///< longest weighted path from the node to a sink, own weight included
  std::vector<int> critical_path;              ///< nodes of the longest weighted path, in order
  double critical_length = 0;
  double total_work = 0;
  std::vector<std::pair<int, int>> conflicts;  ///< write/write overlaps on files_modified (a < b)

  int index_of(std::string_view id) const;
  bool acyclic() const { return cycles.empty(); }
};

/// Builds the graph of `plans` (in the order given), with the phase dependencies of `roadmap`
/// when given.
PlanGraph build_plan_graph(const std::vector<spec::Plan>& plans, const spec::Roadmap* roadmap = nullptr);

/// True when two plans' files_modified sets overlap (glob-aware).
bool writes_overlap(const spec::Plan& a, const spec::Plan& b);

} // namespace harness::graph
