#pragma once
// What a run checks before it starts: problems that would make it fail part-way (reported before
// anything is written, so the user fixes them first), and facts about the working tree that a
// worker would otherwise act on silently.

#include "harness/orchestrator/run_options.hpp"
#include "harness/spec/spec.hpp"
#include "harness/worker/git.hpp"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace harness::orchestrator {

/// Something that would make a run fail part-way through (a commit without an identity, a worker
/// program that is not there), found before the run takes its lock or writes a file.
struct StartProblem {
  std::string problem; ///< what is wrong, one line
  std::string fix;     ///< what to do about it, one line
};

/// What the start checks need to know about the machine. probe_start_facts asks git and the file
/// system; a test fills it in, so start_problems is a decision without I/O.
/// A file of the run's state that cannot be written (StartFacts::unwritable_state).
struct UnwritableState {
  std::string path;                   ///< project-relative, or the project directory named in words
  bool read_only_file_system = false; ///< EROFS: no chmod helps
  bool not_a_directory = false;       ///< .orchestration is a file, or a link to one
  /// .orchestration is a link to nothing: util::blocking_part's words for it (review OO F9).
  std::string dangling = {};
  bool operator==(const UnwritableState&) const = default;
};

struct StartFacts {
  bool git_found = true;      ///< `git` is on PATH
  bool git_repository = true; ///< the project root is inside a git work tree
  /// Everything git said when it refused the repository for another reason than there being none
  /// (its owner is another user and safe.directory does not list it, a corrupt .git): `git init`
  /// is no fix then. Empty when git reads it, or there is no repository (git_repository).
  std::string git_refusal;
  /// Its git directory (`git rev-parse --absolute-git-dir`: a worktree's own), where the run reads
  /// HEAD to notice a branch switched under it; empty when unknown.
  std::filesystem::path git_dir;
  /// git's complaint (`git var GIT_AUTHOR_IDENT`, the same rule `git commit` applies) when it
  /// has no author identity for commits made here; empty when it has one.
  std::string author_identity_error;
  std::string committer_identity_error; ///< the same for the committer
  /// git's complaint when it is set to sign every commit here (`commit.gpgsign`) and cannot sign
  /// (a key not in the keyring, a locked agent, a missing gpg.program); empty when signing is off
  /// or works. Every commit of the run would fail after its task did the work.
  std::string signing_error;
  /// A git operation the repository is in the middle of ("merge", "rebase", "cherry-pick",
  /// "revert"), empty when none: commits of single paths fail then, and the harness's own
  /// files would be staged into the user's operation.
  std::string git_operation;
  /// git's lock files (`.git/index.lock`, HEAD.lock, packed-refs.lock, the branch's ref lock; project-relative when
  /// inside it) that no git process holds and no worker of an earlier run can have left (that run's
  /// workers are stopped and their locks removed at the start): a crashed editor's or terminal's
  /// git left them, and every commit would fail on them until they are removed.
  std::vector<std::string> orphaned_git_locks;
  /// The spec's documents (STATUS.md, a SUMMARY, a VERIFICATION, ...; project-relative) that a
  /// .gitignore rule would keep out of the commits every task and verification makes.
  std::vector<std::string> ignored_documents;
  /// Files of the run's state (.orchestration/ and its database) that exist and cannot be
  /// written, or the project directory when .orchestration/ is not there yet and cannot be made:
  /// the run would go on without its store and resume would not work.
  std::vector<UnwritableState> unwritable_state;
  /// The directories of a cone-mode sparse checkout (`git sparse-checkout list`; none: only the
  /// root's files), project-relative; nullopt when the checkout is not sparse, or sparse with
  /// non-cone patterns, which git 2.39 offers no way to match a path against.
  std::optional<std::vector<std::string>> sparse_cone;
  /// The project's submodules (worker::submodule_paths), project-relative: another repository's
  /// files, which no commit of this one can hold.
  std::vector<std::string> submodules;
  /// In a shallow clone (`git rev-parse --is-shallow-repository`), the plans with a commit of this
  /// spec's (a `Plan:` and this spec's `Spec:` trailer) in the history the clone holds; nullopt
  /// when the history is whole.
  std::optional<std::set<std::string>> shallow_plans_with_commits;
  /// Bytes this user may still write on the file system holding the project, or the state's when
  /// .orchestration/ leads to another and that one is fuller (statvfs; root may
  /// use the reserved blocks too); nullopt when unknown. A run on a full disk wrote its lock and
  /// failed on its first state file (review II F10).
  std::optional<std::uint64_t> free_bytes;
  std::filesystem::path free_bytes_at; ///< the directory on the fullest of those file systems
  /// How many descriptors the run may have open at once (the soft RLIMIT_NOFILE, which harness-cli
  /// raised toward the hard limit as it started); nullopt when unlimited or unknown.
  std::optional<std::uint64_t> open_file_limit;
  /// The executable a worker's program name resolves to, or empty when it does not resolve to one
  /// (unset: none resolves).
  std::function<std::filesystem::path(const std::string& program)> resolve_program;
};

/// The least free space a run starts with, and below which a failed attempt is taken for the
/// disk's fault (it waits for space, costing no attempt). What a run writes before its first task
/// (lock, state database, session directories) is far below this; a disk this full fails at once
/// or within the first plans.
inline constexpr std::uint64_t least_free_to_run = std::uint64_t{1} << 20;
/// The same for files (inodes) during a run: a session directory and its files take a few.
inline constexpr std::uint64_t least_free_files_to_run = 64;

/// About how many descriptors a run with `slots` workers and `verify_threads` verification
/// threads has open at its busiest, measured: about 25 of its own (standard streams, the store's
/// connections, the watches, the loop, one git call), 3 per running worker (output pipe, pidfd,
/// log file) and 6 per check running a command (its own loop, pipe and pidfd).
std::uint64_t open_files_needed(int slots, int verify_threads);

/// The facts for a run of the spec at `layout`: git processes run in its project root with the
/// orchestrator's own environment (as its commits do), and program names resolve as the worker
/// host resolves them (worker::find_program from this process's working directory and PATH), then
/// must be executable.
StartFacts probe_start_facts(const spec::Layout& layout);

/// The spec's documents harness commits (STATUS.md, ROADMAP.md, execution/commits.log, a SUMMARY,
/// FINAL-VERIFICATION.md) that a .gitignore rule of the project ignores, project-relative; empty
/// when none is, or git cannot tell (no repository). `orchestrate` refuses to start while any is;
/// `init` says so at once.
std::vector<std::string> ignored_documents(const spec::Layout& layout);

/// Every problem that would stop `options` part-way in the project of `layout`, each with its
/// fix; empty when the run can start. The worker programs checked are those of the launches the
/// run would build (worker::build_launch) for each task kind that starts a worker process.
std::vector<StartProblem> start_problems(const RunOptions& options, const spec::Layout& layout, const StartFacts& facts);

/// The problems of plans that have not run yet (no SUMMARY) whose `files_modified` reach where
/// git cannot stage a file: into a submodule (facts.submodules), or outside a cone-mode sparse
/// checkout (facts.sparse_cone). A literal entry is checked as a path, a glob by its fixed leading
/// directory (one without any, `**/*.ts`, is not checked). Every attempt of such a plan would do
/// its work and then commit nothing, or fail at `git add`.
std::vector<StartProblem> declared_path_problems(const spec::Spec& spec, const StartFacts& facts);

/// The problem of a run in a shallow clone that lacks the commits of plans executed before it (a
/// SUMMARY, and none of their commits in the clone: facts.shallow_plans_with_commits) while the
/// spec is not done: the run's verifications, the final one at the latest, check every plan's
/// commits, and would find theirs missing. None when the history is whole or the spec is done.
std::vector<StartProblem> shallow_history_problems(const spec::Spec& spec, const StartFacts& facts);

/// The plans of the spec at `layout` that have a trailer commit of its own in the history of the
/// repository, as StartFacts::shallow_plans_with_commits (asked only in a shallow clone, whose
/// history is short).
std::set<std::string> plans_with_commits(const spec::Layout& layout);

/// The cone of the sparse checkout of the repository at `root`, as StartFacts::sparse_cone.
std::optional<std::vector<std::string>> sparse_cone_directories(const std::filesystem::path& root);

/// The problems as the text of an error: a first line, then "  - problem" and "    fix: ..." per
/// problem.
std::string render_start_problems(const std::vector<StartProblem>& problems);

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

/// What the failed attempts of a plan the run gave up on left in its declared files: paths in
/// `now` (git status) that `plan` declares, that were not changed at the run's start (`before`:
/// those are the user's), outside the spec directory and `.orchestration/`. Nobody commits them;
/// committed by hand, half-done work would become the base the next attempt starts from.
std::vector<std::string> attempt_leftovers(const spec::Spec& spec, const spec::Plan& plan,
                                           const std::vector<worker::GitChange>& before,
                                           const std::vector<worker::GitChange>& now);

/// The start note for a spec whose own documents are not committed (untracked, or only staged, in
/// `changes`, git status of the project): SPEC.md and ROADMAP.md by name, the PLAN files counted.
/// A run executes those plans and commits only its own outputs (SUMMARY, VERIFICATION, STATUS.md),
/// so history would hold results without the plans behind them. Empty when all are committed.
std::string uncommitted_spec_note(const spec::Spec& spec, const std::vector<worker::GitChange>& changes);

/// The note a run starts with when committed PLAN files have edits no commit holds (a PLAN fixed
/// before `redo`, say): the run executes them as they are, and history would hold work made from
/// a plan no commit has (review PP F5). Names up to three; empty when there are none.
std::string edited_plans_note(const spec::Spec& spec, const std::vector<worker::GitChange>& changes);

/// What a run changed that no plan declares: paths in `after` (git status at the end of the run)
/// that were not in `before` (at its start), lie outside the spec directory and `.orchestration/`,
/// and match no plan's `files_modified`. Workers commit only declared files, so these are left
/// uncommitted: a plan wrote outside its `files_modified`, or someone edited during the run.
std::vector<std::string> undeclared_changes(const spec::Spec& spec, const std::vector<worker::GitChange>& before,
                                            const std::vector<worker::GitChange>& after);

} // namespace harness::orchestrator
