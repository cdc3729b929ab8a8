#pragma once
// Each subcommand lives in its own cmd_<name>.cpp: it declares its flags on a CLI11 subcommand and,
// when selected, calls libharness and renders. Exit codes: 0 success, 1 failure, 2 invalid input.

#include <CLI/CLI.hpp>

namespace harness::cli {

/// Set by the selected subcommand's callback; main returns it.
struct ExitCode {
  int value = 0;
  /// The errno of a write to standard output that failed, when the command saw it happen (the
  /// orchestrate display): stdio keeps the error flag but not the reason for main's check.
  int stdout_errno = 0;
};

// One `void add_<name>(CLI::App& app, ExitCode& exit);` per subcommand file, called from main.cpp.
void add_validate(CLI::App& app, ExitCode& exit);
void add_graph(CLI::App& app, ExitCode& exit);
void add_status(CLI::App& app, ExitCode& exit);
void add_simulate(CLI::App& app, ExitCode& exit);
void add_script_worker(CLI::App& app, ExitCode& exit);
void add_verify(CLI::App& app, ExitCode& exit);
void add_orchestrate(CLI::App& app, ExitCode& exit);
void add_respond(CLI::App& app, ExitCode& exit);
void add_start_session(CLI::App& app, ExitCode& exit);
void add_end_session(CLI::App& app, ExitCode& exit);
void add_install_skills(CLI::App& app, ExitCode& exit);
void add_init(CLI::App& app, ExitCode& exit);
void add_redo(CLI::App& app, ExitCode& exit);
void add_prune(CLI::App& app, ExitCode& exit);

} // namespace harness::cli
