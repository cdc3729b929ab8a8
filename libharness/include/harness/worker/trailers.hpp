#pragma once
// Seed 000's commit trailers (`Plan: 01-02, Task: 1/3`, `Spec: SPC-...`) and harness's redo
// markers, read back out of git history: which tasks of a plan are done, which commits a plan
// made. A task with its trailer commit counts as done; that is what makes a killed run resume
// without repeating work.

#include "harness/worker/git.hpp"

#include <cstddef>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace harness::worker {

/// A commit whose message carries seed 000's trailers: `Plan: 01-02, Task: 1/3` (or just
/// `Plan: 01-02`) and `Spec: SPC-...`; or a redo marker (`harness-cli redo`), which carries
/// `Redo: 01-02` (every task) or `Redo: 01-02, Task: 2` lines and `Spec:` instead of `Plan:`.
struct TrailerCommit {
  std::string hash;
  std::string plan;  ///< "01-02"
  int task = 0;      ///< 1-based task index; 0 when the trailer names no task (a SUMMARY commit)
  std::string spec;  ///< "SPC-001-x", empty when absent
  std::string subject; ///< the message's first line
  /// The commits it was made on, as git lists them: none for a root commit, and none for a commit
  /// a shallow clone cut its history at (git grafts it parentless).
  std::vector<std::string> parents;
  std::vector<std::string> files; ///< paths the commit changed, when files_known
  bool files_known = false;
  /// A redo marker's (plan, task) pairs; task 0 = every task of the plan.
  std::vector<std::pair<std::string, int>> redo;
  /// One of several plans' commits gathered into one (a squash merge, whose message holds each
  /// one's trailers): the commit holds this plan's work, and other plans' too. Its files are all
  /// of theirs together, so which of them this plan changed cannot be told.
  bool squashed = false;
};

/// `git log` arguments whose output parse_trailer_log reads: hash, parents, message and, with
/// `with_files`, the changed paths (NUL-separated, so any file name survives). Revisions and
/// filters go after them.
std::vector<std::string> trailer_log_args(bool with_files);

/// Parses the output of `git log` (or `git show`) run with trailer_log_args(with_files);
/// commits with neither a `Plan:` trailer nor a `Redo:` one are left out unless `keep_all`. With
/// `read_squashes`, a squash merge's commit (git's `commit <hash>` headers, or a forge's `* `
/// bullets, with Plan lines under two or more of them) is one entry per commit it gathers
/// (`squashed`); otherwise, and for every other commit, its last Plan and Spec lines count.
std::vector<TrailerCommit> parse_trailer_log(std::string_view log, bool with_files, bool keep_all = false,
                                             bool read_squashes = true);

/// Whether `tip` is `ancestor` or descends from it, proven by `parents` (hash -> the commits it
/// was made on): some commit reachable from `tip` through them is `ancestor`. false means not
/// proven: `tip` does not descend from it, or `parents` lacks a link on the way (a commit it does
/// not hold, a shallow clone's cut); only git can then tell.
bool proven_descent(const std::map<std::string, std::vector<std::string>>& parents, const std::string& tip,
                    const std::string& ancestor);

/// Whether a commit's `Spec:` trailer names the spec asked about (spec::Layout::owns_spec_trailer).
using SpecOwner = std::function<bool(std::string_view spec_trailer)>;

/// The committed tasks of plan `plan_id` of the spec `ours` recognises that stand, as (task,
/// hash) oldest first: a task's commit counts as its work done unless a newer redo marker of the
/// same spec names the task or the whole plan. `newest_first` is history as `git log` lists it,
/// markers included; commits of other plans and specs are ignored.
std::vector<std::pair<int, std::string>> standing_tasks(const std::vector<TrailerCommit>& newest_first,
                                                        const std::string& plan_id, const SpecOwner& ours);

/// The trailer lines of a plan's commit: `Plan: 01-02, Task: 2/3` (task 0: `Plan: 01-02`, a
/// SUMMARY commit) and `Spec: <spec>`, each ending in a newline. Every worker writes these.
std::string plan_trailers(const std::string& plan_id, int task, int task_count, const std::string& spec);

/// Why the commit `hash`, made with plan_trailers(plan_id, task, ..., spec), no longer carries
/// them as harness reads them, or empty when it does (or git cannot say). A commit-msg hook that
/// rewrites messages can drop them, and a task commit without them is no done task: a retry would
/// do the task again, and verification would find no commit of the plan. The message names the
/// hook files (message_hooks) and says the fix first.
std::string lost_trailers(const std::filesystem::path& root, const std::string& hash, const std::string& plan_id, int task,
                          const std::string& spec);

/// The lines `Redo: 01-02` (task 0: every task) or `Redo: 01-02, Task: 2` of a redo marker.
std::string redo_trailer(const std::string& plan_id, int task);

/// The trailer commits of a repository's HEAD history, read once and then incrementally: each
/// refresh() reads only the commits made since the previous one, so asking after every plan
/// costs one small `git log`, not a walk of the whole history. Thread-safe.
class TrailerIndex {
public:
  /// With `git_dir` (the repository's git directory), a refresh first reads which commit HEAD
  /// stands on from its files, and starts no git when that is the newest commit read already.
  /// With `cache_file` too (trailer_cache.hpp), the first refresh starts from what an earlier
  /// index kept there and reads only the commits made since; it keeps what it read there.
  explicit TrailerIndex(std::filesystem::path root, std::filesystem::path git_dir = {},
                        std::filesystem::path cache_file = {})
      : m_root(std::move(root)), m_git_dir(std::move(git_dir)), m_cache_file(std::move(cache_file)) {}
  /// Reads commits new since the last refresh (everything on the first call, or after the
  /// history was rewritten under us).
  void refresh();
  /// Why the last read of the history failed (git could not start, or said an error), empty when
  /// it succeeded or the repository has no commits yet. After a failure the index keeps what
  /// earlier reads found: a commit missing from it may just be unread, not absent.
  std::string error() const;
  /// The newest commit read so far (empty before the first read, or in a history without commits).
  std::string head() const;
  /// Commits carrying `Plan: <plan_id>`, oldest first.
  std::vector<TrailerCommit> commits_for(const std::string& plan_id) const;
  /// standing_tasks of the history read so far: which tasks of the plan a worker may skip.
  std::vector<std::pair<int, std::string>> standing_tasks(const std::string& plan_id, const SpecOwner& ours) const;
  /// The newest redo marker of the plan (of a spec `ours` owns) with no SUMMARY commit of the plan
  /// after it: the plan is being executed again because of it. nullopt when there is none.
  std::optional<TrailerCommit> pending_redo(const std::string& plan_id, const SpecOwner& ours) const;
  /// The paths these commits changed, sorted and unique. Commits read by a refresh after the
  /// first one come with their paths; older ones (a resumed run's) are asked of git once.
  std::vector<std::string> files_of(const std::vector<TrailerCommit>& commits) const;
  /// Commits read after the first refresh that carry neither a `Plan:` nor a `Spec:` trailer
  /// (with their paths), oldest first: made while a run went on by someone, or by a worker that
  /// committed on its own, and owned by no plan.
  std::vector<TrailerCommit> untrailed() const;
  /// Whether the commit `tip` is `ancestor` or descends from it, as proven_descent tells from the
  /// parents of the commits read after the first refresh; when `tip` is not among them, they are
  /// read up to it first (one `git log`, which a later refresh then need not repeat). false when
  /// not proven, or before the first refresh: the caller asks git (`merge-base --is-ancestor`).
  bool descends(const std::string& tip, const std::string& ancestor);

private:
  void add(std::vector<TrailerCommit> newest_first);
  /// refresh() up to `rev` ("HEAD", or a commit), with m_mutex held.
  void read_up_to(const std::string& rev);
  /// The first read from m_cache_file and the commits since; false when it cannot be used (none,
  /// unreadable, another shallow boundary, its commit no longer in the history): read it all.
  bool read_through_cache(const std::string& rev);
  /// Keeps `newest_first`, the history's trailer commits up to `head`, in m_cache_file, read while
  /// the shallow boundary was `shallow` (not kept when it has moved since, or history is replaced).
  void save_cache(const std::string& head, const std::vector<TrailerCommit>& newest_first, const std::string& shallow) const;
  std::filesystem::path m_root, m_git_dir, m_cache_file;
  mutable std::mutex m_mutex;
  std::string m_head; ///< newest commit read so far
  std::string m_error; ///< see error()
  std::map<std::string, std::vector<TrailerCommit>> m_by_plan;
  /// Redo markers by plan, oldest first, each with how many of m_by_plan's commits of that plan
  /// are older than it (the history's order, which standing_tasks needs).
  std::map<std::string, std::vector<std::pair<std::size_t, TrailerCommit>>> m_redo;
  mutable std::map<std::string, std::vector<std::string>> m_files; ///< by hash, for files_of
  std::vector<TrailerCommit> m_untrailed;
  /// The parents of every commit read after the first refresh: what descends() proves from.
  std::map<std::string, std::vector<std::string>> m_parents;
};

} // namespace harness::worker
