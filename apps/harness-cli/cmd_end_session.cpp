// harness-cli end-session SESSION_ID | end-session --list: stop a worker of the running
// orchestrate (its task is blocked as refused for this run), or list the workers that can be
// stopped. The terminal's harness_end_session and harness_list_sessions.
#include "ask_orchestrator.hpp"
#include "project_dir.hpp"

#include <memory>

namespace harness::cli {

void add_end_session(CLI::App& app, ExitCode& exit) {
  struct Options {
    std::string session;
    std::string reason;
    std::string project;
    bool json = false;
    bool list = false;
  };
  auto opt = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("end-session", "Stop a worker of the running orchestrate (its task is blocked for this run)");
  cmd->add_option("SESSION_ID", opt->session, "session id (end-session --list, start-session's answer)");
  cmd->add_option("--reason", opt->reason, "recorded with the blocked task");
  add_project_option(cmd, opt->project);
  cmd->add_flag("--list", opt->list, "list the running workers' session ids instead");
  cmd->add_flag("--json", opt->json, "print the answer (or the list) as JSON");
  cmd->callback([opt, &exit] {
    const Output output = opt->json ? Output::json : Output::text;
    const auto found = existing_project_dir(opt->project, output, exit.value);
    if (!found) return;
    const auto& project = *found;
    if (opt->list) {
      auto sessions = store::running_sessions(project / ".orchestration");
      if (!sessions) {
        print_error(sessions.error(), output);
        exit.value = 1;
        return;
      }
      std::cout << (opt->json ? store::sessions_json(*sessions) + "\n" : store::sessions_text(*sessions));
      exit.value = 0;
      return;
    }
    if (opt->session.empty()) {
      print_error("end-session needs a SESSION_ID (end-session --list shows them)", output);
      exit.value = 2;
      return;
    }
    boost::json::object args{{"session_id", opt->session}};
    if (!opt->reason.empty()) args["reason"] = opt->reason;
    args["requested_by"] = "harness-cli end-session"; // the run says who ended the task
    ask_and_print(project, "end_session", opt->session, args, opt->json, exit, [](const boost::json::object& o) {
      const auto* id = o.if_contains("session_id");
      return "ended " + (id && id->is_string() ? std::string(id->as_string()) : std::string("the session"));
    });
  });
}

} // namespace harness::cli
