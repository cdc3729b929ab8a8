#include "harness/worker/git.hpp"

#include "harness/util/atomic_file.hpp"

#include "harness/worker/file_lock.hpp"
#include "harness/worker/merged_pipe.hpp"
#include "harness/worker/spawn.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/readable_pipe.hpp>
#include <boost/process/v2/environment.hpp>
#include <boost/process/v2/process.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <thread>

namespace harness::worker {
namespace asio = boost::asio;
namespace bp = boost::process::v2;
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

} // namespace

GitResult run_git(const fs::path& root, std::vector<std::string> args) {
  GitResult r;
  static const auto git = find_program("git");
  if (git.empty()) {
    r.out = "git: not found on PATH";
    return r;
  }
  asio::io_context ctx;
  auto pipe = make_merged_pipe(ctx);
  if (!pipe) {
    r.out = pipe.error();
    return r;
  }
  boost::system::error_code ec;
  args.insert(args.begin(), "git");
  // Not in a process group of its own: a stop of the worker that runs git must reach git too.
  auto pid = spawn_process({git, args, git_environment(), root, (*pipe)->write_end, (*pipe)->write_end, false});
  (*pipe)->close_write_end();
  if (!pid) {
    r.out = "git: " + pid.error();
    return r;
  }
  bp::process proc(ctx.get_executor(), *pid);
  asio::read((*pipe)->read_end, asio::dynamic_buffer(r.out), ec);
  r.exit_code = proc.wait();
  return r;
}

GitResult run_git_writing_index(const fs::path& root, std::vector<std::string> args, std::chrono::milliseconds patience) {
  const auto deadline = std::chrono::steady_clock::now() + patience;
  auto pause = std::chrono::milliseconds(20);
  for (;;) {
    auto r = run_git(root, args);
    const bool locked = r.exit_code != 0 && r.out.find("index.lock': File exists") != std::string::npos;
    if (!locked || std::chrono::steady_clock::now() + pause > deadline) return r;
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(500));
  }
}

std::string literal_pathspec(const std::string& path) { return ":(literal)" + path; }

std::vector<GitChange> changed_paths(const fs::path& root, const std::vector<std::string>& globs) {
  std::vector<std::string> args = {"--no-optional-locks", "status", "--porcelain=v1", "-z", "--untracked-files=all"};
  if (!globs.empty()) {
    args.push_back("--");
    // A wildcard pattern needs glob magic; a plain path stays a plain pathspec, which also
    // matches everything below it when it names a directory.
    for (const auto& g : globs) args.push_back(g.find_first_of("*?[") == std::string::npos ? g : ":(glob)" + g);
  }
  auto r = run_git(root, std::move(args));
  std::vector<GitChange> out;
  size_t pos = 0;
  while (pos + 3 < r.out.size()) {
    size_t end = r.out.find('\0', pos);
    if (end == std::string::npos) end = r.out.size();
    const std::string entry = r.out.substr(pos, end - pos);
    pos = end + 1;
    if (entry.size() < 4) continue;
    out.push_back({entry[0] == '?', entry[0] == 'A', entry.substr(3)});
    if (entry[0] == 'R' || entry[0] == 'C') pos = r.out.find('\0', pos) + 1; // skip the rename source
  }
  return out;
}

std::expected<std::string, std::string> commit_paths(const fs::path& root, const fs::path& lock_file,
                                                     const std::vector<std::string>& paths, const std::string& message,
                                                     CommitHooks hooks) {
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
  std::vector<std::string> add = {"add", "-A", "--"};
  add.insert(add.end(), literal.begin(), literal.end());
  if (auto r = run_git_writing_index(root, add); r.exit_code != 0)
    return std::unexpected(fmt::format("git add failed (exit {}): {}", r.exit_code, r.out));
  // Commit only these paths: other workers may have staged their own files meanwhile.
  auto commit = commit_args(message);
  if (hooks == CommitHooks::skip) commit.push_back("--no-verify");
  commit.push_back("--");
  commit.insert(commit.end(), literal.begin(), literal.end());
  auto r = run_git_writing_index(root, commit);
  if (r.exit_code != 0) {
    if (r.out.find("nothing to commit") != std::string::npos || r.out.find("no changes added") != std::string::npos ||
        r.out.find("nothing added to commit") != std::string::npos)
      return std::string();
    // The identity hint only where git complains about the identity: elsewhere it misleads.
    const bool identity = r.out.find("tell me who you are") != std::string::npos || r.out.find("ident") != std::string::npos;
    return std::unexpected(fmt::format("git commit failed (exit {}){}: {}", r.exit_code,
                                       identity ? "; is user.name/user.email configured?" : "", r.out));
  }
  return committed_hash(root, r.out);
}

std::expected<std::string, std::string> commit_marker(const fs::path& root, const fs::path& lock_file,
                                                      const std::vector<std::string>& remove, const std::string& message) {
  FileLock lock(lock_file);
  std::vector<std::string> literal;
  for (const auto& p : remove) literal.push_back(literal_pathspec(p));
  std::set<std::string> tracked;
  if (!literal.empty()) {
    std::vector<std::string> ls = {"ls-files", "-z", "--"};
    ls.insert(ls.end(), literal.begin(), literal.end());
    auto r = run_git(root, ls);
    if (r.exit_code != 0) return std::unexpected(fmt::format("git ls-files failed (exit {}): {}", r.exit_code, r.out));
    for (size_t pos = 0; pos < r.out.size();) {
      const size_t end = std::min(r.out.find('\0', pos), r.out.size());
      tracked.insert(r.out.substr(pos, end - pos));
      pos = end + 1;
    }
  }
  // What is removed comes back if the commit fails (a merge in progress, a full disk): the
  // caller's state must not be half changed.
  std::vector<std::pair<std::string, std::string>> removed;
  auto put_back = [&] {
    for (const auto& [p, text] : removed) (void)util::write_file_atomic(root / p, text);
  };
  for (const auto& p : remove) {
    std::error_code ec;
    if (!fs::is_regular_file(root / p, ec)) continue;
    auto text = util::read_file(root / p);
    if (!text) return put_back(), std::unexpected(fmt::format("could not read {}: {}", p, text.error()));
    fs::remove(root / p, ec);
    if (ec) return put_back(), std::unexpected(fmt::format("could not remove {}: {}", p, ec.message()));
    removed.emplace_back(p, std::move(*text));
  }
  // --only: exactly these paths (none: an empty commit), whatever else the index holds.
  auto commit = commit_args(message);
  commit.insert(commit.end(), {"--no-verify", "--allow-empty", "--only"});
  if (!tracked.empty()) commit.push_back("--");
  for (const auto& p : tracked) commit.push_back(literal_pathspec(p));
  auto r = run_git_writing_index(root, commit);
  if (r.exit_code != 0) {
    put_back();
    return std::unexpected(fmt::format("git commit failed (exit {}), nothing changed: {}", r.exit_code, r.out));
  }
  return committed_hash(root, r.out);
}

GitResult run_auto_maintenance(const fs::path& root, const fs::path& lock_file) {
  FileLock lock(lock_file);
  return run_git(root, {"maintenance", "run", "--auto", "--quiet"});
}

void with_git_lock(const fs::path& lock_file, const std::function<void()>& fn) {
  FileLock lock(lock_file);
  fn();
}

std::string find_commit(const fs::path& root, const std::string& needle) {
  auto r = run_git(root, {"log", "-n", "1", "--format=%H", "--fixed-strings", "--grep", needle});
  while (!r.out.empty() && r.out.back() == '\n') r.out.pop_back();
  return r.exit_code == 0 ? r.out : std::string();
}

std::vector<std::string> trailer_log_args(bool with_files) {
  // Each commit: RS, hash, US, message, GS, then (-z) a NUL and, with --name-only, a newline and
  // the paths each ended by a NUL. Control characters never occur in hashes or sane messages.
  std::vector<std::string> args = {"log", "-z", "--format=%x1e%H%x1f%B%x1d"};
  if (with_files) args.push_back("--name-only");
  return args;
}

std::vector<TrailerCommit> parse_trailer_log(std::string_view log, bool with_files, bool keep_all) {
  std::vector<TrailerCommit> out;
  size_t pos = log.find('\x1e');
  while (pos < log.size()) {
    size_t end = log.find('\x1e', pos + 1);
    if (end == std::string_view::npos) end = log.size();
    std::string_view rec = log.substr(pos + 1, end - pos - 1);
    pos = end;
    const size_t sep = rec.find('\x1f');
    const size_t stop = rec.find('\x1d', sep == std::string_view::npos ? 0 : sep);
    if (sep == std::string_view::npos || stop == std::string_view::npos) continue;
    TrailerCommit c;
    c.hash = std::string(rec.substr(0, sep));
    std::string_view body = rec.substr(sep + 1, stop - sep - 1);
    c.subject = std::string(body.substr(0, body.find('\n')));
    while (!body.empty()) {
      const size_t nl = body.find('\n');
      std::string_view line = body.substr(0, nl);
      body = nl == std::string_view::npos ? std::string_view() : body.substr(nl + 1);
      if (line.starts_with("Plan: ")) {
        line.remove_prefix(6);
        const size_t comma = line.find(',');
        c.plan = std::string(line.substr(0, comma));
        while (!c.plan.empty() && c.plan.back() == ' ') c.plan.pop_back();
        if (comma != std::string_view::npos) {
          std::string_view rest = line.substr(comma + 1);
          if (const size_t t = rest.find("Task: "); t != std::string_view::npos)
            c.task = std::atoi(std::string(rest.substr(t + 6, 8)).c_str());
        }
      } else if (line.starts_with("Redo: ")) {
        line.remove_prefix(6);
        const size_t comma = line.find(',');
        std::string plan(line.substr(0, comma));
        while (!plan.empty() && (plan.back() == ' ' || plan.back() == '\r')) plan.pop_back();
        int task = 0; // every task
        if (comma != std::string_view::npos) {
          const size_t t = line.find("Task: ", comma);
          task = t == std::string_view::npos ? -1 : std::atoi(std::string(line.substr(t + 6, 8)).c_str());
        }
        if (!plan.empty() && task >= 0 && (task > 0 || comma == std::string_view::npos)) c.redo.emplace_back(std::move(plan), task);
      } else if (line.starts_with("Spec: ")) {
        c.spec = std::string(line.substr(6));
        while (!c.spec.empty() && (c.spec.back() == ' ' || c.spec.back() == '\r')) c.spec.pop_back();
      }
    }
    c.files_known = with_files;
    std::string_view names = rec.substr(stop + 1);
    while (with_files && !names.empty()) {
      const size_t nul = names.find('\0');
      std::string_view name = names.substr(0, nul);
      names = nul == std::string_view::npos ? std::string_view() : names.substr(nul + 1);
      while (!name.empty() && name.front() == '\n') name.remove_prefix(1); // after the message's NUL
      if (!name.empty()) c.files.emplace_back(name);
    }
    if (keep_all || !c.plan.empty() || !c.redo.empty()) out.push_back(std::move(c));
  }
  return out;
}

std::vector<std::pair<int, std::string>> standing_tasks(const std::vector<TrailerCommit>& newest_first,
                                                        const std::string& plan_id, const SpecOwner& ours) {
  std::set<int> redone; // tasks a marker newer than the commits still to come names
  bool all_redone = false;
  std::vector<std::pair<int, std::string>> out;
  for (const auto& c : newest_first) {
    if (!ours(c.spec)) continue; // plan ids repeat across specs
    if (c.plan == plan_id && c.task > 0 && !all_redone && !redone.contains(c.task)) out.emplace_back(c.task, c.hash);
    for (const auto& [plan, task] : c.redo)
      if (plan == plan_id) {
        if (task == 0) all_redone = true;
        else redone.insert(task);
      }
  }
  std::reverse(out.begin(), out.end());
  return out;
}

std::string redo_trailer(const std::string& plan_id, int task) {
  return task == 0 ? "Redo: " + plan_id : fmt::format("Redo: {}, Task: {}", plan_id, task);
}

void TrailerIndex::add(std::vector<TrailerCommit> newest_first) {
  for (auto it = newest_first.rbegin(); it != newest_first.rend(); ++it) {
    for (const auto& [plan, task] : it->redo) {
      TrailerCommit marker;
      marker.hash = it->hash;
      marker.spec = it->spec;
      marker.subject = it->subject;
      marker.redo = {{plan, task}};
      m_redo[plan].emplace_back(m_by_plan[plan].size(), std::move(marker));
    }
    if (!it->plan.empty()) m_by_plan[it->plan].push_back(std::move(*it));
  }
}

void TrailerIndex::refresh() {
  std::lock_guard lock(m_mutex);
  auto newest = [](const std::string& out) { return out.substr(out.find('\x1e') + 1, 40); };
  if (!m_head.empty()) {
    // New commits come with their paths: few, and the ones a verification asks about.
    auto args = trailer_log_args(true);
    args.push_back(m_head + "..HEAD");
    auto r = run_git(m_root, args);
    if (r.exit_code == 0) {
      if (r.out.find('\x1e') == std::string::npos) return;
      auto commits = parse_trailer_log(r.out, true, true);
      for (auto it = commits.rbegin(); it != commits.rend(); ++it)
        if (it->plan.empty() && it->spec.empty()) m_untrailed.push_back(*it);
      std::erase_if(commits, [](const TrailerCommit& c) { return c.plan.empty() && c.redo.empty(); });
      add(std::move(commits));
      m_head = newest(r.out);
      return;
    }
    m_by_plan.clear(); // the history was rewritten: read it all again
    m_redo.clear();
  }
  // The whole history without paths: a diff of every commit of a large repository is slow.
  auto args = trailer_log_args(false);
  args.push_back("HEAD");
  auto r = run_git(m_root, args);
  m_by_plan.clear();
  m_redo.clear();
  if (r.exit_code != 0 || r.out.find('\x1e') == std::string::npos) return m_head.clear(); // no commits yet
  m_head = newest(r.out);
  add(parse_trailer_log(r.out, false));
}

std::vector<TrailerCommit> TrailerIndex::commits_for(const std::string& plan_id) const {
  std::lock_guard lock(m_mutex);
  auto it = m_by_plan.find(plan_id);
  return it == m_by_plan.end() ? std::vector<TrailerCommit>{} : it->second;
}

std::vector<std::pair<int, std::string>> TrailerIndex::standing_tasks(const std::string& plan_id,
                                                                      const SpecOwner& ours) const {
  std::lock_guard lock(m_mutex);
  static const std::vector<TrailerCommit> no_commits;
  static const std::vector<std::pair<std::size_t, TrailerCommit>> no_markers;
  const auto c = m_by_plan.find(plan_id);
  const auto m = m_redo.find(plan_id);
  const auto& commits = c == m_by_plan.end() ? no_commits : c->second;
  const auto& markers = m == m_redo.end() ? no_markers : m->second;
  // Back into the history's order, newest first: a marker is newer than the `older` commits
  // that were there when it was read, and older than the rest.
  std::vector<TrailerCommit> newest_first;
  std::size_t next_marker = markers.size();
  for (std::size_t i = commits.size() + 1; i-- > 0;) {
    while (next_marker > 0 && markers[next_marker - 1].first >= i) newest_first.push_back(markers[--next_marker].second);
    if (i > 0) newest_first.push_back(commits[i - 1]);
  }
  return worker::standing_tasks(newest_first, plan_id, ours);
}

std::vector<TrailerCommit> TrailerIndex::untrailed() const {
  std::lock_guard lock(m_mutex);
  return m_untrailed;
}

std::vector<std::string> TrailerIndex::files_of(const std::vector<TrailerCommit>& commits) const {
  std::lock_guard lock(m_mutex);
  std::vector<std::string> unknown;
  for (const auto& c : commits)
    if (!c.files_known && !m_files.contains(c.hash)) unknown.push_back(c.hash);
  if (!unknown.empty()) {
    auto args = trailer_log_args(true);
    args[0] = "show";
    args.insert(args.end(), unknown.begin(), unknown.end());
    auto r = run_git(m_root, args);
    for (auto& c : parse_trailer_log(r.out, true)) m_files[c.hash] = std::move(c.files);
  }
  std::set<std::string> out;
  for (const auto& c : commits) {
    const auto cached = m_files.find(c.hash);
    const auto& files = c.files_known ? c.files : cached != m_files.end() ? cached->second : c.files;
    out.insert(files.begin(), files.end());
  }
  return {out.begin(), out.end()};
}

} // namespace harness::worker
