// harness-cli status SPEC_DIR [--json] [--lookahead K|unlimited]: progress derived from the files of the spec directory.
#include "commands.hpp"
#include "load_valid_spec.hpp"
#include "print_error.hpp"
#include "project_defaults.hpp"

#include "harness/graph/plan_graph.hpp"
#include "harness/graph/progress.hpp"
#include "harness/orchestrator/run_config.hpp"
#include "harness/orchestrator/orchestrator.hpp"
#include "harness/spec/report.hpp"
#include "harness/spec/spec.hpp"

#include <iostream>
#include <memory>

namespace harness::cli {

void add_status(CLI::App& app, ExitCode& exit) {
  struct Options {
    std::string spec_dir;
    bool json = false;
    std::string lookahead = "1";
  };
  auto opt = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("status", "Phases and plans: planned, executed, verified; what is ready; blockers");
  cmd->add_option("SPEC_DIR", opt->spec_dir, "spec directory")->required();
  cmd->add_flag("--json", opt->json, "print the result as JSON");
  cmd->add_option("--lookahead", opt->lookahead,
                  "phase gate lookahead used for 'ready now': 0..16 or 'unlimited' (default: config.yaml's, else 1)");
  cmd->callback([opt, cmd, &exit] {
    const Output output = opt->json ? Output::json : Output::text;
    auto lookahead = orchestrator::parse_lookahead(opt->lookahead);
    if (!lookahead) {
      print_error("--lookahead: " + lookahead.error(), output);
      exit.value = 2;
      return;
    }
    auto spec = load_valid_spec(opt->spec_dir, exit, output);
    if (!spec) return;
    // The run's gate unless one is typed here: "ready now" is then what orchestrate would start.
    if (cmd->count("--lookahead") == 0) lookahead = project_defaults(spec->layout).sched.gate_lookahead;
    auto progress = graph::compute_progress(*spec, graph::build_plan_graph(spec->plans), *lookahead);
    orchestrator::show_run_state(progress, spec->layout);
    std::cout << (opt->json ? graph::progress_json(progress) : graph::progress_text(progress));
    exit.value = 0;
  });
}

} // namespace harness::cli
