#include "harness/orchestrator/redo.hpp"

#include "session_files.hpp"

#include "harness/graph/plan_graph.hpp"
#include "harness/graph/progress.hpp"
#include "harness/orchestrator/planning.hpp"
#include "harness/orchestrator/run_config.hpp"
#include "harness/orchestrator/writeback.hpp"
#include "harness/store/checkpoint_files.hpp"
#include "harness/util/atomic_file.hpp"
#include "harness/util/glob.hpp"
#include "harness/store/run_lock.hpp"
#include "harness/store/store.hpp"
#include "harness/worker/git.hpp"
#include "harness/worker/trailers.hpp"
#include "harness/worker/index_lock.hpp"
#include "harness/worker/script_worker.hpp"
#include "harness/util/json_text.hpp"
#include "harness/util/shell_words.hpp"
#include "harness/util/text.hpp"

#include <boost/json.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <set>

namespace harness::orchestrator {
namespace fs = std::filesystem;

namespace {

std::string tasks_phrase(const std::vector<int>& tasks) {
  if (tasks.empty()) return "every task";
  return fmt::format("task{} {}", tasks.size() == 1 ? "" : "s", fmt::join(tasks, ", "));
}

std::string short_hash(const std::string& hash) { return hash.substr(0, 7); }

/// What changed `plan`'s files after its commit `since` and is not the plan's own work (nor a
/// redo marker): "plan 03-01 a379050 (wordstat/cli.py)", newest first, at most five.
std::vector<std::string> later_changes(const fs::path& root, const spec::Plan& plan, const std::string& since,
                                       const worker::SpecOwner& ours) {
  if (plan.files_modified.empty()) return {};
  auto args = worker::trailer_log_args(true);
  args.insert(args.end(), {since + "..HEAD", "--"});
  for (const auto& f : plan.files_modified) args.push_back(worker::glob_pathspec(f));
  const auto log = worker::run_git(root, args);
  if (log.exit_code != 0) return {};
  std::vector<std::string> out;
  for (const auto& c : worker::parse_trailer_log(log.out, true, true)) {
    if ((c.plan == plan.id && ours(c.spec)) || !c.redo.empty()) continue;
    std::vector<std::string> files;
    for (const auto& f : c.files)
      if (std::ranges::any_of(plan.files_modified, [&](const std::string& g) { return util::glob_match(g, f); }))
        files.push_back(f);
    out.push_back(fmt::format("{} {} ({})", c.plan.empty() ? std::string("commit") : "plan " + c.plan, short_hash(c.hash),
                              fmt::join(files, ", ")));
    if (out.size() == 5) break;
  }
  return out;
}

/// STATUS.md and ROADMAP.md (those the spec has) as they read once the redone plans' SUMMARYs are
/// gone: what the last run wrote there ("complete", the plan ticked) no longer holds. The
/// blockers of the redone plans' tasks go too: they run again.
std::vector<worker::FileWrite> progress_documents(const spec::Spec& spec, const std::vector<RedoPlan>& plans) {
  spec::Spec after = spec;
  std::set<std::string> redone;
  for (const auto& p : plans)
    if (!p.nothing_to_do()) redone.insert(p.plan), after.summaries.erase(p.plan);
  if (after.status)
    std::erase_if(after.status->blocked, [&](const spec::BlockedTask& b) {
      const auto colon = b.task.find(':');
      return colon != std::string::npos && redone.contains(b.task.substr(colon + 1));
    });
  RunOptions options; // the gate decides what STATUS.md calls ready: the project's, as a run sees it
  options.spec_dir = spec.layout.spec_dir;
  (void)apply_project_config(options); // a malformed config.yaml: the default gate
  const auto progress = graph::compute_progress(after, graph::build_plan_graph(after.plans), options.sched.gate_lookahead);
  const auto& layout = spec.layout;
  std::error_code ec;
  std::vector<worker::FileWrite> out;
  if (after.status && fs::is_regular_file(layout.status_md, ec))
    out.push_back({fs::relative(layout.status_md, layout.project_root, ec).generic_string(),
                   render_status_md(progress, "redo", after.status->blocked)});
  if (spec.roadmap)
    if (auto text = util::read_file(layout.roadmap_md))
      if (auto updated = roadmap_with_progress(after, *text, progress, roadmap_minutes(spec), false); updated && *updated != *text)
        out.push_back({fs::relative(layout.roadmap_md, layout.project_root, ec).generic_string(), std::move(*updated)});
  return out;
}

} // namespace

std::expected<RedoTarget, std::string> parse_redo_target(std::string_view text) {
  RedoTarget t;
  const size_t colon = text.find(':');
  t.plan = std::string(text.substr(0, colon));
  if (t.plan.empty()) return std::unexpected(fmt::format("'{}': no plan id before ':' (write 01-02 or 01-02:2,3)", text));
  if (colon == std::string_view::npos) return t;
  std::string_view rest = text.substr(colon + 1);
  if (rest.empty()) return std::unexpected(fmt::format("'{}': no task after ':' (write 01-02:2, or 01-02 for every task)", text));
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    int n = 0;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), n);
    if (ec != std::errc() || end != item.data() + item.size() || n < 1)
      return std::unexpected(fmt::format("'{}': '{}' is not a task number (tasks count from 1)", text, item));
    t.tasks.push_back(n);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    if (comma != std::string_view::npos && rest.empty()) return std::unexpected(fmt::format("'{}': a ',' with no task after it", text));
  }
  std::sort(t.tasks.begin(), t.tasks.end());
  t.tasks.erase(std::unique(t.tasks.begin(), t.tasks.end()), t.tasks.end());
  return t;
}

namespace {

/// The store entries a redo changes, as they were: written back when its marker commit fails.
using StoreValues = std::vector<std::pair<std::string, std::string>>;

/// What the store says of the redone plans' old work that must not hold for the new: that their
/// executor asked a person (whose verification would then approve without asking again), and the
/// gap-closure rounds their phases spent (new work gets its own). Returns the entries as they
/// were, or the store's error; nothing when there is no store.
std::expected<StoreValues, std::string> forget_for_redo(const spec::Spec& spec, const fs::path& state_dir,
                                                       const std::vector<RedoPlan>& plans) {
  if (std::error_code ec; !fs::exists(state_dir / "harness.db", ec)) return StoreValues{};
  auto db = store::Store::open_project(spec.layout.project_root);
  if (!db) return std::unexpected(db.error());
  auto entries = db->values();
  if (!entries) return std::unexpected(entries.error());
  std::set<std::string> rounds_keys;
  for (const auto& p : plans)
    if (const auto* plan = spec.find_plan(p.plan); plan && !p.nothing_to_do())
      rounds_keys.insert(loop_rounds_key(spec.layout.spec_name, spec::to_string(plan->phase)));
  const auto asked_key = executor_asked_key(spec.layout.spec_name);
  StoreValues before;
  for (const auto& [k, v] : *entries) {
    std::expected<void, std::string> written;
    if (k == asked_key) {
      auto asked = decode_paths(v);
      for (const auto& p : plans)
        if (!p.nothing_to_do()) asked.erase(p.plan);
      written = asked.empty() ? db->erase_value(k) : db->set_value(k, encode_paths(asked));
    } else if (rounds_keys.contains(k)) {
      written = db->erase_value(k);
    } else {
      continue;
    }
    if (!written) return std::unexpected(written.error());
    before.emplace_back(k, v);
  }
  return before;
}

/// Writes `before` back (a marker commit git refused: the redo changed nothing).
void restore_store(const spec::Spec& spec, const StoreValues& before) {
  if (before.empty()) return;
  if (auto db = store::Store::open_project(spec.layout.project_root))
    for (const auto& [k, v] : before) (void)db->set_value(k, v); // a failure leaves a question asked, not one skipped
}

} // namespace

std::expected<RedoResult, RunError> redo(const spec::Spec& spec, const std::vector<RedoTarget>& targets,
                                         std::string_view note) {
  const auto& layout = spec.layout;
  const fs::path root = layout.project_root;
  // Every target is checked before anything is touched: a typo in the third must not leave the
  // first two half done.
  std::vector<RedoTarget> merged; // one per plan, in the order given
  for (const auto& t : targets) {
    const auto* plan = spec.find_plan(t.plan);
    if (!plan) {
      std::vector<std::string> ids;
      for (const auto& p : spec.plans) ids.push_back(p.id);
      return std::unexpected(RunError{fmt::format("no plan {} in {} (its plans: {})", t.plan, layout.spec_name,
                                                  ids.empty() ? "none" : fmt::format("{}", fmt::join(ids, ", "))),
                                      2});
    }
    const int count = static_cast<int>(plan->tasks.size());
    for (int task : t.tasks)
      if (task > count)
        return std::unexpected(RunError{fmt::format("plan {} has {} task{}: there is no task {}", t.plan, count,
                                                    count == 1 ? "" : "s", task),
                                        2});
    auto same = std::find_if(merged.begin(), merged.end(), [&](const RedoTarget& m) { return m.plan == t.plan; });
    if (same == merged.end()) merged.push_back(t);
    else if (same->tasks.empty() || t.tasks.empty()) same->tasks.clear(); // every task
    else {
      same->tasks.insert(same->tasks.end(), t.tasks.begin(), t.tasks.end());
      std::sort(same->tasks.begin(), same->tasks.end());
      same->tasks.erase(std::unique(same->tasks.begin(), same->tasks.end()), same->tasks.end());
    }
  }
  const fs::path state_dir = root / ".orchestration";
  // Another user's state: its running orchestrate and its workers cannot be seen from here
  // (review II F10: a raw filesystem exception said so).
  if (auto why = store::unreadable_state(state_dir); !why.empty()) return std::unexpected(RunError{why, 1});
  if (auto why = store::unreadable_checkpoints(state_dir); !why.empty()) return std::unexpected(RunError{why, 1});
  // A running orchestrate has read what is done and may be executing these very plans; one that
  // starts before the marker is committed would read them as done. Held off until we return.
  auto held = store::hold_off_runs(state_dir);
  if (!held)
    return std::unexpected(RunError{fmt::format("an orchestrate is running in this project ({}); stop it first "
                                                "(Ctrl-C in its terminal), then redo",
                                                store::describe_run(held.error())),
                                    1});

  RedoResult result;
  // A worker a killed run left running on one of these plans would commit the old work after
  // the marker: stopped first, as the next orchestrate would. Another spec's plan of the same id
  // is not ours to stop (a record without a spec is from an older harness: it may be ours).
  std::vector<StaleWorker> stale;
  auto candidates = stale_workers(state_dir);
  // Workers a killed run spawned without recording their pid are found by their session id.
  if (std::error_code ec; fs::exists(state_dir / "harness.db", ec))
    if (auto db = store::Store::open_project(root))
      if (auto sessions = db->list_sessions())
        for (auto& w : unrecorded_workers(*sessions, state_dir)) candidates.push_back(std::move(w));
  for (auto& w : candidates)
    if (w.pid > 0 && (w.spec.empty() || layout.owns_spec_trailer(w.spec)) &&
        std::ranges::any_of(merged, [&](const RedoTarget& t) { return w.task.ends_with(":" + t.plan); })) {
      result.stopped.push_back(fmt::format("{} (pid {})", w.task, w.pid));
      stale.push_back(std::move(w));
    }
  if (!stale.empty()) {
    stop_stale_workers(stale);
    (void)worker::remove_orphaned_git_locks(root); // one stopped in the middle of a commit
  }
  std::vector<std::string> remove, trailers;
  std::vector<std::string> named; // for the subject
  // The PLAN files of these plans with changes no commit holds: one git status for all of them.
  std::set<std::string> edited_plans;
  {
    std::vector<std::string> specs;
    std::error_code ec;
    for (const auto& t : merged)
      specs.push_back(worker::literal_pathspec(fs::relative(layout.spec_dir / spec.find_plan(t.plan)->file, root, ec).generic_string()));
    for (const auto& c : worker::changed_paths(root, specs))
      if (!c.deleted) edited_plans.insert(c.path);
  }
  for (const auto& t : merged) {
    const auto* plan = spec.find_plan(t.plan);
    RedoPlan out;
    out.plan = t.plan;
    out.tasks = t.tasks;
    if (std::error_code ec; !edited_plans.empty())
      if (auto rel = fs::relative(layout.spec_dir / plan->file, root, ec).generic_string(); edited_plans.contains(rel))
        out.plan_file_uncommitted = std::move(rel);
    const auto standing = worker::committed_tasks(root, t.plan, [&](std::string_view s) { return layout.owns_spec_trailer(s); });
    out.no_task_commits = standing.empty();
    for (auto& [task, hash] : standing)
      if (t.tasks.empty() || std::binary_search(t.tasks.begin(), t.tasks.end(), task)) out.undone.emplace_back(task, hash);
    if (!out.undone.empty()) // oldest first: what came after the first task redone
      out.later_changes = later_changes(root, *plan, out.undone.front().second,
                                        [&](std::string_view s) { return layout.owns_spec_trailer(s); });
    if (const auto* phase = layout.find_phase(plan->phase)) {
      const fs::path summary = layout.summary_file(*phase, plan->id);
      std::error_code ec;
      // The path itself, a link included: fs::relative resolves the last name, and the redo removed
      // the file a linked SUMMARY leads to, leaving the link dangling (review JJ).
      if (fs::exists(fs::symlink_status(summary, ec)))
        out.summary = (fs::relative(summary.parent_path(), root, ec) / summary.filename()).generic_string();
    }
    if (!out.nothing_to_do()) {
      if (!out.summary.empty()) remove.push_back(out.summary);
      if (t.tasks.empty()) trailers.push_back(worker::redo_trailer(t.plan, 0));
      for (int task : t.tasks) trailers.push_back(worker::redo_trailer(t.plan, task));
      named.push_back(t.tasks.empty() ? t.plan : fmt::format("{} ({})", t.plan, tasks_phrase(t.tasks)));
    }
    result.plans.push_back(std::move(out));
  }
  if (trailers.empty()) return result;

  // A question asked about the old work (its verification, say) is not about the new: an answer
  // given to it must not approve what the plan does next time. Expired only once the marker
  // commit stands: a commit git refuses (a merge in progress) changes nothing, not even these.
  std::vector<std::pair<std::string, std::string>> to_expire; // checkpoint id, why
  for (const auto& cp : store::open_checkpoints(state_dir)) {
    if (cp.state != store::CheckpointState::open || !layout.owns_spec_trailer(cp.spec)) continue;
    const auto colon = cp.task.find(':');
    const std::string plan = colon == std::string::npos ? "" : cp.task.substr(colon + 1);
    const auto target = std::ranges::find_if(merged, [&](const RedoTarget& t) { return t.plan == plan; });
    const auto outcome = std::ranges::find_if(result.plans, [&](const RedoPlan& p) { return p.plan == plan; });
    if (target == merged.end() || outcome == result.plans.end() || outcome->nothing_to_do()) continue;
    to_expire.emplace_back(cp.id, fmt::format("{} runs again (harness-cli redo): the question was about its earlier work", plan));
  }

  // The progress documents go into the marker commit, unless they hold changes harness did not
  // commit (a person's edit, a killed run's last write): those are updated in place and left for
  // their author, as a run does.
  std::vector<worker::FileWrite> documents = progress_documents(spec, result.plans), theirs;
  if (!documents.empty()) {
    std::vector<std::string> paths;
    for (const auto& d : documents) paths.push_back(d.path);
    for (const auto& c : worker::changed_paths(root, paths))
      if (auto d = std::ranges::find(documents, c.path, &worker::FileWrite::path); d != documents.end()) {
        theirs.push_back(std::move(*d));
        documents.erase(d);
      }
  }
  std::string message = fmt::format("chore({}): run {} again\n\n", layout.spec_name, fmt::join(named, ", "));
  if (!note.empty()) message += std::string(note) + "\n\n";
  // A person's refusal of the work being undone is what the next worker must do differently: the
  // SUMMARY that records it goes, the marker keeps it (redo_note_of).
  for (const auto& p : result.plans)
    if (auto s = spec.summaries.find(p.plan); !p.nothing_to_do() && s != spec.summaries.end() && s->second.answer &&
                                              !s->second.answer->approved) {
      const auto& a = *s->second.answer;
      message += fmt::format("{} was refused by {}\n\n", p.plan, spec::answered_by(a));
    }
  message += fmt::format("{}\nSpec: {}\n", fmt::join(trailers, "\n"), layout.spec_trailer);
  // Nor did a person decide anything about the new work: its verification asks, unless its
  // executor asks again. Before the marker: a store that cannot forget the old question fails the
  // redo with nothing changed, where afterwards the new work would be approved unasked (review RR F2).
  const auto forgotten = forget_for_redo(spec, state_dir, result.plans);
  if (!forgotten)
    return std::unexpected(RunError{
        fmt::format("the state database could not record that the redone plans' new work is not approved ({}); nothing "
                    "changed: run the redo again once .orchestration/harness.db can be written",
                    forgotten.error()),
        1});
  auto hash = worker::commit_marker(root, state_dir / "git.lock", remove, message, documents);
  if (!hash) {
    restore_store(spec, *forgotten); // "nothing changed" holds for the store too (review TT M3)
    return std::unexpected(RunError{hash.error(), 1});
  }
  result.commit = *hash;
  for (const auto& [id, why] : to_expire) {
    store::expire_checkpoint(state_dir, id, why);
    result.expired.push_back(id);
  }
  for (const auto& d : documents) result.documents.push_back(d.path);
  for (const auto& d : theirs)
    if (util::write_file_atomic(root / d.path, d.text)) result.documents_uncommitted.push_back(d.path);
  return result;
}

std::string redo_note_of(std::string_view message, std::string_view plan) {
  std::vector<std::string_view> lines;
  for (std::size_t start = 0; start <= message.size();) {
    const auto nl = message.find('\n', start);
    lines.push_back(message.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start));
    if (nl == std::string_view::npos) break;
    start = nl + 1;
  }
  auto trailer = [](std::string_view l) { return l.starts_with("Redo: ") || l.starts_with("Spec: "); };
  auto others_refusal = [&](std::string_view l) { // "01-03 was refused by ...": another plan's work
    const auto at = l.find(" was refused by ");
    return at != std::string_view::npos && at > 0 && l.find(' ') == at && l.substr(0, at) != plan;
  };
  std::string out;
  for (std::size_t i = 1; i < lines.size(); ++i) { // the subject says only which plans
    if (trailer(lines[i]) || others_refusal(lines[i])) continue;
    const bool blank = util::trim_space(lines[i]).empty();
    if (blank && (out.empty() || out.ends_with("\n\n"))) continue; // one blank line between paragraphs
    out += std::string(lines[i]) + "\n";
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

std::string redo_text(const RedoResult& result, std::string_view spec_arg) {
  std::string out;
  for (const auto& w : result.stopped) out += fmt::format("stopped {}: a worker an earlier run left running\n", w);
  for (const auto& id : result.expired) out += fmt::format("expired checkpoint {}: it asked about the earlier work\n", id);
  for (const auto& p : result.plans) {
    if (p.nothing_to_do()) {
      out += fmt::format("{}: nothing to redo: it has no SUMMARY and no commit of {} stands; it runs at the next "
                         "orchestrate as it is\n",
                         p.plan, tasks_phrase(p.tasks));
      continue;
    }
    std::vector<std::string> hashes;
    for (const auto& [task, hash] : p.undone) hashes.push_back(fmt::format("task {} {}", task, short_hash(hash)));
    // Named tasks of a plan none of whose commits names a task: nothing says the others are done.
    const bool all = !p.tasks.empty() && p.no_task_commits && !p.summary.empty();
    out += fmt::format("{}: {} run{} again at the next orchestrate", p.plan, all ? "every task" : tasks_phrase(p.tasks),
                       p.tasks.size() > 1 && !all ? "" : "s");
    if (all)
      out += fmt::format(" (not only {}: no commit of {} carries a Task: trailer, as GSD's own commits do not, so none "
                         "of its tasks counts as done)",
                         tasks_phrase(p.tasks), p.plan);
    if (!hashes.empty()) out += fmt::format(" (earlier commits stay in history: {})", fmt::join(hashes, ", "));
    if (!p.summary.empty()) out += fmt::format("; removed {}", p.summary);
    out += "\n";
  }
  for (const auto& p : result.plans)
    if (!p.later_changes.empty())
      out += fmt::format("{}: its files changed after its commits, by {}: the tasks run on them as they are now, that "
                         "work included; look at what they make of it before the plans that build on it run (git revert "
                         "a task's commit instead undoes it without running it again)\n",
                         p.plan, fmt::join(p.later_changes, ", "));
  for (const auto& p : result.plans)
    if (!p.plan_file_uncommitted.empty())
      out += fmt::format("{}: its PLAN file has changes no commit holds ({}): the next run executes it as it is now; "
                         "commit it (git add {} && git commit) so that history holds the plan its work is made from\n",
                         p.plan, p.plan_file_uncommitted, util::quote_shell_word(p.plan_file_uncommitted));
  if (!result.documents.empty())
    out += fmt::format("updated {} to match\n", fmt::join(result.documents, " and "));
  for (const auto& d : result.documents_uncommitted)
    out += fmt::format("updated {} to match but did not commit it: it has changes harness did not commit (yours, or a "
                       "killed run's); commit it yourself\n",
                       d);
  if (!result.commit.empty())
    out += fmt::format("recorded in commit {}; next: harness-cli orchestrate {}\n", short_hash(result.commit), spec_arg);
  return out;
}

std::string redo_json(const RedoResult& result) {
  boost::json::array plans;
  for (const auto& p : result.plans) {
    boost::json::array undone;
    for (const auto& [task, hash] : p.undone) undone.push_back({{"task", task}, {"commit", hash}});
    boost::json::value tasks = "all";
    if (!p.tasks.empty()) {
      boost::json::array list;
      for (int t : p.tasks) list.push_back(t);
      tasks = std::move(list);
    }
    plans.push_back({{"plan", p.plan},
                     {"tasks", std::move(tasks)},
                     {"undone", std::move(undone)},
                     {"summary_removed", p.summary.empty() ? boost::json::value(nullptr) : boost::json::value(p.summary)},
                     {"nothing_to_do", p.nothing_to_do()},
                     {"later_changes", boost::json::array(p.later_changes.begin(), p.later_changes.end())},
                     {"plan_file_uncommitted", p.plan_file_uncommitted.empty() ? boost::json::value(nullptr)
                                                                               : boost::json::value(p.plan_file_uncommitted)}});
  }
  auto strings = [](const std::vector<std::string>& v) {
    boost::json::array a;
    for (const auto& s : v) a.emplace_back(s);
    return a;
  };
  boost::json::object o{{"commit", result.commit.empty() ? boost::json::value(nullptr) : boost::json::value(result.commit)},
                        {"plans", std::move(plans)},
                        {"stopped_workers", strings(result.stopped)},
                        {"expired_checkpoints", strings(result.expired)},
                        {"documents_updated", strings(result.documents)},
                        {"documents_uncommitted", strings(result.documents_uncommitted)}};
  return harness::util::json_text(o);
}

} // namespace harness::orchestrator
