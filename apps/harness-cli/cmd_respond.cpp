// harness-cli respond ID ANSWER [--note TEXT] | respond --list: answer a checkpoint a running
// orchestrate waits on: approve|refuse, a worker's option (or its number), done for an action.
#include "commands.hpp"
#include "inside_worker.hpp"
#include "print_error.hpp"
#include "project_dir.hpp"

#include "harness/orchestrator/orchestrator.hpp"
#include "harness/store/store.hpp"
#include "harness/util/json_text.hpp"

#include <boost/json.hpp>

#include <iostream>
#include <memory>

namespace harness::cli {

void add_respond(CLI::App& app, ExitCode& exit) {
  struct Options {
    std::string id;
    std::string answer;
    std::string note;
    std::string project;
    bool list = false;
    bool json = false;
    bool replace = false;
  };
  auto opt = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("respond", "Answer a checkpoint orchestrate waits on (or the next run will read)");
  cmd->add_option("ID", opt->id, "checkpoint id (from the orchestrate output or --list)");
  cmd->add_option("ANSWER", opt->answer, "approve | refuse (y, yes, ok / n, no, reject; any case); a worker's decision: one of its options "
                  "(text or number) | refuse; a worker's action: done | refuse");
  cmd->add_option("--note", opt->note, "a note kept with the answer");
  add_project_option(cmd, opt->project);
  cmd->add_flag("--replace", opt->replace, "replace an answer given before, while no orchestrate runs (a run may have read it)");
  cmd->add_flag("--list", opt->list, "list the checkpoints waiting for an answer");
  cmd->add_flag("--json", opt->json, "print the list or the answer as JSON");
  cmd->callback([opt, &exit] {
    const Output output = opt->json ? Output::json : Output::text;
    const auto project = existing_project_dir(opt->project, output, exit.value);
    if (!project) return;
    const auto state = *project / ".orchestration";
    if (opt->id.empty() && !opt->answer.empty()) { // `respond "$ID" approve` with $ID unset: no answer is given
      print_error("respond: the checkpoint ID is empty, so '" + opt->answer + "' answers nothing (harness-cli respond --list shows the ids)",
                  output);
      exit.value = 2;
      return;
    }
    if (auto why = store::unreadable_checkpoints(state); !why.empty()) { // not "nothing waits"
      print_error(why, output);
      exit.value = 1;
      return;
    }
    if (opt->list || opt->id.empty()) {
      const auto pending = orchestrator::pending_checkpoints(state);
      std::cout << (opt->json ? orchestrator::checkpoints_json(pending) + "\n" : orchestrator::checkpoints_text(pending));
      // For a person only: a script reading stdout still gets an empty list.
      if (pending.empty() && !opt->json) std::cerr << "no checkpoint waits for an answer\n";
      exit.value = 0;
      return;
    }
    if (opt->answer.empty()) {
      print_error("respond needs ID and ANSWER (approve | refuse, or the option --list shows)", output);
      exit.value = 2;
      return;
    }
    if (auto why = refused_inside_worker(state, store::PersonsPart::answer_checkpoint)) {
      print_error("respond " + opt->id + ": " + *why, output);
      exit.value = 2;
      return;
    }
    auto r = orchestrator::respond_checkpoint(state, opt->id, opt->answer, opt->note,
                                              opt->replace ? store::Replace::yes : store::Replace::no);
    if (!r) {
      print_error(r.error().message, output);
      exit.value = r.error().exit_code;
      return;
    }
    if (opt->json) std::cout << harness::util::json_text(r->json(opt->id)) << "\n";
    else std::cout << "answered " << opt->id << ": " << r->text() << "\n";
    exit.value = 0;
  });
}

} // namespace harness::cli
