// harness-cli prune [--keep-runs N] [--dry-run] [--json]: remove the session directories of old
// runs from .orchestration/sessions/ (what stays, and why, is in orchestrator/prune.hpp).
#include "commands.hpp"
#include "print_error.hpp"
#include "project_dir.hpp"

#include "harness/orchestrator/prune.hpp"

#include <iostream>
#include <memory>

namespace harness::cli {

void add_prune(CLI::App& app, ExitCode& exit) {
  struct Options {
    std::string project;
    int keep_runs = 1;
    bool dry_run = false;
    bool json = false;
  };
  auto opt = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("prune", "Remove the session directories of old runs from .orchestration/sessions/");
  cmd->add_option("--keep-runs", opt->keep_runs, "keep every directory of the newest N runs (default 1)")
      ->check(CLI::Range(0, 1000000));
  cmd->add_flag("--dry-run", opt->dry_run, "list what would be removed, remove nothing");
  cmd->add_flag("--json", opt->json, "print the outcome as JSON");
  add_project_option(cmd, opt->project);
  cmd->callback([opt, &exit] {
    const Output output = opt->json ? Output::json : Output::text;
    const auto project = existing_project_dir(opt->project, output, exit.value);
    if (!project) return;
    auto r = orchestrator::prune(*project, {opt->keep_runs, opt->dry_run});
    if (!r) {
      print_error(r.error().message, output);
      exit.value = r.error().exit_code;
      return;
    }
    std::cout << (opt->json ? orchestrator::prune_json(*r) + "\n" : orchestrator::prune_text(*r));
    exit.value = r->failed() ? 1 : 0;
  });
}

} // namespace harness::cli
