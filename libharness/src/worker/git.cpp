#include "harness/worker/git.hpp"

#include "harness/util/atomic_file.hpp"

#include "harness/worker/file_lock.hpp"
#include "harness/worker/commit_hooks.hpp"
#include "harness/worker/index_sync.hpp"
#include "harness/worker/child_pipe.hpp"
#include "harness/worker/child_watch.hpp"
#include "harness/worker/spawn.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/readable_pipe.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <sys/wait.h>
#include <thread>

namespace harness::worker {
namespace asio = boost::asio;
namespace fs = std::filesystem;

namespace {

/// Ours, in the C locale: callers read git's messages ("nothing to commit"), which a git
/// inheriting the user's LANG / LANGUAGE would print translated.
std::map<std::string, std::string> git_environment() {
  auto env = current_environment();
  env["LC_ALL"] = "C";
  env.erase("LANGUAGE");
  return env;
}

/// `git commit -m message` as every commit of ours starts. core.abbrev=40 makes the summary line
/// "[branch <full hash>] subject" (committed_hash: no rev-parse needed). maintenance.auto=false:
/// git would otherwise start `git maintenance run --auto` after every commit, inside our lock;
/// the orchestrator runs it once per run instead (run_auto_maintenance).
std::vector<std::string> commit_args(const std::string& message) {
  return {"-c", "core.abbrev=40", "-c", "maintenance.auto=false", "commit", "--no-status", "-m", message};
}

/// The full hash from the summary line `git -c core.abbrev=40 commit` prints, or HEAD's.
std::string committed_hash(const fs::path& root, const std::string& out) {
  // "[main 0123...]" or "[main (root-commit) 0123...]": the 40 hex digits before the ']'.
  const size_t close = out.find(']');
  if (close != std::string::npos && close >= 40) {
    std::string hash = out.substr(close - 40, 40);
    if (hash.find_first_not_of("0123456789abcdef") == std::string::npos) return hash;
  }
  auto head = run_git(root, {"rev-parse", "HEAD"}).out; // an unusual git: ask
  while (!head.empty() && head.back() == '\n') head.pop_back();
  return head;
}

/// The untracked, not ignored files among `pathspecs` (a directory's too), marked intent-to-add:
/// in the index without content, so that a pathspec commit sees them. Returns them, or git's
/// complaint.
std::expected<std::vector<std::string>, std::string> intend_to_add_new_files(const fs::path& root,
                                                                             const std::vector<std::string>& pathspecs,
                                                                             const std::optional<std::vector<std::string>>& known) {
  std::vector<std::string> files;
  if (known) {
    files = *known; // `git status` just listed them untracked: ls-files would say the same
  } else {
    std::vector<std::string> ls = {"ls-files", "-z", "--others", "--exclude-standard", "--"};
    ls.insert(ls.end(), pathspecs.begin(), pathspecs.end());
    auto r = run_git(root, ls);
    if (r.exit_code != 0) return std::unexpected(fmt::format("git ls-files failed (exit {}): {}", r.exit_code, r.messages()));
    files = nul_separated(r.out);
  }
  if (files.empty()) return files;
  std::vector<std::string> add = {"add", "--intent-to-add", "--"};
  for (const auto& f : files) add.push_back(literal_pathspec(f));
  if (auto a = run_git_writing_index(root, add); a.exit_code != 0)
    return std::unexpected(fmt::format("git add failed (exit {}): {}", a.exit_code, a.messages()));
  return files;
}

} // namespace

std::vector<std::string> nul_separated(std::string_view out) {
  std::vector<std::string> fields;
  for (std::size_t pos = 0; pos < out.size();) {
    const std::size_t end = std::min(out.find('\0', pos), out.size());
    if (end > pos) fields.emplace_back(out.substr(pos, end - pos));
    pos = end + 1;
  }
  return fields;
}

std::string GitResult::messages() const {
  std::string all = err.empty() || out.empty() ? err + out : err + (err.back() == '\n' ? "" : "\n") + out;
  while (!all.empty() && (all.back() == '\n' || all.back() == '\r')) all.pop_back();
  return all;
}

GitResult run_git(const fs::path& root, std::vector<std::string> args) {
  GitResult r;
  static const auto git = find_program("git");
  if (git.empty()) {
    r.err = "git: not found on PATH";
    return r;
  }
  asio::io_context ctx;
  // Two pipes: stdout is parsed, stderr is only for messages.
  auto out_pipe = make_child_pipe(ctx);
  auto err_pipe = make_child_pipe(ctx);
  if (!out_pipe || !err_pipe) {
    r.err = !out_pipe ? out_pipe.error().message : err_pipe.error().message;
    return r;
  }
  // log.showSignature=true (a person's setting beside commit.gpgsign) makes log and show print the
  // signature's verdict before each commit's output: a hash, a message or a file list read from
  // them would start with "Good signature ..." (review DD H1, then RR F1). Off for every call,
  // not flagged per call site.
  args.insert(args.begin(), {"git", "-c", "log.showSignature=false"});
  // Not in a process group of its own: a stop of the worker that runs git must reach git too.
  auto pid = spawn_process({git, args, git_environment(), root, (*out_pipe)->write_end, (*err_pipe)->write_end, false});
  (*out_pipe)->close_write_end();
  (*err_pipe)->close_write_end();
  if (!pid) {
    r.err = "git: " + pid.error().message;
    return r;
  }
  // Not bp::process: out of descriptors its pidfd_open fails and it throws, and an exception out
  // of a git call ended the whole run; ChildWatch polls then.
  ChildWatch child(ctx.get_executor(), *pid);
  int status = -1;
  child.async_wait([&](int st) { status = st; });
  // Both at once: a git that fills one pipe while we wait on the other would never finish.
  auto ignore = [](boost::system::error_code, std::size_t) {};
  asio::async_read((*out_pipe)->read_end, asio::dynamic_buffer(r.out), ignore);
  asio::async_read((*err_pipe)->read_end, asio::dynamic_buffer(r.err), ignore);
  ctx.run();
  if (status == -1) return r; // not reaped by us: no exit code (-1)
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  else if (WIFSIGNALED(status)) r.exit_code = WTERMSIG(status); // what bp::process::wait() said
  return r;
}

GitResult run_git_writing_index(const fs::path& root, std::vector<std::string> args, std::chrono::milliseconds patience) {
  const auto deadline = std::chrono::steady_clock::now() + patience;
  auto pause = std::chrono::milliseconds(20);
  for (;;) {
    auto r = run_git(root, args);
    // Another git holds the index, or the branch's ref: a commit made elsewhere at this moment
    // ("cannot lock ref 'HEAD': is at X but expected Y"); made again, ours builds on the new tip.
    const bool locked = r.exit_code != 0 && (r.err.find("index.lock': File exists") != std::string::npos ||
                                             r.err.find("cannot lock ref '") != std::string::npos);
    if (!locked || std::chrono::steady_clock::now() + pause > deadline) return r;
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(500));
  }
}

std::string literal_pathspec(const std::string& path) { return ":(literal)" + path; }

std::string glob_pathspec(const std::string& glob) {
  // Already a pathspec with its magic (callers pass literal_pathspec's): as it is.
  if (glob.starts_with(":(")) return glob;
  if (glob.find_first_of("*?[") != std::string::npos) return ":(glob)" + glob;
  // A plain path, but one git would read as pathspec magic (`:c`, `:!x`) is meant literally.
  return glob.starts_with(':') ? literal_pathspec(glob) : glob;
}


std::vector<PorcelainEntry> porcelain_entries(std::string_view out) {
  std::vector<PorcelainEntry> entries;
  auto field_at = [&](size_t& pos) {
    const size_t end = std::min(out.find('\0', pos), out.size());
    const std::string_view field = out.substr(pos, end - pos);
    pos = end + 1;
    return field;
  };
  auto moved = [](char c) { return c == 'R' || c == 'C'; };
  for (size_t pos = 0; pos < out.size();) {
    const std::string_view record = field_at(pos);
    if (record.size() < 4 || record[2] != ' ') continue;
    PorcelainEntry e{record[0], record[1], std::string(record.substr(3)), {}};
    // The source field follows whichever letter says R or C: read as an entry of its own, a
    // work-tree rename's "src/old.txt" became status "sr" and path "/old.txt".
    if ((moved(e.index) || moved(e.work_tree)) && pos < out.size()) e.source = field_at(pos);
    entries.push_back(std::move(e));
  }
  return entries;
}

std::vector<GitChange> changed_paths(const fs::path& root, const std::vector<std::string>& globs) {
  std::vector<std::string> args = {"--no-optional-locks", "status", "--porcelain=v1", "-z", "--untracked-files=all"};
  if (!globs.empty()) {
    args.push_back("--");
    for (const auto& g : globs) args.push_back(glob_pathspec(g));
  }
  auto r = run_git(root, std::move(args));
  std::vector<GitChange> out;
  if (r.exit_code != 0) return out; // git's complaint (not a repository) is no list of paths
  std::vector<std::string> renamed_from;
  for (auto& e : porcelain_entries(r.out)) {
    // New: staged ('A', or the destination of an index rename or copy), or an intent-to-add entry
    // (" A"; " R"/" C" when its content matches another path), as new as a staged one. Not "DA":
    // a commit killed after moving the branch, before writing the index, leaves the intent-to-add
    // entry of a file HEAD now has; checking it out from HEAD puts it right.
    const bool added = e.index == 'A' || e.index == 'R' || e.index == 'C' ||
                       (e.index == ' ' && (e.work_tree == 'A' || e.work_tree == 'R' || e.work_tree == 'C'));
    // Deleted: " D" (in the work tree) or "D " (staged); not "DA", whose file is there.
    const bool deleted = e.work_tree == 'D' || (e.index == 'D' && e.work_tree == ' ');
    // A rename's source is a deleted path (`git checkout HEAD` brings it back); a copy's is not
    // changed by the copy.
    if ((e.index == 'R' || e.work_tree == 'R') && !e.source.empty()) renamed_from.push_back(std::move(e.source));
    out.push_back({e.index == '?', added, std::move(e.path), deleted});
  }
  for (auto& from : renamed_from) out.push_back({false, false, std::move(from), true});
  return out;
}

std::vector<std::string> ignored_paths(const fs::path& root, const std::vector<std::string>& globs) {
  if (globs.empty()) return {};
  // traditional with all untracked files: each ignored file, not just the directory that holds them.
  std::vector<std::string> args = {"--no-optional-locks", "status", "--porcelain=v1", "-z", "--ignored=traditional",
                                   "--untracked-files=all", "--"};
  for (const auto& g : globs) args.push_back(glob_pathspec(g));
  const auto r = run_git(root, std::move(args));
  std::vector<std::string> out;
  if (r.exit_code != 0) return out;
  for (auto& e : porcelain_entries(r.out))
    if (e.index == '!' && e.work_tree == '!') out.push_back(std::move(e.path));
  return out;
}

std::string ignore_rule(const fs::path& root, const std::string& path) {
  // "source:line:pattern<TAB>path"; the source is relative to the work tree when it lies inside.
  const auto r = run_git(root, {"check-ignore", "-v", "--no-index", "--", path});
  if (r.exit_code != 0) return {};
  const auto tab = r.out.find('\t');
  const std::string_view head = std::string_view(r.out).substr(0, tab == std::string::npos ? r.out.size() : tab);
  const auto first = head.find(':'), second = first == std::string::npos ? first : head.find(':', first + 1);
  if (second == std::string::npos) return {};
  return fmt::format("'{}' in {}", head.substr(second + 1), head.substr(0, first));
}

std::expected<std::string, std::string> commit_paths(const fs::path& root, const fs::path& lock_file,
                                                     const std::vector<std::string>& paths, const std::string& message,
                                                     CommitHooks hooks, const std::optional<std::vector<std::string>>& untracked) {
  if (paths.empty()) return std::string();
  // A directory holding its own .git (a `git clone`, `cargo new`, `create-*-app` inside the plan's
  // files) would be committed as a bare submodule entry: its files would never reach the history.
  for (const auto& p : paths) {
    std::error_code ec;
    std::string dir = p;
    while (!dir.empty() && dir.back() == '/') dir.pop_back();
    if (fs::is_directory(root / dir, ec) && fs::exists(root / dir / ".git", ec))
      return std::unexpected(fmt::format("{} is a git repository of its own (it has a .git): git would commit it as an "
                                         "empty submodule entry, not its files; remove {}/.git or declare it a submodule",
                                         dir, dir));
  }
  FileLock lock(lock_file);
  // Paths, not patterns: `app/posts/[id]/page.tsx` must not also take `app/posts/i/page.tsx`.
  std::vector<std::string> literal;
  for (const auto& p : paths) literal.push_back(literal_pathspec(p));
  // The index is shared with every worker, and an agent may run a bare `git commit` however it is
  // told: whatever we stage there before our commit could land in theirs. So nothing is staged:
  // new files get intent-to-add entries (which a bare commit skips) only so that the pathspec
  // commit below knows them, and `commit --only` takes the named paths from the work tree.
  auto added = intend_to_add_new_files(root, literal, untracked);
  if (!added) return std::unexpected(added.error());
  auto commit = commit_args(message);
  if (hooks == CommitHooks::skip) commit.push_back("--no-verify");
  commit.insert(commit.end(), {"--only", "--"});
  commit.insert(commit.end(), literal.begin(), literal.end());
  auto r = run_git_writing_index(root, commit);
  if (r.exit_code != 0) {
    // A refused commit leaves the new files untracked, as they were; not `git reset` on the named
    // paths, which would also unstage what someone staged in them.
    if (!added->empty()) {
      std::vector<std::string> undo = {"rm", "--cached", "-q", "--"};
      for (const auto& f : *added) undo.push_back(literal_pathspec(f));
      run_git_writing_index(root, undo);
    }
    const auto said = r.messages();
    if (said.find("nothing to commit") != std::string::npos || said.find("no changes added") != std::string::npos ||
        said.find("nothing added to commit") != std::string::npos)
      return std::string();
    // The identity hint only where git complains about the identity: elsewhere it misleads.
    const bool identity = said.find("tell me who you are") != std::string::npos || said.find("ident") != std::string::npos;
    // Git names no reason: a path it ignores is skipped above like one that does not exist.
    const bool unknown = said.find("did not match any file") != std::string::npos;
    return std::unexpected(fmt::format("git commit failed (exit {}){}: {}", r.exit_code,
                                       identity  ? "; is user.name/user.email configured?"
                                       : unknown ? "; a path that does not exist, or one .gitignore ignores"
                                                 : "",
                                       said));
  }
  auto hash = committed_hash(root, r.out);
  if (commit_hooks_installed(root)) align_index_with_commit(root, hash, paths); // a hook's fixes would be staged as their revert
  return hash;
}

std::expected<std::string, std::string> commit_marker(const fs::path& root, const fs::path& lock_file,
                                                      const std::vector<std::string>& remove, const std::string& message,
                                                      const std::vector<FileWrite>& write) {
  FileLock lock(lock_file);
  std::vector<std::string> literal;
  for (const auto& p : remove) literal.push_back(literal_pathspec(p));
  for (const auto& w : write) literal.push_back(literal_pathspec(w.path));
  std::set<std::string> tracked;
  if (!literal.empty()) {
    std::vector<std::string> ls = {"ls-files", "-z", "--"};
    ls.insert(ls.end(), literal.begin(), literal.end());
    auto r = run_git(root, ls);
    if (r.exit_code != 0) return std::unexpected(fmt::format("git ls-files failed (exit {}): {}", r.exit_code, r.messages()));
    for (auto& name : nul_separated(r.out)) tracked.insert(std::move(name));
  }
  // What is removed or rewritten is as it was if the commit fails (a merge in progress, a full
  // disk): the caller's state must not be half changed. Each file keeps its content under a second
  // name until the commit is made, and a rename puts it back, which needs no free space (a copy
  // written back failed on the full disk that had failed the commit, review II F1). Where the file
  // system has no hard links, the content is held in memory instead.
  struct Before {
    fs::path path;                   ///< as changed: a link's target when a write goes through it
    fs::path kept;                   ///< its second name; empty: none
    std::optional<std::string> text; ///< without a second name: its content; neither: it did not exist
  };
  std::vector<Before> before;
  auto put_back = [&] {
    for (auto it = before.rbegin(); it != before.rend(); ++it) { // a path both removed and written: its first state last
      std::error_code ec;
      if (!it->kept.empty()) fs::rename(it->kept, it->path, ec);
      else if (it->text) (void)util::write_file_atomic(it->path, *it->text);
      else fs::remove(it->path, ec);
    }
  };
  auto forget_kept = [&] {
    for (const auto& b : before) {
      std::error_code ec;
      if (!b.kept.empty()) fs::remove(b.kept, ec);
    }
  };
  auto keep = [&](const fs::path& file) -> std::expected<bool, std::string> {
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) return before.push_back({file, {}, std::nullopt}), false;
    if (auto kept = util::keep_aside(file)) return before.push_back({file, std::move(*kept), std::nullopt}), true;
    auto text = util::read_file(file);
    if (!text) return std::unexpected(fmt::format("could not read {}: {}", file.string(), text.error()));
    before.push_back({file, {}, std::move(*text)});
    return true;
  };
  auto fail = [&](std::string why) {
    put_back();
    forget_kept();
    return std::unexpected(std::move(why));
  };
  for (const auto& p : remove) {
    auto existed = keep(root / p);
    if (!existed) return fail(existed.error());
    if (!*existed) {
      before.pop_back(); // nothing to remove, nothing to put back
      continue;
    }
    std::error_code ec;
    fs::remove(root / p, ec);
    if (ec) return fail(fmt::format("could not remove {}: {}", p, ec.message()));
  }
  for (const auto& w : write) {
    std::error_code ec;
    fs::path file = root / w.path;
    if (fs::is_symlink(file, ec)) file = fs::weakly_canonical(file, ec); // write_file_atomic replaces what it points to
    if (auto existed = keep(file); !existed) return fail(existed.error());
    if (auto r = util::write_file_atomic(root / w.path, w.text); !r) return fail(r.error());
  }
  // --only: exactly these paths (none: an empty commit), whatever else the index holds.
  auto commit = commit_args(message);
  commit.insert(commit.end(), {"--no-verify", "--allow-empty", "--only"});
  if (!tracked.empty()) commit.push_back("--");
  for (const auto& p : tracked) commit.push_back(literal_pathspec(p));
  auto r = run_git_writing_index(root, commit);
  if (r.exit_code != 0) return fail(fmt::format("git commit failed (exit {}), nothing changed: {}", r.exit_code, r.messages()));
  forget_kept();
  auto hash = committed_hash(root, r.out);
  if (commit_hooks_installed(root)) align_index_with_commit(root, hash, {tracked.begin(), tracked.end()}); // see commit_paths
  return hash;
}

GitResult run_auto_maintenance(const fs::path& root, const fs::path& lock_file) {
  FileLock lock(lock_file);
  return run_git(root, {"maintenance", "run", "--auto", "--quiet"});
}

void with_git_lock(const fs::path& lock_file, const std::function<void()>& fn) {
  FileLock lock(lock_file);
  fn();
}

std::vector<std::string> files_of_commits(const fs::path& root, const std::vector<std::string>& hashes) {
  std::vector<std::string> out;
  if (hashes.empty()) return out;
  std::vector<std::string> args{"show", "--no-renames", "--name-only", "-z", "--format="};
  args.insert(args.end(), hashes.begin(), hashes.end());
  const auto r = run_git(root, std::move(args));
  // -z: names NUL-terminated and never quoted; an empty field separates two commits.
  for (size_t pos = 0; r.exit_code == 0 && pos < r.out.size();) {
    const size_t end = std::min(r.out.find('\0', pos), r.out.size());
    std::string name = r.out.substr(pos, end - pos);
    while (!name.empty() && name.front() == '\n') name.erase(0, 1);
    if (!name.empty()) out.push_back(std::move(name));
    pos = end + 1;
  }
  return out;
}

} // namespace harness::worker
