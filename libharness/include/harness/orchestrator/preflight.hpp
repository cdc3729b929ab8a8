#pragma once
// What a run should tell the user before it starts workers: facts about the working tree that a
// worker would otherwise act on silently.

#include "harness/spec/spec.hpp"
#include "harness/worker/git.hpp"

#include <string>
#include <vector>

namespace harness::orchestrator {

/// An uncommitted change of the user's in a file that a plan which has not run yet declares in
/// `files_modified`: the worker commits what changed in its declared files, so that commit would
/// carry the user's edit along (and a retry resets the file).
struct DirtyDeclaredFile {
  std::string plan_id;
  std::string path; ///< relative to the project root
};

/// `changes` (git status of the project) matched against the pending plans' `files_modified`;
/// files inside the spec directory and `.orchestration/` are the harness's own and not listed.
std::vector<DirtyDeclaredFile> dirty_declared_files(const spec::Spec& spec, const std::vector<worker::GitChange>& changes);

/// What a run changed that no plan declares: paths in `after` (git status at the end of the run)
/// that were not in `before` (at its start), lie outside the spec directory and `.orchestration/`,
/// and match no plan's `files_modified`. Workers commit only declared files, so these are left
/// uncommitted: a plan wrote outside its `files_modified`, or someone edited during the run.
std::vector<std::string> undeclared_changes(const spec::Spec& spec, const std::vector<worker::GitChange>& before,
                                            const std::vector<worker::GitChange>& after);

} // namespace harness::orchestrator
