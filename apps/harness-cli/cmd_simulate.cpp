// harness-cli simulate SPEC_DIR [--slots N] [--policy graph|waves|serial] [--seed S]
//                               [--durations FILE] [--json]
#include "commands.hpp"
#include "load_valid_spec.hpp"
#include "print_error.hpp"
#include "project_defaults.hpp"

#include "harness/orchestrator/run_config.hpp"
#include "harness/sched/simulator.hpp"
#include "harness/sched/spec_workload.hpp"
#include "harness/spec/report.hpp"
#include "harness/spec/spec.hpp"
#include "harness/util/atomic_file.hpp"
#include "harness/util/json_text.hpp"

#include <boost/json.hpp>

#include <iostream>
#include <memory>

namespace harness::cli {

void add_simulate(CLI::App& app, ExitCode& exit) {
  struct Options {
    std::string spec_dir;
    int slots = 4;
    std::string policy = "graph";
    std::string seed;
    std::string durations;
    std::string gate = "1";
    bool json = false;
  };
  auto opt = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("simulate", "Predict the wall time of a spec: the real scheduler in virtual time");
  cmd->add_option("SPEC_DIR", opt->spec_dir, "spec directory")->required();
  cmd->add_option("--slots", opt->slots, "worker slots (default: config.yaml's, else 4)")->check(CLI::Range(1, 256));
  cmd->add_option("--policy", opt->policy, "graph (the harness), waves or serial (baselines)")
      ->check(CLI::IsMember({"graph", "waves", "serial"}));
  auto* seed = cmd->add_option("--seed", opt->seed, "random durations: each scaled by a seeded log-normal factor");
  cmd->add_option("--durations", opt->durations, "JSON object of execute minutes by plan id");
  cmd->add_option("--gate", opt->gate, "phase gate lookahead K: 0 strict, 'unlimited' (default: config.yaml's, else 1)");
  cmd->add_flag("--json", opt->json, "print one JSON object");
  cmd->callback([opt, seed, cmd, &exit] {
    const Output output = opt->json ? Output::json : Output::text;
    auto spec = load_valid_spec(opt->spec_dir, exit, output);
    if (!spec) return;
    sched::SimOptions o;
    // The run orchestrate would start (config.yaml's slots, gate, research depth, ...), then the
    // flags typed here.
    o.config = project_defaults(spec->layout).sched;
    if (cmd->count("--slots") > 0) o.config.slots = opt->slots;
    o.config.policy = *sched::parse_policy(opt->policy);
    auto gate = orchestrator::parse_lookahead(opt->gate);
    if (!gate) {
      print_error("--gate: " + gate.error(), output);
      exit.value = 2;
      return;
    }
    if (cmd->count("--gate") > 0) o.config.gate_lookahead = *gate;
    if (seed->count() > 0) { // given, also empty (`--seed ""` is no seed: said, not ignored)
      auto parsed = sched::parse_seed(opt->seed);
      if (!parsed) {
        print_error("--seed: " + parsed.error(), output);
        exit.value = 2;
        return;
      }
      o.seed = *parsed;
    }
    const auto workload = sched::workload_from_spec(*spec);
    if (auto nothing = sched::nothing_to_schedule(*spec, workload)) { // no run to predict: as orchestrate says
      print_error(*nothing, output);
      exit.value = 2;
      return;
    }
    if (!opt->durations.empty()) {
      auto text = util::read_file(opt->durations);
      if (!text) {
        print_error(text.error(), output);
        exit.value = 2;
        return;
      }
      std::vector<std::string> ids;
      for (const auto& p : workload.plans) ids.push_back(p.id);
      auto parsed = sched::parse_durations(*text, opt->durations, ids);
      if (!parsed) {
        for (const auto& d : parsed.error()) std::cerr << spec::render(d);
        if (output == Output::json)
          std::cout << harness::util::json_text(boost::json::object{
                           {"error", opt->durations + ": durations do not validate"},
                           {"diagnostics", spec::diagnostics_json(parsed.error())}})
                    << "\n";
        exit.value = 2;
        return;
      }
      o.durations = *parsed;
    }
    const auto result = sched::simulate(workload, o);
    if (opt->json) {
      auto j = sched::to_json(result);
      const auto& m = o.model;
      j["model_minutes"] = {{"research", m.research}, {"plan", m.plan}, {"check-plans", m.check_plans},
                            {"reconcile", m.reconcile}, {"execute", m.execute}, {"verify-plan", m.verify_plan},
                            {"verify-phase", m.verify_phase}, {"plan-gaps", m.plan_gaps}, {"final", m.verify_final}};
      std::cout << harness::util::json_text(j) << "\n";
    } else {
      const auto& m = o.model;
      std::cout << "model (minutes): execute = estimate or " << m.execute << ", verify-plan " << m.verify_plan
                << ", verify-phase " << m.verify_phase << ", final " << m.verify_final << ", research "
                << m.research << ", plan " << m.plan << ", check-plans " << m.check_plans << "\n";
      std::cout << sched::render_simulation(result);
    }
    exit.value = result.complete ? 0 : 1;
  });
}

} // namespace harness::cli
