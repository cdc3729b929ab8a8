#pragma once
// The `script` worker's pure half: which shell blocks make up each task of a plan, the commit
// message of each task (seed 000's atomic commits with Plan/Task/Spec trailers), and the SUMMARY
// it writes. The process half (running blocks, git) is script_worker.

#include "harness/spec/plan.hpp"

#include <string>
#include <vector>

namespace harness::worker {

/// One task of a plan as the script worker runs it.
struct ScriptTask {
  int index = 0;                    ///< 1-based
  std::string name;
  std::vector<std::string> scripts; ///< bodies of the task's sh/bash blocks, in order
  int line = 0;
};

/// Groups the plan's `sh`/`bash` fenced blocks under the task heading that precedes them. Blocks
/// before the first task form a task of their own named "setup". Tasks without blocks are kept
/// (they count in `Task: i/n`) with no scripts.
std::vector<ScriptTask> script_tasks(const spec::Plan& plan);

/// `feat(03-02): <task name>` + blank line + `Plan: 03-02, Task: 2/3` + `Spec: <spec_trailer>`.
std::string task_commit_message(const spec::Plan& plan, const ScriptTask& task, int task_count,
                                 const std::string& spec_trailer);

/// Facts of a finished run, for the SUMMARY.
struct ScriptRunRecord {
  std::vector<std::string> commits;       ///< full hashes, in order
  std::vector<std::string> files_touched; ///< project-relative, sorted
  std::vector<std::string> deviations;
  double duration_seconds = 0;
  int tasks_run = 0;
  int task_count = 0;
};

/// SUMMARY.md text: frontmatter (plan_id, status, commits, files_touched, deviations,
/// duration_seconds) and a short body that says a script, not an agent, did the work.
std::string script_summary(const spec::Plan& plan, const ScriptRunRecord& run);

} // namespace harness::worker
