// harness-cli redo SPEC_DIR PLAN[:TASK,...]... [--note TEXT] [--json]: run a plan, or some of
// its tasks, again at the next orchestrate (after its PLAN was fixed).
#include "commands.hpp"
#include "load_valid_spec.hpp"
#include "print_error.hpp"

#include "harness/orchestrator/redo.hpp"

#include <iostream>
#include <memory>

namespace harness::cli {

void add_redo(CLI::App& app, ExitCode& exit) {
  struct Options {
    std::string spec_dir;
    std::vector<std::string> targets;
    std::string note;
    bool json = false;
  };
  auto opt = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("redo", "Run a plan (or some of its tasks) again at the next orchestrate");
  cmd->add_option("SPEC_DIR", opt->spec_dir, "spec directory")->required();
  cmd->add_option("TARGET", opt->targets, "a plan (01-02: every task) or some of its tasks (01-02:2,3)")->required();
  cmd->add_option("--note", opt->note, "why, kept in the commit message");
  cmd->add_flag("--json", opt->json, "print what was done as JSON");
  cmd->callback([opt, &exit] {
    const Output output = opt->json ? Output::json : Output::text;
    std::vector<orchestrator::RedoTarget> targets;
    for (const auto& text : opt->targets) {
      auto t = orchestrator::parse_redo_target(text);
      if (!t) {
        print_error(t.error(), output);
        exit.value = 2;
        return;
      }
      targets.push_back(std::move(*t));
    }
    auto spec = load_valid_spec(opt->spec_dir, exit, output);
    if (!spec) return;
    auto r = orchestrator::redo(*spec, targets, opt->note);
    if (!r) {
      print_error(r.error().message, output);
      exit.value = r.error().exit_code;
      return;
    }
    std::cout << (opt->json ? orchestrator::redo_json(*r) + "\n" : orchestrator::redo_text(*r, opt->spec_dir));
    exit.value = 0;
  });
}

} // namespace harness::cli
