#pragma once
// Seeded random workloads for property tests and the benchmark: phases of plans with
// dependencies (mostly inside a phase, some across), log-normal estimates and random overlaps of
// written files. Deterministic for a seed on every platform.

#include "harness/sched/types.hpp"

#include <cstdint>
#include <map>

namespace harness::sched {

struct RandomWorkloadOptions {
  int plans = 50;
  int plans_per_phase = 8;      ///< average; phases hold 1..2x this
  double max_deps = 3;          ///< each plan names 0..max_deps earlier plans
  double cross_phase = 0.25;    ///< share of dependencies on an earlier phase
  int file_pool = 0;            ///< distinct files written; 0 = 2 x plans
  double glob_share = 0.05;     ///< share of writes given as a directory glob
  double median_minutes = 30;
  double sigma = 0.6;           ///< log-normal spread of estimates
  double unplanned_share = 0;   ///< share of phases whose plans come from the plan task
};

struct RandomWorkload {
  Workload workload;
  std::map<spec::PhaseNumber, std::vector<WorkPlan>> unplanned; ///< plans of the unplanned phases
};

RandomWorkload random_workload(std::uint64_t seed, const RandomWorkloadOptions& options);

} // namespace harness::sched
