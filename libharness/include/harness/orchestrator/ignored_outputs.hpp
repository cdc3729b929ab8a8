#pragma once
// A plan whose work git ignores: its tasks change files a .gitignore, .git/info/exclude or
// core.excludesFile rule covers, so nothing of it is committed, while the run would otherwise
// verify it and say nothing (its checks see the files on disk).

#include <string>
#include <vector>

namespace harness::orchestrator {

/// What an execute of `plan_id` left to say about ignored files: `ignored` are files its
/// files_modified match that git ignores and the attempt changed, `rule` the rule that ignores the
/// first one (ignore_rule; may be empty), `uncommitted_tasks` of its `tasks` tasks have no commit.
/// Empty when no file is ignored or every task has its commit (the ignored files were extras).
std::string ignored_outputs_note(const std::string& plan_id, const std::vector<std::string>& ignored,
                                 const std::string& rule, int uncommitted_tasks, int tasks);

} // namespace harness::orchestrator
