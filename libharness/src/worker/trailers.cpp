#include "harness/worker/trailers.hpp"

#include "harness/util/atomic_file.hpp"
#include "harness/util/text.hpp"
#include "harness/worker/commit_hooks.hpp"
#include "harness/worker/git_head.hpp"
#include "harness/worker/trailer_cache.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>
#include <set>
#include <tuple>

namespace harness::worker {

std::vector<std::string> trailer_log_args(bool with_files) {
  // Each commit: RS, hash, a space and its parents (space-separated), US, message, GS, then (-z) a
  // NUL and, with --name-only, a newline and the paths each ended by a NUL. Control characters
  // never occur in hashes or sane messages.
  std::vector<std::string> args = {"log", "-z", "--format=%x1e%H %P%x1f%B%x1d"};
  if (with_files) args.push_back("--name-only");
  return args;
}

namespace {

/// Whether `names` ("hash parent parent", blanks between) is a commit's object names: whole
/// ones, 40 hex digits (64 in a SHA-256 repository), the first one there.
bool object_names(std::string_view names) {
  bool first = true;
  for (size_t at = 0; at <= names.size();) {
    const size_t blank = std::min(names.find(' ', at), names.size());
    const std::string_view word = names.substr(at, blank - at);
    at = blank + 1;
    if (word.empty() && !first) continue; // a root commit's empty parent list
    if ((word.size() != 40 && word.size() != 64) ||
        !std::ranges::all_of(word, [](char ch) { return std::isxdigit(static_cast<unsigned char>(ch)) != 0; }))
      return false;
    first = false;
  }
  return true;
}

/// Where the next commit's record starts at or after `from`: an RS that begins the output or
/// follows a NUL (a message holds no NUL, so an RS a message carries is not one), then its hash
/// and its parents' (a file name after a NUL that begins with RS is not one either).
/// A worker's message "feat: x\x1e<hash>..." must neither hide its commit nor forge another.
size_t record_start(std::string_view log, size_t from) {
  for (size_t at = log.find('\x1e', from); at != std::string_view::npos; at = log.find('\x1e', at + 1)) {
    if (at > 0 && log[at - 1] != '\0') continue;
    const size_t sep = log.find('\x1f', at);
    if (sep != std::string_view::npos && object_names(log.substr(at + 1, sep - at - 1))) return at;
  }
  return std::string_view::npos;
}

/// One `Plan:`, `Redo:` or `Spec:` line of a message, in its order.
struct TrailerLine {
  char kind = 'S'; ///< 'P' plan, 'R' redo, 'S' spec
  std::string value; ///< the plan id, or the spec
  int task = 0;      ///< P: 0 when it names none; R: 0 = every task
  int block = 0;     ///< which gathered commit of a squash it is in (0 before the first header)
};

/// git's header of a commit a squash gathers: `commit <40 hex digits>`.
bool git_commit_header(std::string_view line) {
  return line.starts_with("commit ") && line.size() >= 47 &&
         std::ranges::all_of(line.substr(7, 40), [](char ch) { return std::isxdigit(static_cast<unsigned char>(ch)) != 0; });
}

/// The trailer lines of a message, and whether it reads newest first (git's squash). Leading
/// blanks are allowed: `git merge --squash` indents the messages it gathers by four. A line
/// `commit <hash>` (git) or `* subject` (a forge's squash) starts the next gathered commit.
std::vector<TrailerLine> trailer_lines(std::string_view body, bool& newest_first) {
  std::vector<TrailerLine> out;
  int block = 0;
  newest_first = false;
  while (!body.empty()) {
    const size_t nl = body.find('\n');
    std::string_view line = body.substr(0, nl);
    body = nl == std::string_view::npos ? std::string_view() : body.substr(nl + 1);
    if (git_commit_header(line)) {
      newest_first = true;
      ++block;
      continue;
    }
    if (line.starts_with("* ")) {
      ++block;
      continue;
    }
    while (line.starts_with(' ')) line.remove_prefix(1);
    if (line.starts_with("Plan: ")) {
      line.remove_prefix(6);
      const size_t comma = line.find(',');
      TrailerLine t{'P', std::string(util::trim_space(line.substr(0, comma))), 0, block};
      if (comma != std::string_view::npos) {
        std::string_view rest = line.substr(comma + 1);
        if (const size_t at = rest.find("Task: "); at != std::string_view::npos)
          t.task = std::atoi(std::string(rest.substr(at + 6, 8)).c_str());
      }
      out.push_back(std::move(t));
    } else if (line.starts_with("Redo: ")) {
      line.remove_prefix(6);
      const size_t comma = line.find(',');
      std::string plan(util::trim_space(line.substr(0, comma)));
      int task = 0; // every task
      if (comma != std::string_view::npos) {
        const size_t at = line.find("Task: ", comma);
        task = at == std::string_view::npos ? -1 : std::atoi(std::string(line.substr(at + 6, 8)).c_str());
      }
      if (!plan.empty() && task >= 0 && (task > 0 || comma == std::string_view::npos))
        out.push_back({'R', std::move(plan), task, block});
    } else if (line.starts_with("Spec: ")) {
      out.push_back({'S', std::string(util::trim_space(line.substr(6))), 0, block});
    }
  }
  return out;
}

/// Adds commit `c` (hash, parents, subject, files) with what its trailer `lines` say. One plan's
/// commit, as harness writes them, is one entry: its last Plan and Spec lines count, whatever else
/// its text says. A squash (`squashes`: allowed here) whose gathered commits (blocks) carry Plan
/// lines in two or more of them is one entry per gathered commit, marked `squashed`: its plan,
/// task and Spec line, or its redo marker, newest first as a log lists commits, so that a marker
/// and the plan's work it gathers stand in their order (standing_tasks).
void add_commit(TrailerCommit c, const std::vector<TrailerLine>& lines, bool newest_first, bool squashes, bool keep_all,
                std::vector<TrailerCommit>& out) {
  std::set<int> plan_blocks;
  for (const auto& l : lines)
    if (l.kind == 'P') plan_blocks.insert(l.block);
  if (!squashes || plan_blocks.size() < 2) {
    for (const auto& l : lines) {
      if (l.kind == 'P') c.plan = l.value, c.task = l.task;
      else if (l.kind == 'S') c.spec = l.value;
      else c.redo.emplace_back(l.value, l.task);
    }
    if (keep_all || !c.plan.empty() || !c.redo.empty()) out.push_back(std::move(c));
    return;
  }
  std::map<int, TrailerCommit> blocks; // block -> its entry, in message order
  for (const auto& l : lines) {
    auto [it, fresh] = blocks.try_emplace(l.block, c);
    auto& e = it->second;
    if (fresh) e.squashed = true;
    if (l.kind == 'P') e.plan = l.value, e.task = l.task;
    else if (l.kind == 'S') e.spec = l.value;
    else e.redo.emplace_back(l.value, l.task);
  }
  std::vector<TrailerCommit> entries;
  for (auto& [block, e] : blocks)
    if (!e.plan.empty() || !e.redo.empty()) entries.push_back(std::move(e));
  if (!newest_first) std::ranges::reverse(entries); // a forge lists them oldest first
  std::ranges::move(entries, std::back_inserter(out));
}

} // namespace

std::vector<TrailerCommit> parse_trailer_log(std::string_view log, bool with_files, bool keep_all, bool read_squashes) {
  std::vector<TrailerCommit> out;
  size_t pos = record_start(log, 0);
  while (pos < log.size()) {
    size_t end = record_start(log, pos + 1);
    if (end == std::string_view::npos) end = log.size();
    std::string_view rec = log.substr(pos + 1, end - pos - 1);
    pos = end;
    const size_t sep = rec.find('\x1f');
    if (sep == std::string_view::npos) continue;
    // The message ends at the GS before the record's first NUL: one inside the message does not.
    const size_t end_of_message = rec.find('\0', sep);
    const size_t stop = end_of_message != std::string_view::npos && end_of_message > sep + 1 &&
                                rec[end_of_message - 1] == '\x1d'
                            ? end_of_message - 1
                            : rec.rfind('\x1d');
    if (stop == std::string_view::npos || stop <= sep) continue;
    TrailerCommit c;
    std::string_view names = rec.substr(0, sep); // "hash parent parent"
    for (size_t at = 0; at < names.size();) {
      const size_t blank = std::min(names.find(' ', at), names.size());
      if (blank > at) (c.hash.empty() ? c.hash : c.parents.emplace_back()) = std::string(names.substr(at, blank - at));
      at = blank + 1;
    }
    std::string_view body = rec.substr(sep + 1, stop - sep - 1);
    c.subject = std::string(body.substr(0, body.find('\n')));
    bool newest_first = false;
    const auto lines = trailer_lines(body, newest_first);
    c.files_known = with_files;
    std::string_view paths = rec.substr(stop + 1);
    while (with_files && !paths.empty()) {
      const size_t nul = paths.find('\0');
      std::string_view name = paths.substr(0, nul);
      paths = nul == std::string_view::npos ? std::string_view() : paths.substr(nul + 1);
      while (!name.empty() && name.front() == '\n') name.remove_prefix(1); // after the message's NUL
      if (!name.empty()) c.files.emplace_back(name);
    }
    add_commit(std::move(c), lines, newest_first, read_squashes, keep_all, out);
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

std::string plan_trailers(const std::string& plan_id, int task, int task_count, const std::string& spec) {
  if (task == 0) return fmt::format("Plan: {}\nSpec: {}\n", plan_id, spec);
  return fmt::format("Plan: {}, Task: {}/{}\nSpec: {}\n", plan_id, task, task_count, spec);
}

std::string lost_trailers(const std::filesystem::path& root, const std::string& hash, const std::string& plan_id, int task,
                          const std::string& spec) {
  if (!commit_hooks_installed(root)) return {}; // nothing but a hook rewrites the message harness gave
  auto args = trailer_log_args(false);
  args.insert(args.end(), {"-n", "1", hash});
  const auto log = run_git(root, std::move(args));
  const auto read = parse_trailer_log(log.out, false, true);
  if (log.exit_code != 0 || read.size() != 1) return {};
  const auto& c = read.front();
  if (c.plan == plan_id && c.task == task && c.spec == spec) return {};
  // Named by file: "a hook" sends the user looking, and core.hooksPath hides where hooks live.
  const auto hooks = message_hooks(root);
  std::string which = "a commit-msg hook of this repository";
  if (!hooks.empty()) {
    std::string names;
    for (const auto& h : hooks) names += (names.empty() ? "" : ", ") + h;
    which = fmt::format("the commit message hook{} {}", hooks.size() == 1 ? "" : "s", names);
  }
  // The fix before the explanation: the run's one-line reasons are clipped.
  return fmt::format("{} removed or changed the Plan:/Spec: trailers of commit {}: make it keep the lines starting with "
                     "'Plan:' and 'Spec:' (as git interpret-trailers does), then run again; harness reads them to know "
                     "which tasks are done (plan {}{}, spec {}), and without them this work counts as not done",
                     which, hash.substr(0, 12), plan_id, task ? fmt::format(", task {}", task) : std::string(), spec);
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

namespace {

/// Whether the repository at `root` has no commit yet: HEAD resolves to none (`rev-parse` exits 1;
/// 128 is not a repository, -1 no git at all).
bool has_no_commits(const std::filesystem::path& root) {
  return run_git(root, {"rev-parse", "--verify", "--quiet", "HEAD^{commit}"}).exit_code == 1;
}

/// `git <what>` failed as `r` says, on one line: git's own words, or why it did not start.
std::string git_failure(std::string_view what, const GitResult& r) {
  std::string said;
  for (char ch : r.messages()) said += ch == '\n' ? ' ' : ch;
  while (!said.empty() && said.back() == ' ') said.pop_back();
  if (r.exit_code < 0) return said.empty() ? fmt::format("git {} did not run", what) : said;
  return fmt::format("git {} exited {}{}{}", what, r.exit_code, said.empty() ? "" : ": ", said);
}

} // namespace

bool proven_descent(const std::map<std::string, std::vector<std::string>>& parents, const std::string& tip,
                    const std::string& ancestor) {
  // The commits reachable from tip through `parents`, each once (merges join paths again).
  std::vector<std::string> todo = {tip};
  std::set<std::string> seen;
  while (!todo.empty()) {
    std::string at = std::move(todo.back());
    todo.pop_back();
    if (at == ancestor) return true;
    const auto it = parents.find(at);
    if (it == parents.end() || !seen.insert(std::move(at)).second) continue;
    todo.insert(todo.end(), it->second.begin(), it->second.end());
  }
  return false;
}

void TrailerIndex::refresh() {
  std::lock_guard lock(m_mutex);
  // The run's head checks read most new commits already (descends): then there is nothing to read.
  const auto head = m_git_dir.empty() || m_head.empty() ? std::nullopt : read_head(m_git_dir);
  const auto tip = head ? read_head_commit(m_git_dir, *head) : std::nullopt;
  if (tip && *tip == m_head) return m_error.clear(); // complete: whatever an earlier read missed came since
  read_up_to(tip.value_or("HEAD"));
}

bool TrailerIndex::descends(const std::string& tip, const std::string& ancestor) {
  std::lock_guard lock(m_mutex);
  if (tip == ancestor) return true;
  if (m_head.empty()) return false; // the first read lists no parents: nothing to prove from
  if (!m_parents.contains(tip)) read_up_to(tip);
  return proven_descent(m_parents, tip, ancestor);
}

void TrailerIndex::read_up_to(const std::string& rev) {
  // The first record's hash: the newest commit of the range.
  auto newest = [](const std::string& out) {
    const size_t at = out.find('\x1e') + 1;
    return out.substr(at, out.find_first_of(" \x1f", at) - at);
  };
  if (!m_head.empty()) {
    // New commits come with their paths: few, and the ones a verification asks about.
    auto args = trailer_log_args(true);
    args.push_back(m_head + ".." + rev);
    auto r = run_git(m_root, args);
    if (r.exit_code == 0) {
      if (r.out.find('\x1e') == std::string::npos) return m_error.clear();
      // Made since the run began reading: a worker's, or the run's own. None is read as a squash (a
      // worker's message with bullets and two Plan lines would otherwise escape its plan's checks).
      auto commits = parse_trailer_log(r.out, true, true, false);
      for (const auto& c : commits) m_parents[c.hash] = c.parents;
      for (auto it = commits.rbegin(); it != commits.rend(); ++it)
        if (it->plan.empty() && it->spec.empty()) m_untrailed.push_back(*it);
      std::erase_if(commits, [](const TrailerCommit& c) { return c.plan.empty() && c.redo.empty(); });
      add(std::move(commits));
      m_head = newest(r.out);
      m_error.clear();
      return;
    }
    // The history was rewritten (m_head is gone), or git failed: the whole read tells which.
  }
  if (m_head.empty() && read_through_cache(rev)) return;
  // Before the read: a boundary moved while git reads (a fetch --deepen) must not be kept as the
  // one this read saw.
  const std::string shallow = m_cache_file.empty() || m_git_dir.empty() ? std::string() : shallow_fingerprint(m_git_dir);
  // The whole history without paths: a diff of every commit of a large repository is slow.
  auto args = trailer_log_args(false);
  args.push_back(rev);
  auto r = run_git(m_root, args);
  // A git that failed (out of descriptors, say) is no empty history: read so, a task's commit
  // would be reported missing. What earlier reads found stays; error() says why nothing new came.
  if (r.exit_code != 0 && !has_no_commits(m_root)) {
    m_error = git_failure("log", r);
    return;
  }
  m_error.clear();
  m_by_plan.clear();
  m_redo.clear();
  if (r.exit_code != 0 || r.out.find('\x1e') == std::string::npos) return m_head.clear(); // no commits yet
  m_head = newest(r.out);
  auto commits = parse_trailer_log(r.out, false);
  save_cache(m_head, commits, shallow);
  add(std::move(commits));
}

bool TrailerIndex::read_through_cache(const std::string& rev) {
  // Grafts and replace refs change which commits git shows without a commit of the history changing.
  if (m_cache_file.empty() || m_git_dir.empty() || history_replaced(m_git_dir)) return false;
  const auto text = util::read_file(m_cache_file);
  auto cache = text ? parse_trailer_cache(*text) : std::nullopt;
  const std::string shallow = shallow_fingerprint(m_git_dir);
  if (!cache || cache->shallow != shallow) return false;
  auto args = trailer_log_args(false);
  args.push_back(cache->head + ".." + rev);
  const auto r = run_git(m_root, args);
  if (r.exit_code != 0) return false; // its commit is gone (a rewrite, then gc), or git failed
  auto since = parse_trailer_log(r.out, false, true);
  // A merge brings in a side line whose commits a whole read lists among older ones by date, and
  // where a redo marker stands in that order decides which tasks stand: only a straight line
  // on top of the cached commit reads the same either way.
  if (std::ranges::any_of(since, [](const TrailerCommit& c) { return c.parents.size() > 1; })) return false;
  if (since.empty()) {
    // Nothing new: only when HEAD still stands on that commit (a branch reset back to an older one
    // also lists nothing, and the cache then holds commits HEAD's history no longer has).
    const auto head = read_head(m_git_dir);
    const auto tip = head ? read_head_commit(m_git_dir, *head) : std::nullopt;
    if (!tip || *tip != cache->head) return false;
  } else {
    // git lists the range's tip first. Every commit on a way from it down to the cached one is in
    // the range (none of them is reachable from the cached one): with no such way, the cached one
    // is no longer in HEAD's history (a rebase, another branch) and its commits may not be either.
    std::map<std::string, std::vector<std::string>> parents;
    for (const auto& c : since) parents[c.hash] = c.parents;
    if (!proven_descent(parents, since.front().hash, cache->head)) return false;
  }
  m_by_plan.clear();
  m_redo.clear();
  m_error.clear();
  m_head = since.empty() ? cache->head : since.front().hash;
  std::erase_if(since, [](const TrailerCommit& c) { return c.plan.empty() && c.redo.empty(); });
  auto commits = std::move(since);
  const bool grew = m_head != cache->head;
  std::ranges::move(cache->newest_first, std::back_inserter(commits));
  if (grew) save_cache(m_head, commits, shallow);
  add(std::move(commits));
  return true;
}

void TrailerIndex::save_cache(const std::string& head, const std::vector<TrailerCommit>& newest_first,
                              const std::string& shallow) const {
  if (m_cache_file.empty() || m_git_dir.empty() || history_replaced(m_git_dir)) return;
  if (shallow_fingerprint(m_git_dir) != shallow) return; // the boundary moved while git read
  // A cache that cannot be written costs the next run a whole read, nothing more.
  (void)util::write_file_atomic(m_cache_file, render_trailer_cache({head, shallow, newest_first}));
}

std::string TrailerIndex::error() const {
  std::lock_guard lock(m_mutex);
  return m_error;
}

std::string TrailerIndex::head() const {
  std::lock_guard lock(m_mutex);
  return m_head;
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

std::optional<TrailerCommit> TrailerIndex::pending_redo(const std::string& plan_id, const SpecOwner& ours) const {
  std::lock_guard lock(m_mutex);
  const auto m = m_redo.find(plan_id);
  if (m == m_redo.end()) return std::nullopt;
  // How many of the plan's commits are older than its newest SUMMARY commit (task 0), plus one.
  std::size_t summaries_before = 0;
  if (const auto c = m_by_plan.find(plan_id); c != m_by_plan.end())
    for (std::size_t i = 0; i < c->second.size(); ++i)
      if (c->second[i].task == 0 && ours(c->second[i].spec)) summaries_before = i + 1;
  for (auto it = m->second.rbegin(); it != m->second.rend(); ++it) {
    if (it->first < summaries_before) return std::nullopt; // a SUMMARY since: that redo was done
    if (ours(it->second.spec)) return it->second;
  }
  return std::nullopt;
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
