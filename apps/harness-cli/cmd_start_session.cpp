// harness-cli start-session PLAN_ID: ask the running orchestrate to start a plan next (or retry a
// blocked one): the terminal's harness_start_session.
#include "ask_orchestrator.hpp"
#include "project_dir.hpp"

#include <memory>

namespace harness::cli {

void add_start_session(CLI::App& app, ExitCode& exit) {
  struct Options {
    std::string plan;
    std::string project;
    bool json = false;
  };
  auto opt = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("start-session", "Ask the running orchestrate to start a plan next (a blocked one is retried)");
  cmd->add_option("PLAN_ID", opt->plan, "plan id, e.g. 02-03")->required();
  add_project_option(cmd, opt->project);
  cmd->add_flag("--json", opt->json, "print the answer as JSON");
  cmd->callback([opt, &exit] {
    const auto project = existing_project_dir(opt->project, opt->json ? Output::json : Output::text, exit.value);
    if (!project) return;
    // The run says who asked, as for end-session.
    ask_and_print(*project, "start_session", opt->plan,
                  {{"plan_id", opt->plan}, {"requested_by", "harness-cli start-session"}}, opt->json, exit,
                  [](const boost::json::object& o) {
                    auto text = [&](const char* key) {
                      const auto* v = o.if_contains(key);
                      return v && v->is_string() ? std::string(v->as_string()) : std::string();
                    };
                    std::string line = text("plan_id") + ": " + text("status");
                    if (!text("session_id").empty()) line += " (session " + text("session_id") + ")";
                    if (!text("waiting_for").empty()) line += "; " + text("waiting_for");
                    if (text("session_id").empty()) line += "\n(its SESSION_ID shows in `harness-cli end-session --list` once it starts)";
                    return line;
                  });
  });
}

} // namespace harness::cli
