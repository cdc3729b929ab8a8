#include "harness/worker/script_plan.hpp"

#include "harness/worker/trailers.hpp"

#include <fmt/format.h>

namespace harness::worker {
namespace {

bool is_shell_block(const spec::CodeBlock& b) {
  // The info string may carry attributes after the language ("bash title=x").
  const std::string lang = b.info.substr(0, b.info.find_first_of(" \t{"));
  return lang == "sh" || lang == "bash";
}

std::string yaml_quoted(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += "''";
    else if (c == '\n') out += ' ';
    else out += c;
  }
  return out + "'";
}

void yaml_list(std::string& out, std::string_view key, const std::vector<std::string>& items) {
  if (items.empty()) {
    out += fmt::format("{}: []\n", key);
    return;
  }
  out += fmt::format("{}:\n", key);
  for (const auto& i : items) out += fmt::format("  - {}\n", yaml_quoted(i));
}

} // namespace

std::vector<ScriptTask> script_tasks(const spec::Plan& plan) {
  std::vector<ScriptTask> tasks;
  for (const auto& t : plan.tasks) tasks.push_back({0, t.name, {}, t.line});
  ScriptTask setup{0, "setup", {}, 0};
  for (const auto& block : plan.code_blocks) {
    if (!is_shell_block(block)) continue;
    ScriptTask* owner = nullptr;
    for (auto& t : tasks)
      if (t.line < block.line) owner = &t;
    (owner ? owner : &setup)->scripts.push_back(block.code);
  }
  if (!setup.scripts.empty()) tasks.insert(tasks.begin(), std::move(setup));
  for (size_t i = 0; i < tasks.size(); ++i) tasks[i].index = static_cast<int>(i + 1);
  return tasks;
}

std::string task_commit_message(const spec::Plan& plan, const ScriptTask& task, int task_count,
                                const std::string& spec_trailer) {
  std::string type = plan.type.empty() || plan.type == "execute" ? "feat" : plan.type;
  std::string subject = task.name.empty() ? fmt::format("task {}", task.index) : task.name;
  return fmt::format("{}({}): {}\n\n{}", type, plan.id, subject, plan_trailers(plan.id, task.index, task_count, spec_trailer));
}

std::string script_summary(const spec::Plan& plan, const ScriptRunRecord& run) {
  std::string out = "---\n";
  out += fmt::format("plan_id: '{}'\n", plan.id);
  out += fmt::format("status: {}\n", run.tasks_run == run.task_count ? "complete" : "partial");
  out += "worker: script\n";
  yaml_list(out, "commits", run.commits);
  yaml_list(out, "files_touched", run.files_touched);
  yaml_list(out, "deviations", run.deviations);
  out += fmt::format("duration_seconds: {:.3f}\n", run.duration_seconds);
  out += "---\n";
  out += fmt::format("# {} summary{}\n\n", plan.id, plan.title.empty() ? "" : ": " + plan.title);
  out += fmt::format("The `script` worker ran the plan's shell blocks: {} of {} tasks, one commit per task "
                     "that changed a file.\n\n",
                     run.tasks_run, run.task_count);
  if (!run.files_touched.empty()) {
    out += "## Files\n";
    for (const auto& f : run.files_touched) out += fmt::format("- `{}`\n", f);
    out += "\n";
  }
  out += "## Deviations\n";
  if (run.deviations.empty()) out += "None.\n";
  for (const auto& d : run.deviations) out += fmt::format("- {}\n", d);
  return out;
}

} // namespace harness::worker
