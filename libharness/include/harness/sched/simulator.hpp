#pragma once
// Discrete-event simulation: the real Scheduler driven in virtual time (minutes). Every task
// succeeds; a plan task "writes" the phase's plans given in SimOptions::unplanned. Used by
// `harness-cli simulate` (predicted wall time before spending tokens) and the benchmark.

#include "harness/sched/types.hpp"
#include "harness/spec/diagnostic.hpp"

#include <boost/json/value.hpp>

#include <cstdint>
#include <expected>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace harness::sched {

/// Minutes per task kind when nothing more specific is known (execute: a plan's estimate first).
struct DurationModel {
  double research = 20, plan = 20, check_plans = 5, reconcile = 5, execute = 30, verify_plan = 5,
         verify_phase = 10, plan_gaps = 15, admin = 5, verify_final = 15;
  double of(TaskKind k) const;
};

struct SimOptions {
  Config config;
  DurationModel model;
  std::map<std::string, double> durations; ///< execute minutes by plan id (--durations FILE)
  std::optional<std::uint64_t> seed;       ///< when set, each duration is scaled by a log-normal factor
  double sigma = 0.5;                      ///< spread of that factor
  std::map<spec::PhaseNumber, std::vector<WorkPlan>> unplanned; ///< plans a plan task will write
};

struct SimTask {
  std::string id;
  TaskKind kind = TaskKind::admin;
  int slot = -1;
  double start = 0, end = 0;
};

struct SimResult {
  Policy policy = Policy::graph;
  int slots = 0;
  double makespan = 0;
  double lower_bound = 0;   ///< max(critical_path, total_work / slots)
  double critical_path = 0; ///< longest dependency chain of the tasks that ran
  double gated_critical_path = 0; ///< the same with the phase gate's edges added (>= critical_path)
  double total_work = 0;
  std::vector<double> utilization; ///< busy fraction per slot
  std::vector<SimTask> tasks;      ///< in start order
  bool complete = false;
  std::vector<std::string> blocked; ///< "task: reason"
  /// Phases without plans whose plans SimOptions::unplanned does not give: their research and
  /// planning are simulated, their execution cannot be predicted.
  std::vector<spec::PhaseNumber> unplanned_phases;
  std::size_t decisions = 0;        ///< events handled by the scheduler
};

/// Parses a durations file: a JSON object of execute minutes by plan id, `{"03-02": 45.0}`. `file`
/// names it in the diagnostics: H301 for text that is not such an object (invalid JSON, a value
/// that is not a non-negative number), H302 for an id that is none of `plan_ids` (a typo would
/// otherwise leave that plan at its estimate without a word).
/// `--seed`'s value: a decimal whole number from 0 to 18446744073709551615; the error says so
/// (CLI11 had read -1 and 99999999999999999999 as the largest seed without a word, review FF F10).
std::expected<std::uint64_t, std::string> parse_seed(std::string_view text);

std::expected<std::map<std::string, double>, std::vector<spec::Diagnostic>>
parse_durations(std::string_view json_text, const std::string& file, const std::vector<std::string>& plan_ids);

/// Runs `workload` to completion in virtual time.
SimResult simulate(const Workload& workload, const SimOptions& options);

/// One JSON object: policy, slots, makespan, lower_bound, critical_path, total_work, utilization,
/// complete, blocked, unplanned_phases ["05"], tasks[{id, kind, slot, start, end}].
boost::json::object to_json(const SimResult& r);

/// Summary figures, utilization per slot and a text Gantt chart `width` columns wide (at most
/// `max_rows` task rows; the rest are counted).
std::string render_simulation(const SimResult& r, int width = 60, std::size_t max_rows = 200);

} // namespace harness::sched
