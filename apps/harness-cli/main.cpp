// harness-cli: parses the command line and hands each subcommand to libharness.
#include "commands.hpp"

#include <exception>
#include <iostream>

int main(int argc, char** argv) {
  using namespace harness::cli;
  CLI::App app{"harness-cli: spec-driven orchestration of AI coding-agent sessions"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("harness-cli 0.1.0"));
  // A mistake on the command line reads like every other error of ours.
  app.failure_message([](const CLI::App* a, const CLI::Error& e) {
    std::string what = e.what();
    // CLI11 says "A subcommand is required" for a mistyped command too: name the word it did not know.
    if (const auto left = a->remaining(); a->get_subcommands().empty() && !left.empty() && !left.front().starts_with("-")) {
      what = "unknown command '" + left.front() + "'; the commands are:";
      for (const auto* sub : a->get_subcommands({})) what += " " + sub->get_name();
    }
    return "harness-cli: error: " + what + "\nRun with --help for more information.\n";
  });
  ExitCode exit;
  add_validate(app, exit);
  add_graph(app, exit);
  add_status(app, exit);
  add_simulate(app, exit);
  add_script_worker(app, exit);
  add_verify(app, exit);
  add_orchestrate(app, exit);
  add_respond(app, exit);
  add_redo(app, exit);
  add_start_session(app, exit);
  add_end_session(app, exit);
  add_install_skills(app, exit);
  add_init(app, exit);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  } catch (const std::exception& e) {
    std::cerr << "harness-cli: error: " << e.what() << "\n";
    return 1;
  }
  return exit.value;
}
