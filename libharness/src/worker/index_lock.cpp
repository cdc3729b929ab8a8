#include "harness/worker/index_lock.hpp"

#include "harness/util/atomic_file.hpp"
#include "harness/util/proc_stat.hpp"
#include "harness/worker/git.hpp"
#include "harness/worker/git_head.hpp"

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>

namespace harness::worker {
namespace fs = std::filesystem;

namespace {

/// `<root>/.git`, or the directory a linked worktree's `.git` file names (`gitdir: ...`).
fs::path git_dir_of(const fs::path& root) {
  const fs::path dot_git = root / ".git";
  std::error_code ec;
  if (fs::is_regular_file(dot_git, ec))
    if (auto text = util::read_file(dot_git); text && text->starts_with("gitdir:")) {
      std::string dir = text->substr(7);
      while (!dir.empty() && (dir.front() == ' ' || dir.front() == '\t')) dir.erase(dir.begin());
      while (!dir.empty() && (dir.back() == '\n' || dir.back() == '\r' || dir.back() == ' ')) dir.pop_back();
      return fs::path(dir).is_absolute() ? fs::path(dir) : root / dir;
    }
  return dot_git;
}

std::string canonical_or_as_is(const fs::path& p) {
  std::error_code ec;
  const fs::path c = fs::weakly_canonical(p, ec);
  return (ec ? p : c).string();
}

/// The live gits whose working directory is one of `dirs` or below one.
std::vector<int> git_processes_under(const std::vector<fs::path>& dirs) {
  std::vector<std::string> prefixes;
  for (const auto& d : dirs) prefixes.push_back(canonical_or_as_is(d));
  auto inside = [&](const std::string& cwd) {
    return std::ranges::any_of(prefixes, [&](const std::string& prefix) {
      return cwd == prefix || (cwd.starts_with(prefix) && cwd.size() > prefix.size() && cwd[prefix.size()] == '/');
    });
  };
  std::error_code ec;
  std::vector<int> out;
  for (const auto& e : fs::directory_iterator("/proc", ec)) {
    const std::string name = e.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    auto comm = util::read_file(e.path() / "comm");
    if (!comm || (*comm != "git\n" && *comm != "git")) continue;
    // A zombie (dead, not reaped yet) has let go of everything it held.
    if (auto stat = util::read_proc_stat(std::stoll(name)); stat && stat->exited()) continue;
    std::error_code cwd_ec;
    const std::string cwd = fs::read_symlink(e.path() / "cwd", cwd_ec).string();
    // No cwd (ENOENT): gone, or in the kernel's part of exiting, past the point where git removes
    // its own locks: it holds nothing any more. Any git on the machine passes through that state,
    // and counting it kept a dead git's lock whenever another git elsewhere happened to be ending.
    if (cwd_ec == std::errc::no_such_file_or_directory) continue;
    // Unreadable otherwise: not ours to see, and maybe in this repository.
    if (cwd_ec || inside(cwd)) out.push_back(std::stoi(name));
  }
  return out;
}

} // namespace

fs::path index_lock_path(const fs::path& root) { return git_dir_of(root) / "index.lock"; }

std::vector<fs::path> repository_work_trees(const fs::path& root) {
  fs::path common = common_dir(git_dir_of(root));
  if (common.filename().empty()) common = common.parent_path(); // ".../.git/", from commondir's "../.."
  // The common directory itself: a bare repository's, and the gits run from inside .git.
  std::vector<fs::path> out = {root, common};
  if (common.filename() == ".git") out.push_back(common.parent_path());
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(common / "worktrees", ec)) {
    auto text = util::read_file(e.path() / "gitdir");
    if (!text) continue;
    while (!text->empty() && (text->back() == '\n' || text->back() == '\r')) text->pop_back();
    if (text->empty()) continue;
    // "<worktree>/.git"; relative to this directory when git writes relative paths.
    const fs::path dot_git = fs::path(*text).is_absolute() ? fs::path(*text) : e.path() / *text;
    out.push_back(dot_git.lexically_normal().parent_path());
  }
  return out;
}

std::vector<int> git_processes_in(const fs::path& root) { return git_processes_under({root}); }

std::vector<int> git_processes_in_repository(const fs::path& root) {
  return git_processes_under(repository_work_trees(root));
}

std::vector<fs::path> existing_git_locks(const fs::path& root) {
  const fs::path index = index_lock_path(root);
  const fs::path git_dir = index.parent_path();
  // A git killed while it moved the branch leaves HEAD.lock or the branch's own ref lock, and
  // then every commit fails with "cannot lock ref 'HEAD'" as surely as with index.lock. HEAD is
  // the worktree's own; the branch is in the common directory (a linked worktree's main .git), and
  // so is packed-refs, whose lock a killed commit, pack-refs or branch deletion leaves: every later
  // ref update that rewrites packed-refs then fails on it.
  const fs::path common = common_dir(git_dir);
  std::vector<fs::path> locks = {index, git_dir / "HEAD.lock", common / "packed-refs.lock"};
  if (auto head = read_head(git_dir); head && !head->branch.empty())
    locks.push_back(common / "refs/heads" / (head->branch + ".lock"));
  std::error_code ec;
  std::erase_if(locks, [&](const fs::path& l) { return !fs::exists(fs::symlink_status(l, ec)); });
  return locks;
}

namespace {

// Nobody's so far: no git works in the repository (a git in the main checkout or another worktree
// may hold the shared branch and packed-refs locks, so it counts as much as one working here), and
// every lock is the file first seen (gone or rewritten: a git held it, and ended or began while
// /proc was read).
bool still_nobodys(const fs::path& root, const LockLook& first) {
  if (!git_processes_in_repository(root).empty()) return false;
  std::error_code ec;
  for (std::size_t i = 0; i < first.locks.size(); ++i)
    if (!fs::exists(fs::symlink_status(first.locks[i], ec)) || fs::last_write_time(first.locks[i], ec) != first.written[i])
      return false;
  return true;
}

} // namespace

LockLook first_lock_look(const fs::path& root) {
  LockLook look;
  look.locks = existing_git_locks(root);
  if (look.locks.empty()) return look;
  std::error_code ec;
  for (const auto& l : look.locks) look.written.push_back(fs::last_write_time(l, ec));
  if (!still_nobodys(root, look)) return {};
  return look;
}

std::vector<fs::path> second_lock_look(const fs::path& root, const LockLook& first) {
  if (first.locks.empty() || !still_nobodys(root, first)) return {};
  return first.locks;
}

std::vector<fs::path> orphaned_git_locks(const fs::path& root) {
  // Missing a live git here means telling someone to remove the lock under it: two looks, 100 ms
  // apart (file times advance by the kernel's tick, several milliseconds).
  const auto first = first_lock_look(root);
  if (first.locks.empty()) return {};
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  return second_lock_look(root, first);
}

std::vector<fs::path> remove_git_locks(const std::vector<fs::path>& locks) {
  std::vector<fs::path> removed;
  std::error_code ec;
  for (const auto& l : locks)
    if (fs::remove(l, ec) && !ec) removed.push_back(l);
  return removed;
}

std::vector<fs::path> remove_orphaned_git_locks(const fs::path& root) { return remove_git_locks(orphaned_git_locks(root)); }

std::optional<std::vector<std::string>> restore_killed_commit_entries(const fs::path& root) {
  std::error_code ec;
  if (fs::exists(fs::symlink_status(index_lock_path(root), ec)) || !git_processes_in(root).empty()) return std::nullopt;
  std::vector<std::string> paths;
  // Deleted in the index against HEAD, yet still in the index: an intent-to-add entry of a file
  // HEAD has (a real staged deletion is no index entry at all). Without a HEAD, git fails: none.
  auto deleted = run_git(root, {"diff", "--cached", "--name-only", "--no-renames", "--diff-filter=D", "-z"});
  if (deleted.exit_code == 0 && !deleted.out.empty()) {
    std::vector<std::string> ls = {"ls-files", "-z", "--"};
    for (const auto& p : nul_separated(deleted.out)) ls.push_back(literal_pathspec(p));
    if (auto listed = run_git(root, std::move(ls)); listed.exit_code == 0) std::ranges::move(nul_separated(listed.out), std::back_inserter(paths));
  }
  // Changed in the index against HEAD while the work tree holds HEAD's content: the entry from
  // before the commit, which a stopped commit (SIGTERM between moving the branch and writing the
  // index: git rolls its index lock back) leaves. A plain commit would take the file back to it.
  // A person gets there only by staging a change and then undoing it in the work tree alone (the
  // staged blob then stays among git's objects until gc: `git fsck --lost-found` finds it).
  auto modified = run_git(root, {"diff", "--cached", "--name-only", "--no-renames", "--diff-filter=M", "-z"});
  if (modified.exit_code == 0 && !modified.out.empty()) {
    const auto staged = nul_separated(modified.out);
    std::vector<std::string> diff = {"diff", "--name-only", "--no-renames", "-z", "HEAD", "--"};
    for (const auto& p : staged) diff.push_back(literal_pathspec(p));
    if (auto in_work_tree = run_git(root, std::move(diff)); in_work_tree.exit_code == 0) {
      const auto differ = nul_separated(in_work_tree.out);
      for (const auto& p : staged)
        if (std::ranges::find(differ, p) == differ.end()) paths.push_back(p);
    }
  }
  if (paths.empty()) return std::vector<std::string>{};
  std::vector<std::string> reset = {"reset", "-q", "--"};
  for (const auto& p : paths) reset.push_back(literal_pathspec(p));
  if (run_git_writing_index(root, std::move(reset)).exit_code != 0) return std::vector<std::string>{};
  return paths;
}

} // namespace harness::worker
