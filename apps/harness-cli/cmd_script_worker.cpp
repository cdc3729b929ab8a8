// harness-cli script-worker [--spec SPEC_DIR --plan PLAN_ID]
// The `script` adapter's worker process; also usable by hand to run one plan's shell blocks.
// Without flags it reads HARNESS_SPEC_DIR, HARNESS_TASK_ID (or HARNESS_PLAN_FILE),
// HARNESS_STATE_DIR, HARNESS_SESSION_ID and HARNESS_TOKEN (which its status and result files
// carry), as the orchestrator sets them.
#include "commands.hpp"

#include "harness/worker/script_worker.hpp"

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>

namespace harness::cli {
namespace {

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

/// "execute:01-02" → "01-02"; a PLAN path → its id from the file name.
std::string plan_id_from_env() {
  std::string task = env_or("HARNESS_TASK_ID", "");
  if (auto colon = task.find(':'); colon != std::string::npos) return task.substr(colon + 1);
  std::string file = std::filesystem::path(env_or("HARNESS_PLAN_FILE", "")).filename().string();
  if (file.ends_with("-PLAN.md")) return file.substr(0, file.size() - 8);
  return {};
}

} // namespace

void add_script_worker(CLI::App& app, ExitCode& exit) {
  struct Options {
    std::string spec_dir;
    std::string plan;
  };
  auto opt = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("script-worker", "Run one plan's sh/bash blocks and commit each task (the script worker)");
  cmd->add_option("--spec", opt->spec_dir, "spec directory (default: $HARNESS_SPEC_DIR)");
  cmd->add_option("--plan", opt->plan, "plan id, e.g. 02-01 (default: from $HARNESS_TASK_ID)");
  cmd->callback([opt, &exit] {
    worker::ScriptWorkerRequest req;
    req.spec_dir = opt->spec_dir.empty() ? env_or("HARNESS_SPEC_DIR", "") : opt->spec_dir;
    req.plan_id = opt->plan.empty() ? plan_id_from_env() : opt->plan;
    req.session_id = env_or("HARNESS_SESSION_ID", "");
    req.token = env_or("HARNESS_TOKEN", "");
    if (const char* done = std::getenv("HARNESS_DONE_TASKS")) req.done_tasks = worker::parse_done_tasks(done);
    req.done_tasks_at = env_or("HARNESS_DONE_TASKS_AT", "");
    req.first_attempt = env_or("HARNESS_FIRST_ATTEMPT", "") == "1";
    if (!req.session_id.empty() && std::getenv("HARNESS_STATE_DIR"))
      req.session_dir = std::filesystem::path(env_or("HARNESS_STATE_DIR", "")) / "sessions" / req.session_id;
    if (req.spec_dir.empty() || req.plan_id.empty()) {
      std::cerr << "harness-cli: script-worker: error: needs --spec and --plan (or HARNESS_SPEC_DIR and HARNESS_TASK_ID)\n";
      exit.value = 2;
      return;
    }
    auto r = worker::run_script_worker(req);
    if (!r.ok) {
      std::cerr << "harness-cli: script-worker: error: " << r.error << "\n";
      exit.value = r.bad_input ? 2 : 1;
      return;
    }
    std::cout << "script-worker: plan " << req.plan_id << ": " << r.tasks_run << " task(s) run, " << r.tasks_skipped
              << " already committed, " << r.commits.size() << " commit(s), summary " << r.summary.string() << "\n";
    exit.value = 0;
  });
}

} // namespace harness::cli
