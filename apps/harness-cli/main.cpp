// harness-cli: parses the command line and hands each subcommand to libharness.
#include "commands.hpp"
#include "print_error.hpp"

#include "harness/util/build_info.hpp"
#include "harness/util/open_file_limit.hpp"
#include "harness/util/standard_fds.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>
#include <string_view>

namespace {

/// Output that did not arrive is a failure, whatever the command made of its work: `graph >
/// /dev/full` or `orchestrate --json > events.jsonl` on a full disk must not exit 0. Checked
/// once here for every command, after the last write: what is still buffered is written now, and
/// an earlier failed write left the stream's error flag. A non-zero `code` stays (an interrupted
/// run's 130, invalid input's 2).
int check_stdout(int code, int seen_errno) {
  errno = 0;
  const bool flushed = std::fflush(stdout) == 0; // std::cout writes through stdout (synced with stdio)
  const int flush_errno = errno;
  if (flushed && !std::ferror(stdout) && !std::cout.bad()) return code;
  const int why = !flushed && flush_errno != 0 ? flush_errno : seen_errno;
  std::cerr << "harness-cli: error: cannot write standard output" << (why != 0 ? std::string(": ") + std::strerror(why) : "")
            << "\n";
  return code == 0 ? 1 : code;
}

/// Whether the command line asks for JSON: then stdout carries an object whatever happened, a
/// command line that does not parse too (a script reading stdout gets its error there).
bool asks_for_json(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--") return false;
    if (a == "--json") return true;
  }
  return false;
}

} // namespace

int main(int argc, char** argv) {
  using namespace harness::cli;
  harness::util::hold_closed_standard_fds();
  // A run's workers, git calls and checks each hold descriptors: a soft limit of 1024 (or less)
  // below a higher hard one is no reason to fail (what `orchestrate --slots` needs is checked
  // before a run starts).
  harness::util::raise_open_file_limit();
  CLI::App app{"harness-cli: spec-driven orchestration of AI coding-agent sessions"};
  app.require_subcommand(1);
  app.set_version_flag("--version", fmt::format("harness-cli {} ({})", harness::util::release_version(),
                                                harness::util::build_commit()));
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
  add_prune(app, exit);
  add_start_session(app, exit);
  add_end_session(app, exit);
  add_install_skills(app, exit);
  add_init(app, exit);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e); // --help and --version print on stdout too
    if (code != 0 && asks_for_json(argc, argv)) {
      // orchestrate's stream has one shape of refusal, whoever refused.
      if (argc > 1 && std::string_view(argv[1]) == "orchestrate")
        print_run_refused(e.what(), 2);
      else print_json_error(e.what());
    }
    return check_stdout(code == 0 ? 0 : 2, 0);
  } catch (const std::exception& e) {
    std::cerr << "harness-cli: error: " << e.what() << "\n";
    return check_stdout(1, exit.stdout_errno);
  }
  return check_stdout(exit.value, exit.stdout_errno);
}
