#include "harness/orchestrator/preflight.hpp"

#include "lock_check_mark.hpp"
#include "session_files.hpp"

#include "harness/store/store.hpp"
#include "harness/util/glob.hpp"
#include "harness/util/open_file_limit.hpp"
#include "harness/util/shell_words.hpp"
#include "harness/util/state_path.hpp"
#include "harness/util/free_space.hpp"
#include "harness/util/private_directory.hpp"
#include "harness/worker/git_history.hpp"
#include "harness/worker/index_lock.hpp"
#include "harness/worker/spawn.hpp"
#include "harness/worker/submodules.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <set>
#include <unistd.h>

namespace harness::orchestrator {
namespace fs = std::filesystem;

namespace {

using sched::TaskKind;
using worker::AdapterKind;

/// Task kinds whose attempts start a worker process (verification runs in the orchestrator).
constexpr TaskKind worker_kinds[] = {TaskKind::research, TaskKind::plan, TaskKind::check_plans,
                                     TaskKind::plan_gaps, TaskKind::reconcile, TaskKind::execute};

/// One worker kind the run would start, and the task kinds it would start it for.
struct WorkerUse {
  AdapterKind adapter;
  std::vector<TaskKind> kinds;
};

std::vector<WorkerUse> workers_used(const RunOptions& o) {
  std::vector<WorkerUse> out;
  for (auto k : worker_kinds) {
    const auto a = adapter_for(o, k);
    // The script worker only executes; the harness does the rest of its tasks itself.
    if (a == AdapterKind::script && k != TaskKind::execute) continue;
    auto it = std::ranges::find(out, a, &WorkerUse::adapter);
    if (it == out.end()) out.push_back({a, {k}});
    else it->kinds.push_back(k);
  }
  return out;
}

/// "every task" or "execute and reconcile tasks".
std::string tasks_phrase(const WorkerUse& w) {
  if (w.kinds.size() == std::size(worker_kinds)) return "every task";
  std::string out;
  for (std::size_t i = 0; i < w.kinds.size(); ++i)
    out += (i == 0 ? "" : i + 1 == w.kinds.size() ? " and " : ", ") + std::string(sched::to_string(w.kinds[i]));
  return out + " tasks";
}

/// A launch like the run's, for a task that does not exist: build_launch is pure, so this finds
/// the program (and a template's errors) exactly as the launch will, without writing anything.
worker::LaunchRequest probe_request(const RunOptions& o, const spec::Layout& layout) {
  worker::LaunchRequest r;
  r.session_id = "preflight";
  r.task_id = "execute:preflight";
  r.task_kind = "execute";
  r.project_root = layout.project_root;
  r.spec_dir = layout.spec_dir;
  r.plan_file = layout.spec_dir / "PLAN.md";
  r.state_dir = layout.project_root / ".orchestration";
  r.session_dir = r.state_dir / "sessions" / r.session_id;
  r.db_path = r.state_dir / "harness.db";
  r.harness_mcp = o.harness_mcp;
  r.harness_cli = o.harness_cli;
  return r;
}

constexpr const char* template_help =
    "placeholders: {prompt_file}, {plan_file}, {task_id}, {task_kind}, {session_id}, {spec_dir}, {project_root}, "
    "{mcp_config}, {harness_mcp}, {harness_cli}";

std::string missing_program_fix(AdapterKind a, const worker::AdapterSettings& s) {
  std::string other = "or choose another worker (--worker";
  for (auto k : {AdapterKind::claude, AdapterKind::codex, AdapterKind::command, AdapterKind::script})
    if (k != a) other += fmt::format("{} {}", other.ends_with("worker") ? "" : " |", worker::to_string(k));
  other += ")";
  switch (a) {
  case AdapterKind::claude:
    if (s.claude_binary != "claude")
      return fmt::format("correct `workers: {{claude: {{binary: ...}}}}` in .orchestration/config.yaml, {}", other);
    return fmt::format("install Claude Code (npm install -g @anthropic-ai/claude-code) so that `claude` runs in this "
                       "shell, or set `workers: {{claude: {{binary: /path/to/claude}}}}` in .orchestration/config.yaml, {}",
                       other);
  case AdapterKind::codex:
    if (s.codex_binary != "codex")
      return fmt::format("correct `workers: {{codex: {{binary: ...}}}}` in .orchestration/config.yaml, {}", other);
    return fmt::format("install the Codex CLI (npm install -g @openai/codex) so that `codex` runs in this shell, or set "
                       "`workers: {{codex: {{binary: /path/to/codex}}}}` in .orchestration/config.yaml, {}",
                       other);
  case AdapterKind::command:
    return "install it, or give its full path as the first word of the command template (--command, or `workers: {command: ...}` "
           "in .orchestration/config.yaml)";
  case AdapterKind::script:
  case AdapterKind::sim: break;
  }
  return "the script worker is harness-cli itself: run the harness-cli of a complete build or installation";
}

/// The problem with launching `w`'s worker, if there is one.
std::optional<StartProblem> worker_problem(const WorkerUse& w, const RunOptions& o, const spec::Layout& layout,
                                           const StartFacts& facts) {
  const auto name = worker::to_string(w.adapter);
  const auto& s = o.adapter_settings;
  if (w.adapter == AdapterKind::command && s.command_template.empty())
    return StartProblem{fmt::format("the command worker (for {}) has no command template", tasks_phrase(w)),
                        fmt::format("pass --command 'my-agent {{prompt_file}}', or set `workers: {{command: ...}}` "
                                    "in .orchestration/config.yaml ({})",
                                    template_help)};
  auto launch = worker::build_launch(w.adapter, probe_request(o, layout), s);
  if (!launch) {
    const std::string fix = w.adapter == AdapterKind::command
                                ? fmt::format("correct the command template (--command, or `workers: {{command: ...}}` "
                                              "in .orchestration/config.yaml; {})",
                                              template_help)
                                : "choose the claude, codex, command or script worker";
    return StartProblem{fmt::format("the {} worker (for {}) cannot be launched: {}", name, tasks_phrase(w), launch.error()), fix};
  }
  const std::string& program = launch->argv.front();
  if (facts.resolve_program && !facts.resolve_program(program).empty()) return std::nullopt;
  const std::string where = program.empty() ? "no program is set"
                            : program.find('/') != std::string::npos
                                ? fmt::format("{} does not exist or is not executable", program)
                                : fmt::format("`{}` is not on PATH", program);
  return StartProblem{fmt::format("the {} worker (for {}) cannot start: {}", name, tasks_phrase(w), where),
                      missing_program_fix(w.adapter, s)};
}

/// The lines git printed that are not blank.
std::vector<std::string> printed_lines(const std::string& out) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < out.size()) {
    std::size_t nl = out.find('\n', start);
    if (nl == std::string::npos) nl = out.size();
    std::string line = out.substr(start, nl - start);
    start = nl + 1;
    if (line.find_first_not_of(" \t\r") != std::string::npos) lines.push_back(std::move(line));
  }
  return lines;
}

/// What git printed last, without its "fatal: ": the reason, after its advice.
std::string git_complaint(const std::string& out) {
  std::string last;
  for (auto& line : printed_lines(out)) {
    if (line.starts_with("fatal: ")) return line.substr(7);
    last = std::move(line);
  }
  return last.empty() ? "git failed without a message" : last;
}

/// Every line git printed, without the "error: " and "fatal: " prefixes, joined with "; ": a
/// failed signature says why in an error line and only then that the commit failed.
std::string git_messages(const std::string& out) {
  std::string joined;
  for (auto line : printed_lines(out)) {
    for (std::string_view prefix : {"error: ", "fatal: "})
      if (line.starts_with(prefix)) line.erase(0, prefix.size());
    joined += (joined.empty() ? "" : "; ") + line;
  }
  return joined.empty() ? "git failed without a message" : joined;
}

/// git refuses the repository: its reason, and the fix it prints (`git config --global --add
/// safe.directory DIR` for a repository another user owns), else a general one.
StartProblem git_refusal_problem(const fs::path& root, const std::string& said) {
  std::string fix;
  for (const auto& line : printed_lines(said)) {
    const auto start = line.find_first_not_of(" \t");
    if (line.compare(start, 11, "git config ") == 0) fix = line.substr(start);
  }
  if (!fix.empty())
    fix = fmt::format("{} (git refuses a repository another user owns; or run as its owner: ls -ld {})", fix, root.string());
  else fix = "make git read it again (run git status there: it says the same), then run again";
  return {fmt::format("git refuses the repository of {} ({}), and the orchestrator and its workers commit every task "
                      "they finish",
                      root.string(), git_complaint(said)),
          fix};
}

void git_problems(const fs::path& root, const StartFacts& facts, std::vector<StartProblem>& out) {
  if (!facts.git_found) {
    out.push_back({"git is not installed (not on PATH), and the orchestrator and its workers commit every task",
                   "install git (apt-get install git, brew install git, ...) and run again"});
    return; // a repository or an identity cannot be asked about
  }
  if (!facts.git_refusal.empty()) {
    out.push_back(git_refusal_problem(root, facts.git_refusal));
    return; // an identity or signing cannot be asked about
  }
  if (!facts.git_repository)
    out.push_back({fmt::format("{} is not a git repository, and the orchestrator and its workers commit every task they "
                               "finish",
                               root.string()),
                   fmt::format("make it one: cd {} && git init && git add -A && git commit -m 'Initial commit' (or run "
                               "orchestrate inside the repository that holds the spec)",
                               root.string())});
  if (!facts.signing_error.empty())
    out.push_back({fmt::format("git is set to sign every commit here (commit.gpgsign) and cannot sign ({}): every task "
                               "would do its work and then fail to commit",
                               facts.signing_error),
                   "make signing work (the key of user.signingkey in your keyring, its agent unlocked, gpg.program and "
                   "gpg.format right), or turn it off for this repository: git config commit.gpgsign false"});
  const bool author = !facts.author_identity_error.empty(), committer = !facts.committer_identity_error.empty();
  if (!author && !committer) return;
  const std::string set_config =
      "git config --global user.name 'Your Name' && git config --global user.email you@example.com";
  if (author)
    out.push_back({fmt::format("git has no {} to commit with ({})", committer ? "identity" : "author identity",
                               facts.author_identity_error),
                   fmt::format("{} (or export GIT_AUTHOR_NAME{} GIT_AUTHOR_EMAIL{})", set_config, committer ? "," : " and",
                               committer ? ", GIT_COMMITTER_NAME and GIT_COMMITTER_EMAIL" : "")});
  else
    out.push_back({fmt::format("git has no committer identity to commit with ({})", facts.committer_identity_error),
                   fmt::format("{} (or export GIT_COMMITTER_NAME and GIT_COMMITTER_EMAIL as well)", set_config)});
}

/// Where the run writes and commits: an operation git waits on, documents outside the
/// repository or ignored by it, state that cannot be written. Each would surface only after
/// work ran (a commit failing, a store refusing writes), so each is a problem now.
void document_problems(const spec::Layout& layout, const StartFacts& facts, std::vector<StartProblem>& out) {
  if (!facts.git_operation.empty()) {
    const std::string& op = facts.git_operation;
    out.push_back({fmt::format("a git {} is in progress in this repository: the workers' commits would fail, and "
                               "harness would stage its files into it",
                               op),
                   op == "merge" ? "finish it (resolve, then git commit) or abort it (git merge --abort), then run again"
                                 : fmt::format("finish it (git {0} --continue) or abort it (git {0} --abort), then run again", op)});
  }
  if (!facts.orphaned_git_locks.empty()) {
    std::string names;
    for (const auto& l : facts.orphaned_git_locks) names += (names.empty() ? "" : " ") + l;
    const bool one = facts.orphaned_git_locks.size() == 1;
    out.push_back({fmt::format("{} exist{} and no git process works in this repository: a git that crashed or was killed "
                               "(an editor's, a terminal's) left {}, and every commit of the run would fail on {}",
                               names, one ? "s" : "", one ? "it" : "them", one ? "it" : "them"),
                   fmt::format("make sure no git runs here (another terminal, an editor, a git started from another "
                               "directory), then remove {}: rm {}",
                               one ? "it" : "them", names)});
  }
  std::error_code ec;
  const auto rel = fs::relative(layout.spec_dir, layout.project_root, ec);
  if (facts.git_repository && (ec || rel.empty() || rel.string().starts_with("..")))
    out.push_back({fmt::format("the spec directory {} is outside the project {} (a symbolic link leads there?): git "
                               "cannot commit its SUMMARY, VERIFICATION and STATUS files",
                               layout.spec_dir.string(), layout.project_root.string()),
                   "keep the spec directory inside the repository (move it there; a link from elsewhere to it works)"});
  if (!facts.ignored_documents.empty()) {
    std::string names;
    for (const auto& d : facts.ignored_documents) names += (names.empty() ? "" : ", ") + d;
    out.push_back({fmt::format("git ignores {} (a .gitignore rule), and harness commits the spec's SUMMARY, "
                               "VERIFICATION and STATUS files",
                               names),
                   fmt::format("change the rule (git check-ignore -v {} names it), then run again",
                               facts.ignored_documents.front())});
  }
  for (const auto& f : facts.unwritable_state)
    out.push_back(f.not_a_directory
                      ? f.dangling.empty()
                            ? StartProblem{fmt::format("{} is not a directory, and the run keeps its state there", f.path),
                                           "move it away (it is not harness's), then run again"}
                            : StartProblem{fmt::format("{}, and the run keeps its state there (.orchestration)", f.dangling),
                                           "create the directory it points to, or remove the link, then run again"}
                  : f.read_only_file_system
                      ? StartProblem{fmt::format("{} cannot be written: it lies on a read-only file system, and the run "
                                                 "writes its state (messages, sessions, answers) and commits there",
                                                 f.path),
                                     "run harness in a writable checkout of the project (or mount it read-write)"}
                      : StartProblem{fmt::format("{} cannot be written, and it holds the run's state (messages, sessions, "
                                                 "answers)",
                                                 f.path),
                                     "make it writable for this user (ls -l shows its owner; chown or chmod), or run as its owner"});
  if (auto too_long = store::db_path_length_problem(store::default_db_path(layout.project_root)); !too_long.empty())
    out.push_back({std::move(too_long), "a project path up to about 470 bytes works; nothing was written"});
}

} // namespace

namespace {

/// The operation whose state files git keeps in its directory while it waits for the user.
std::string operation_in_progress(const fs::path& git_dir) {
  std::error_code ec;
  if (fs::exists(git_dir / "rebase-merge", ec) || fs::exists(git_dir / "rebase-apply", ec)) return "rebase";
  if (fs::exists(git_dir / "MERGE_HEAD", ec)) return "merge";
  if (fs::exists(git_dir / "CHERRY_PICK_HEAD", ec)) return "cherry-pick";
  if (fs::exists(git_dir / "REVERT_HEAD", ec)) return "revert";
  return {};
}

/// Where the run writes documents it commits, as project-relative paths (a SUMMARY of a phase
/// that may not exist yet is still a path .gitignore rules apply to).
std::vector<std::string> document_paths(const spec::Layout& layout) {
  const spec::PhaseDir* first = layout.phases.empty() ? nullptr : &layout.phases.front();
  std::vector<fs::path> docs = {layout.status_md, layout.roadmap_md, layout.commits_log, layout.final_verification};
  if (first) docs.push_back(layout.summary_file(*first, spec::to_string(first->number) + "-01"));
  else docs.push_back(layout.results_dir / "01-phase" / "01-01-SUMMARY.md");
  std::vector<std::string> out;
  for (const auto& d : docs) {
    std::error_code ec;
    auto rel = fs::relative(d, layout.project_root, ec);
    if (!ec && !rel.empty() && !rel.string().starts_with("..")) out.push_back(rel.string());
  }
  return out;
}

/// git's complaint when commits here are to be signed and it cannot sign; empty when signing is
/// off (one `git config`, all a run without signing pays) or works. `commit-tree -S` signs as a
/// commit does (commit-tree itself ignores commit.gpgsign, hence the -S); the commit object it
/// makes of the empty tree is on no branch, and gc removes it.
std::string signing_error(const fs::path& root) {
  const auto on = worker::run_git(root, {"config", "--type=bool", "--get", "commit.gpgsign"});
  if (on.exit_code != 0 || !on.out.starts_with("true")) return {};
  auto tree = worker::run_git(root, {"hash-object", "-t", "tree", "/dev/null"}); // SHA-1 or SHA-256, as the repository
  if (tree.exit_code != 0) return {};
  while (!tree.out.empty() && (tree.out.back() == '\n' || tree.out.back() == '\r')) tree.out.pop_back();
  const auto r = worker::run_git(root, {"commit-tree", "-S", tree.out, "-m", "harness: can git sign commits here?"});
  return r.exit_code == 0 ? std::string() : git_messages(r.messages());
}

/// Git's locks that nobody holds, for the preflight. Not while a worker of an earlier run lives:
/// its git's lock is that run's to clear, and the run clears it once it has stopped the worker.
/// Nor when a run stopped workers and was killed before it looked for their locks (the mark of
/// lock_check_mark.hpp): this run's recovery looks, and removes them.
/// harness did not make any other lock, so it leaves it to the user: a git that works on this
/// repository from elsewhere (GIT_DIR, another machine on a shared disk) is not seen in /proc,
/// and removing the lock under it would let two gits write one index.
std::vector<std::string> orphaned_locks(const fs::path& root) {
  if (locks_unchecked(root / ".orchestration")) return {};
  if (std::ranges::any_of(stale_workers(root / ".orchestration"), [](const StaleWorker& w) { return w.pid > 0; })) return {};
  std::vector<std::string> out;
  for (const auto& l : worker::orphaned_git_locks(root)) {
    std::error_code ec;
    const auto rel = fs::relative(l, root, ec);
    out.push_back(ec || rel.empty() || rel.string().starts_with("..") ? l.string() : rel.string());
  }
  return out;
}

std::vector<UnwritableState> unwritable_state_files(const fs::path& root) {
  std::vector<UnwritableState> out;
  const fs::path dir = root / ".orchestration";
  std::error_code ec;
  const auto kind = fs::status(dir, ec).type(); // a link followed
  if (kind != fs::file_type::not_found && kind != fs::file_type::none && kind != fs::file_type::directory)
    return {{.path = ".orchestration", .not_a_directory = true}}; // a file, or a link to one (review LL F8)
  if (kind == fs::file_type::not_found && fs::is_symlink(fs::symlink_status(dir, ec))) // a link to nothing (review OO F9)
    return {{.path = ".orchestration", .not_a_directory = true, .dangling = util::blocking_part(dir)}};
  // Without .orchestration/ yet, the project directory must take it (a read-only mount did not,
  // and the run failed after its start on the lock file, review II F5).
  const bool made = kind == fs::file_type::directory;
  for (const auto& f : made ? std::vector<fs::path>{dir, dir / "harness.db", dir / "harness.db-wal", dir / "harness.db-shm"}
                            : std::vector<fs::path>{root}) {
    if (!fs::exists(f, ec) || ::access(f.c_str(), W_OK) == 0) continue;
    const bool read_only = errno == EROFS;
    const auto rel = fs::relative(f, root, ec).string();
    out.push_back({made ? rel : fmt::format("the project directory {} (where .orchestration/ goes)", root.string()), read_only});
  }
  return out;
}

} // namespace

std::vector<std::string> ignored_documents(const spec::Layout& layout) {
  std::vector<std::string> out;
  std::vector<std::string> check = {"check-ignore", "--"};
  for (auto& d : document_paths(layout)) check.push_back(std::move(d));
  if (auto r = worker::run_git(layout.project_root, check); r.exit_code == 0)
    for (std::size_t pos = 0; pos < r.out.size();) {
      std::size_t nl = r.out.find('\n', pos);
      if (nl == std::string::npos) nl = r.out.size();
      if (nl > pos) out.push_back(r.out.substr(pos, nl - pos));
      pos = nl + 1;
    }
  return out;
}

namespace {

/// A limit on open files that the run's workers would exceed part-way (a run died of it).
/// harness-cli has raised the soft limit to the hard one already: only the hard limit is left to
/// raise, in the shell (or by root) before harness-cli starts.
void open_file_problem(const RunOptions& o, const StartFacts& facts, std::vector<StartProblem>& out) {
  const int slots = o.sched.slots;
  const auto needed = open_files_needed(slots, o.verify_threads);
  if (!facts.open_file_limit || *facts.open_file_limit >= needed) return;
  const auto limit = *facts.open_file_limit;
  std::string fix = fmt::format("raise the limit before harness-cli starts: `ulimit -n {}` (above the hard limit "
                                "`ulimit -Hn` only as root, or in /etc/security/limits.conf)",
                                needed);
  int fits = 0;
  while (fits < slots && open_files_needed(fits + 1, o.verify_threads) <= limit) ++fits;
  if (fits > 0) fix += fmt::format(", or run fewer workers at once: --slots {}", fits);
  out.push_back({fmt::format("--slots {} needs about {} open files at once, and this process may open {} (ulimit -n)",
                             slots, needed, limit),
                 std::move(fix)});
}

} // namespace

StartFacts probe_start_facts(const spec::Layout& layout) {
  const fs::path& project_root = layout.project_root;
  StartFacts f;
  f.resolve_program = [](const std::string& name) -> fs::path {
    // The worker host's own lookup; exec then needs an executable file there.
    const auto p = worker::find_program(name);
    std::error_code ec;
    if (p.empty() || fs::is_directory(p, ec) || ::access(p.c_str(), X_OK) != 0) return {};
    return p;
  };
  f.open_file_limit = util::open_file_limit();
  // The project's file system and the state's, where .orchestration/ leads elsewhere (review LL F3).
  if (const auto space = util::least_free_space({project_root, project_root / ".orchestration"})) {
    f.free_bytes = space->bytes;
    f.free_bytes_at = space->at;
  }
  f.git_found = !f.resolve_program("git").empty();
  if (!f.git_found) return f;
  f.unwritable_state = unwritable_state_files(project_root);
  auto git_dir = worker::run_git(project_root, {"rev-parse", "--absolute-git-dir"});
  f.git_repository = git_dir.exit_code == 0;
  if (!f.git_repository && git_dir.err.find("not a git repository") == std::string::npos) {
    f.git_repository = true; // there is one: git will not read it
    f.git_refusal = git_dir.messages();
    if (f.git_refusal.empty()) f.git_refusal = fmt::format("git rev-parse failed (exit {})", git_dir.exit_code);
    return f; // every other question would get the same refusal
  }
  if (f.git_repository) {
    while (!git_dir.out.empty() && git_dir.out.back() == '\n') git_dir.out.pop_back();
    f.git_dir = git_dir.out;
    f.git_operation = operation_in_progress(git_dir.out);
    f.ignored_documents = ignored_documents(layout);
    f.signing_error = signing_error(project_root);
    f.orphaned_git_locks = orphaned_locks(project_root);
    f.sparse_cone = sparse_cone_directories(project_root);
    f.submodules = worker::submodule_paths(project_root);
    if (worker::history_depth(project_root) == worker::HistoryDepth::shallow) f.shallow_plans_with_commits = plans_with_commits(layout);
  }
  // `git var` applies the rules `git commit` applies (config, GIT_* variables, EMAIL, and whether
  // an address guessed from the host name is acceptable), in the environment commits run in.
  if (auto r = worker::run_git(project_root, {"var", "GIT_AUTHOR_IDENT"}); r.exit_code != 0)
    f.author_identity_error = git_complaint(r.messages());
  if (auto r = worker::run_git(project_root, {"var", "GIT_COMMITTER_IDENT"}); r.exit_code != 0)
    f.committer_identity_error = git_complaint(r.messages());
  return f;
}

std::uint64_t open_files_needed(int slots, int verify_threads) {
  return 25 + 3 * static_cast<std::uint64_t>(std::max(slots, 1)) + 6 * static_cast<std::uint64_t>(std::max(verify_threads, 1));
}

std::vector<StartProblem> start_problems(const RunOptions& options, const spec::Layout& layout, const StartFacts& facts) {
  std::vector<StartProblem> out;
  open_file_problem(options, facts, out);
  if (facts.free_bytes && *facts.free_bytes < least_free_to_run)
  {
    const auto where = (facts.free_bytes_at.empty() ? layout.project_root : facts.free_bytes_at).string();
    out.push_back({fmt::format("the file system holding {} has {} KB free, and the run writes its state, the spec's "
                               "documents and its commits there",
                               where, *facts.free_bytes / 1024),
                   fmt::format("free some space (df -h {} shows it), then run again", where)});
  }
  git_problems(layout.project_root, facts, out);
  document_problems(layout, facts, out);
  bool agents = false;
  for (const auto& w : workers_used(options)) {
    if (auto p = worker_problem(w, options, layout, facts)) out.push_back(std::move(*p));
    agents |= w.adapter == AdapterKind::claude || w.adapter == AdapterKind::codex;
  }
  // Agent workers report through harness-mcp, which their CLI starts from the MCP config: without
  // it every attempt would run its model and then fail for want of a report.
  if (agents && facts.resolve_program && facts.resolve_program(options.harness_mcp.string()).empty())
    out.push_back({fmt::format("harness-mcp, through which claude and codex workers report, is not at {}",
                               options.harness_mcp.string()),
                   "use a complete build or installation of harness: harness-mcp belongs next to harness-cli "
                   "(cmake --build builds both; cmake --install installs both)"});
  return out;
}

std::string render_start_problems(const std::vector<StartProblem>& problems) {
  std::string out = fmt::format("the run cannot start; {} to fix first (nothing was started or written):",
                                problems.size() == 1 ? std::string("one problem") : fmt::format("{} problems", problems.size()));
  for (const auto& p : problems) out += fmt::format("\n  - {}\n    fix: {}", p.problem, p.fix);
  return out;
}

namespace {

/// The project-relative prefix of the spec directory, with a trailing slash.
bool harness_own(const std::string& path, const std::string& spec_rel) {
  return (!spec_rel.empty() && path.starts_with(spec_rel)) || util::in_state_directory(path);
}

} // namespace

std::vector<DirtyDeclaredFile> dirty_declared_files(const spec::Spec& spec, const std::vector<worker::GitChange>& changes) {
  const std::string spec_rel = spec.layout.spec_dir_in_project();
  std::vector<DirtyDeclaredFile> out;
  for (const auto& c : changes) {
    if (harness_own(c.path, spec_rel)) continue;
    for (const auto& p : spec.plans) {
      if (spec.summaries.contains(p.id)) continue;
      const bool declared = std::ranges::any_of(p.files_modified, [&](const std::string& g) { return util::glob_match(g, c.path); });
      if (declared) {
        out.push_back({p.id, c.path});
        break; // one plan is enough to name
      }
    }
  }
  return out;
}

std::vector<std::string> attempt_leftovers(const spec::Spec& spec, const spec::Plan& plan,
                                           const std::vector<worker::GitChange>& before,
                                           const std::vector<worker::GitChange>& now) {
  const std::string spec_rel = spec.layout.spec_dir_in_project();
  std::set<std::string> already;
  for (const auto& c : before) already.insert(c.path);
  std::vector<std::string> out;
  for (const auto& c : now)
    if (!already.contains(c.path) && !harness_own(c.path, spec_rel) &&
        std::ranges::any_of(plan.files_modified, [&](const std::string& g) { return util::glob_match(g, c.path); }))
      out.push_back(c.path);
  return out;
}

std::string uncommitted_spec_note(const spec::Spec& spec, const std::vector<worker::GitChange>& changes) {
  const auto& root = spec.layout.project_root;
  std::set<std::string> uncommitted;
  for (const auto& c : changes)
    if (c.untracked || c.added) uncommitted.insert(c.path);
  std::error_code ec;
  auto is_uncommitted = [&](const fs::path& file) {
    return fs::exists(file) && uncommitted.contains(fs::relative(file, root, ec).generic_string());
  };
  std::vector<std::string> names;
  for (const auto& doc : {spec.layout.spec_md, spec.layout.roadmap_md})
    if (is_uncommitted(doc)) names.push_back(doc.filename().string());
  const auto plans = std::ranges::count_if(spec.plans, [&](const spec::Plan& p) { return is_uncommitted(spec.layout.spec_dir / p.file); });
  if (plans > 0) names.push_back(fmt::format("{} of its {} PLAN file{}", plans, spec.plans.size(), spec.plans.size() == 1 ? "" : "s"));
  if (names.empty()) return "";
  std::string list;
  for (std::size_t i = 0; i < names.size(); ++i) list += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  const auto dir = fs::relative(spec.layout.spec_dir, root, ec).generic_string();
  return fmt::format("the spec's own files are not committed: {}; a run executes them but commits only its own outputs "
                     "(SUMMARY, VERIFICATION, STATUS.md), so history would hold results without the plans behind them: "
                     "commit them first (git add {} && git commit)",
                     list, util::quote_shell_word(dir));
}

std::string edited_plans_note(const spec::Spec& spec, const std::vector<worker::GitChange>& changes) {
  const auto& root = spec.layout.project_root;
  std::set<std::string> edited;
  for (const auto& c : changes)
    if (!c.untracked && !c.added && !c.deleted) edited.insert(c.path);
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& p : spec.plans)
    if (const auto rel = fs::relative(spec.layout.spec_dir / p.file, root, ec).generic_string(); edited.contains(rel))
      names.push_back(rel);
  if (names.empty()) return "";
  const std::size_t shown = std::min<std::size_t>(names.size(), 3);
  std::string list;
  for (std::size_t i = 0; i < shown; ++i) list += (i ? ", " : "") + names[i];
  if (names.size() > shown) list += fmt::format(" and {} more", names.size() - shown);
  return fmt::format("{} PLAN file{} ha{} edits no commit holds ({}): the run executes {} as {} now, so history would "
                     "hold work made from plans no commit has: commit {} (git commit {})",
                     names.size(), names.size() == 1 ? "" : "s", names.size() == 1 ? "s" : "ve", list,
                     names.size() == 1 ? "it" : "them", names.size() == 1 ? "it is" : "they are",
                     names.size() == 1 ? "it" : "them", names.size() == 1 ? util::quote_shell_word(names[0]) : "PATH...");
}

std::vector<std::string> undeclared_changes(const spec::Spec& spec, const std::vector<worker::GitChange>& before,
                                            const std::vector<worker::GitChange>& after) {
  const std::string spec_rel = spec.layout.spec_dir_in_project();
  std::set<std::string> already;
  for (const auto& c : before) already.insert(c.path);
  std::vector<std::string> out;
  for (const auto& c : after) {
    if (already.contains(c.path) || harness_own(c.path, spec_rel)) continue;
    const bool declared = std::ranges::any_of(spec.plans, [&](const spec::Plan& p) {
      return std::ranges::any_of(p.files_modified, [&](const std::string& g) { return util::glob_match(g, c.path); });
    });
    if (!declared) out.push_back(c.path);
  }
  return out;
}

} // namespace harness::orchestrator
