#pragma once
// A git killed while it holds the index leaves `index.lock` behind, and every later `git add` or
// `git commit` in the repository fails on it ("Unable to create '.git/index.lock': File exists").
// Git removes its lock on SIGTERM in most moments, not all: a worker stopped during a commit (a
// timeout, end-session, a run resumed after kill -9 stopping what the killed run left) can leave
// one. Harness removes such a lock only after it stopped a worker, and only when no git process
// works in the repository (in any of its worktrees): a lock some live git holds is never touched.

#include <filesystem>
#include <optional>
#include <vector>

namespace harness::worker {

/// `index.lock` of the repository whose work tree is `root`: `<root>/.git/index.lock`, or for a
/// linked worktree (`.git` is a file saying `gitdir: ...`) the lock in the directory it names.
std::filesystem::path index_lock_path(const std::filesystem::path& root);

/// The live processes named `git` whose working directory is `root` or below it (read from
/// /proc; zombies hold nothing and are left out). A git whose directory cannot be read (another
/// user's) counts as inside: it might hold the lock.
std::vector<int> git_processes_in(const std::filesystem::path& root);

/// Every directory a git of the repository whose work tree is `root` may work in: `root`, the
/// common git directory, the main work tree, and each linked worktree (from `worktrees/*/gitdir`).
/// The branches and packed-refs are shared by all of them, and so are their locks.
std::vector<std::filesystem::path> repository_work_trees(const std::filesystem::path& root);

/// git_processes_in over every repository_work_trees directory: a git in the main checkout holds
/// a linked worktree's branch lock as surely as one in the worktree.
std::vector<int> git_processes_in_repository(const std::filesystem::path& root);

/// The repository's index.lock, HEAD.lock, packed-refs.lock and current branch's ref lock that
/// exist now, whether a git holds them or not.
std::vector<std::filesystem::path> existing_git_locks(const std::filesystem::path& root);

/// The repository's index.lock, HEAD.lock, packed-refs.lock and current branch's ref lock (a
/// linked worktree's branch and packed-refs are in the common directory) that exist while no git
/// process works in any work tree of the repository (git_processes_in_repository), and are still
/// the same files after /proc was looked at (a git that just ended took its lock with it): each
/// makes commits fail. Empty when there are none or a git runs there.
std::vector<std::filesystem::path> orphaned_git_locks(const std::filesystem::path& root);

/// orphaned_git_locks in two halves, for a caller that must not sleep between its looks (an event
/// loop): the first look's locks and their write times (empty when none exist or a git works
/// now), and, given that look at least 100 ms later, the ones still there and unchanged while
/// still no git works. One git can end and the next begin while /proc is read, and the next one's
/// lock can carry the same write time: two looks apart tell a dead git's lock from theirs.
struct LockLook {
  std::vector<std::filesystem::path> locks;
  std::vector<std::filesystem::file_time_type> written; ///< each lock's write time, as first seen
};
LockLook first_lock_look(const std::filesystem::path& root);
std::vector<std::filesystem::path> second_lock_look(const std::filesystem::path& root, const LockLook& first);

/// Removes `locks` (what second_lock_look found); returns those removed.
std::vector<std::filesystem::path> remove_git_locks(const std::vector<std::filesystem::path>& locks);

/// Removes the orphaned_git_locks (a stopped worker's git left them). Returns the paths removed:
/// none when there were none, a git runs there, or they could not be removed.
std::vector<std::filesystem::path> remove_orphaned_git_locks(const std::filesystem::path& root);

/// A `git commit --only` killed after it moved the branch and before it wrote the index leaves
/// the index as it was before the commit, although HEAD now has the commit: the intent-to-add
/// entry it made for a new file (`git status`: "DA"), or a changed file's entry from before the
/// change while the work tree holds what HEAD holds ("MM"). The next plain `git commit` of anyone
/// (an agent's, the user's) would then undo that commit's change (a deletion, the old content),
/// and what the index says of the file differs from a run that was not killed. When no git
/// process works in `root` and the index is not locked, such entries are set back to HEAD's
/// (`git reset -- PATHS`; the work tree is not touched). Returns the paths set back; nullopt when
/// it could not look (a git works in `root`, or the index is locked): look again later.
std::optional<std::vector<std::string>> restore_killed_commit_entries(const std::filesystem::path& root);

} // namespace harness::worker
