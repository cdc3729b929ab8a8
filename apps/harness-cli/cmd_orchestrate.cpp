// harness-cli orchestrate SPEC_DIR: runs the spec's tasks in N slots until complete.
#include "commands.hpp"
#include "option_checks.hpp"
#include "print_error.hpp"
#include "self_dir.hpp"

#include "harness/orchestrator/display.hpp"
#include "harness/orchestrator/engine_verifier.hpp"
#include "harness/orchestrator/orchestrator.hpp"
#include "harness/setup/install.hpp"
#include "harness/orchestrator/run_config.hpp"
#include "harness/orchestrator/writeback.hpp"
#include "harness/protocol/answer.hpp"
#include "harness/verify/engine.hpp"
#include "harness/spec/diagnostic.hpp"
#include "harness/util/json_text.hpp"

#include <boost/json.hpp>

#include <csignal>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <sys/ioctl.h>
#include <unistd.h>

namespace harness::cli {
namespace fs = std::filesystem;

namespace {

/// skills/ beside an installed binary (<prefix>/share/harness/skills) or in the source tree.
fs::path skills_dir() {
  auto dir = setup::find_skills_dir(self_dir(), HARNESS_SOURCE_DIR);
  // Without skills the agent workers get a one-line prompt; the script worker needs none.
  return dir.empty() ? fs::path(HARNESS_SOURCE_DIR) / "skills" : dir;
}

} // namespace

void add_orchestrate(CLI::App& app, ExitCode& exit) {
  struct Options {
    std::string spec_dir;
    int slots = 4;
    std::string worker = "claude";
    std::string lookahead = "1";
    int attempts = 2;
    bool yes = false;
    bool json = false;
    bool stop_on_interrupt = false;
    double max_cost = 0;
    int timeout_min = 60;
    int idle_min = 15;
    std::string command;
  };
  auto opt = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("orchestrate", "Run the spec: fill N slots from the dependency graph, verify, write back");
  cmd->add_option("SPEC_DIR", opt->spec_dir, "spec directory")->required();
  cmd->add_option("--slots", opt->slots, "parallel workers (default 4)")->check(CLI::Range(1, 256));
  cmd->add_option("--worker", opt->worker, "claude | codex | command | script (default claude)")
      ->check(CLI::IsMember({"claude", "codex", "command", "script"}));
  cmd->add_option("--command", opt->command, "command template for --worker command, e.g. 'my-agent {prompt_file}'");
  cmd->add_option("--lookahead", opt->lookahead, "phase gate: 0 strict, 1 default, 'unlimited'");
  cmd->add_option("--attempts", opt->attempts, "attempts per task (default 2)")->check(CLI::Range(1, 20));
  cmd->add_flag("--yes", opt->yes, "approve verification checkpoints whose automated checks passed");
  cmd->add_flag("--json", opt->json, "one JSON object per event on stdout");
  cmd->add_flag("--stop-on-interrupt", opt->stop_on_interrupt, "first Ctrl-C stops running workers too");
  cmd->add_option("--max-cost", opt->max_cost, "stop dispatching when workers' summed cost reaches USD")->check(positive_number());
  cmd->add_option("--timeout", opt->timeout_min, "minutes before a task is stopped (default 60)")->check(CLI::Range(1, 10080));
  cmd->add_option("--idle-timeout", opt->idle_min, "minutes without output or message before a worker is stopped as idle (default 15)")
      ->check(CLI::Range(1, 10080));
  cmd->callback([opt, cmd, &exit] {
    // A refusal is also the event stream's only event: a consumer of --json learns why nothing ran.
    auto refuse = [&](const std::string& message, int code) {
      std::cerr << "harness-cli: error: " << message << "\n";
      if (opt->json) print_run_refused(message, code);
      exit.value = code;
    };
    orchestrator::RunOptions ro;
    ro.spec_dir = opt->spec_dir;
    // Precedence: built-in defaults, then .orchestration/config.yaml, then the flags typed here.
    if (auto applied = orchestrator::apply_project_config(ro); !applied) {
      std::string why;
      for (const auto& d : applied.error()) why += spec::render(d) + "\n";
      while (!why.empty() && why.back() == '\n') why.pop_back();
      refuse(".orchestration/config.yaml is not valid:\n" + why, 2);
      return;
    }
    auto given = [cmd](const char* flag) { return cmd->count(flag) > 0; };
    if (given("--slots")) ro.sched.slots = opt->slots;
    if (given("--attempts")) ro.sched.max_attempts = opt->attempts;
    if (given("--lookahead")) {
      auto k = orchestrator::parse_lookahead(opt->lookahead);
      if (!k) {
        refuse("--lookahead: " + k.error(), 2);
        return;
      }
      ro.sched.gate_lookahead = *k;
    }
    if (given("--worker")) {
      ro.adapter = *worker::parse_adapter_kind(opt->worker);
      ro.adapter_by_kind.clear(); // one worker kind for every task, as the flag says
    }
    if (given("--command")) {
      ro.adapter_settings.command_template = opt->command;
      if (!orchestrator::uses_command_worker(ro)) // said, not an error: the run does what was meant otherwise
        std::cerr << "harness-cli: note: --command is not used: no task of this run uses the command worker "
                     "(--worker command)\n";
    }
    ro.auto_yes = opt->yes;
    ro.interactive = ::isatty(STDIN_FILENO) && ::isatty(STDERR_FILENO) && !opt->json;
    if (given("--max-cost")) ro.max_cost_usd = opt->max_cost;
    if (given("--timeout")) ro.task_timeout = std::chrono::minutes(opt->timeout_min);
    if (given("--idle-timeout")) ro.idle_timeout = std::chrono::minutes(opt->idle_min);
    ro.interrupt = opt->stop_on_interrupt ? orchestrator::InterruptMode::stop_running : orchestrator::InterruptMode::finish_running;
    ro.harness_cli = self_dir() / "harness-cli";
    ro.harness_mcp = self_dir() / "harness-mcp";
    ro.worker_prompt_template = skills_dir() / "templates" / "worker-prompt.md";
    const auto style = orchestrator::choose_display(opt->json, ::isatty(STDOUT_FILENO), std::getenv("TERM"));
    // The live table fits its rows to the terminal, and counts the rows a long question wraps to.
    winsize ws{};
    const int width = ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 ? ws.ws_col : 100;
    auto display = orchestrator::make_display(style, stdout, width);
    // `orchestrate | head` must not kill the run with its workers left behind: a closed pipe is a
    // failed write (EPIPE), and the run drains as when the terminal closes. Workers start with
    // SIGPIPE at its default again (worker::spawn_process).
    std::signal(SIGPIPE, SIG_IGN);
    verify::VerifyOptions checks;
    checks.ui_driver = verify::find_ui_driver(self_dir(), HARNESS_SOURCE_DIR);
    auto verifier = orchestrator::make_engine_verifier(checks);
    orchestrator::Orchestrator o(std::move(ro), *verifier, *display);
    auto result = o.run();
    exit.stdout_errno = display->output_error(); // main's check of stdout says why it failed
    if (!result) {
      refuse(result.error().message, result.error().exit_code);
      return;
    }
    for (const auto& b : result->blocked) std::cerr << "blocked: " << b << "\n";
    for (const auto& w : result->waiting) std::cerr << "waiting: " << w << "\n";
    // On stderr too: the event stream may be a file on the disk that filled up.
    if (!result->unwritten.empty())
      std::cerr << "harness-cli: error: "
                << orchestrator::unwritten_text(result->unwritten, opt->spec_dir, result->outcome == "complete") << "\n";
    if (!result->waiting.empty() && result->outcome == "waiting_for_human")
      std::cerr << "nothing else can run before these answers; answer them, then run harness-cli orchestrate "
                << opt->spec_dir << " again\n";
    else if (!result->waiting.empty()) // a drained run: the questions stay open, answered now or later
      std::cerr << "these questions stay open; answer them now or later, then run harness-cli orchestrate "
                << opt->spec_dir << " again: it gives each answer to its task\n";
    exit.value = result->exit_code;
  });
}

} // namespace harness::cli
