// harness-cli end-session SESSION_ID: stop a worker of the running orchestrate; its task is
// blocked as refused for this run. The terminal's harness_end_session.
#include "ask_orchestrator.hpp"

#include <memory>

namespace harness::cli {

void add_end_session(CLI::App& app, ExitCode& exit) {
  struct Options {
    std::string session;
    std::string reason;
    std::string project = ".";
    bool json = false;
  };
  auto opt = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("end-session", "Stop a worker of the running orchestrate (its task is blocked for this run)");
  cmd->add_option("SESSION_ID", opt->session, "session id (orchestrate's output, harness_list_sessions)")->required();
  cmd->add_option("--reason", opt->reason, "recorded with the blocked task");
  cmd->add_option("--project", opt->project, "project root (default: current directory)");
  cmd->add_flag("--json", opt->json, "print the answer as JSON");
  cmd->callback([opt, &exit] {
    boost::json::object args{{"session_id", opt->session}};
    if (!opt->reason.empty()) args["reason"] = opt->reason;
    ask_and_print(opt->project, "end_session", opt->session, args, opt->json, exit,
                  [](const boost::json::object& o) {
                    const auto* id = o.if_contains("session_id");
                    return "ended " + (id && id->is_string() ? std::string(id->as_string()) : std::string("the session"));
                  });
  });
}

} // namespace harness::cli
