// What a finished attempt must have left in git and the spec directory, and the records the run
// writes there (commits.log, the write-back commit).
#include "run_loop.hpp"

#include "harness/worker/file_lock.hpp"

#include <cstdlib>

namespace harness::orchestrator {

namespace {

/// The SUMMARY's errors on one line, as validate prints their first lines (no source, no caret).
std::string summary_errors(const std::vector<spec::Diagnostic>& diags) {
  constexpr std::size_t shown = 3;
  std::vector<std::string> lines;
  for (const auto& d : diags) {
    if (d.severity != spec::Severity::error) continue;
    const std::string r = spec::render(d);
    lines.push_back(r.substr(0, r.find('\n')));
  }
  std::string out;
  for (std::size_t i = 0; i < lines.size() && i < shown; ++i) out += (i ? "; " : "") + lines[i];
  if (lines.size() > shown) out += fmt::format("; and {} more", lines.size() - shown);
  return out;
}

} // namespace

/// Never trust a worker's word: an execute is done only with its SUMMARY and trailer commits.
std::string Orchestrator::Impl::check_artifacts(const Session& s, bool& deviations) {
  const auto* plan = plan_of(s.action);
  const auto* phase = plan ? spec.layout.find_phase(plan->phase) : nullptr;
  if (!plan || !phase) return "unknown plan " + s.action.subject;
  const fs::path summary_file = spec.layout.summary_file(*phase, plan->id);
  auto text = util::read_file(summary_file);
  if (!text) return "task reported done but wrote no SUMMARY (" + spec.layout.relative(summary_file) + ")";
  std::vector<spec::Diagnostic> diags;
  auto sum = spec::parse_summary(*text, spec.layout.relative(summary_file), diags, plan->id);
  // What validate would reject fails the attempt now, so the retry can fix it: read later, a
  // `status: done` or another plan's id would pass the task and then stop every command.
  if (spec::has_errors(diags)) return "task reported done but its SUMMARY does not validate: " + summary_errors(diags);
  deviations = sum.has_deviations;
  // Left by an earlier failed attempt (marked by discount_failed_summary) or written so by the
  // worker: either way not the SUMMARY of an execution that succeeded.
  if (sum.status == "failed")
    return "task reported done but its SUMMARY says status: failed (" + spec.layout.relative(summary_file) + "): write it again";
  // The index holds this worker's commits: on_exit's log_attempt_commits read them just now, and
  // only this plan's worker, gone, commits for it.
  const auto commits = trailers->commits_for(plan->id);
  // Unread is not absent: a git that failed (out of descriptors) says so, and the retry reads again.
  if (commits.empty() && !trailers->error().empty())
    return "task reported done but its commits could not be read: " + trailers->error();
  if (commits.empty()) return "task reported done but no commit carries 'Plan: " + plan->id + "'";
  // Plan ids repeat across specs: the Spec trailer says the commit is this spec's work.
  if (std::none_of(commits.begin(), commits.end(), [&](const auto& c) { return spec.layout.owns_spec_trailer(c.spec); }))
    return fmt::format("task reported done but no commit with 'Plan: {}' carries 'Spec: {}' (they carry 'Spec: {}')", plan->id,
                       spec.layout.spec_trailer, commits.back().spec.empty() ? "(none)" : commits.back().spec);
  return {};
}

/// A worker killed between writing its SUMMARY and committing it left the plan executed (its
/// tasks are committed) but the SUMMARY uncommitted; the resumed run does not run the plan
/// again, so it makes the commit the worker would have made.
void Orchestrator::Impl::commit_orphan_summaries() {
  const auto root = spec.layout.project_root;
  std::map<std::string, std::string> plan_of_summary; // relative path -> plan id
  std::vector<std::string> globs;
  std::error_code ec;
  for (const auto& [id, sum] : spec.summaries) {
    const auto* plan = spec.find_plan(id);
    const auto* phase = plan ? spec.layout.find_phase(plan->phase) : nullptr;
    if (!phase) continue;
    const auto rel = fs::relative(spec.layout.summary_file(*phase, id), root, ec).generic_string();
    plan_of_summary[rel] = id;
    globs.push_back(rel);
  }
  if (globs.empty()) return;
  bool committed = false;
  for (const auto& change : worker::changed_paths(root, globs)) {
    if (!change.untracked && !change.added) continue; // a committed SUMMARY we marked verified: the docs commit takes it
    auto it = plan_of_summary.find(change.path);
    if (it == plan_of_summary.end()) continue;
    const auto commits = trailers->commits_for(it->second);
    if (std::ranges::none_of(commits, [&](const auto& c) { return spec.layout.owns_spec_trailer(c.spec); })) continue;
    const auto msg = fmt::format("docs({}): summary\n\n{}", it->second, worker::plan_trailers(it->second, 0, 0, spec.layout.spec_trailer));
    // Said when git refuses: the plan would read as executed with its SUMMARY in no commit.
    if (auto r = worker::commit_paths(root, state_dir / "git.lock", {change.path}, msg); !r)
      emit(RunEventKind::note, "execute:" + it->second, -1, 0, fmt::format("could not commit {}: {}", change.path, r.error()));
    else if (!r->empty())
      committed = true;
  }
  if (committed) trailers->refresh();
}

void Orchestrator::Impl::discount_failed_summary(const std::string& task, const std::string& plan_id) {
  const fs::path file = summary_file_of(plan_id);
  std::error_code ec;
  if (file.empty() || !fs::exists(file, ec)) return;
  wrote({file}); // first: see run_verification
  auto marked = mark_summary_failed(file);
  record_write(file, marked ? std::expected<void, std::string>() : std::unexpected(marked.error()), task);
  if (!marked || !*marked) return;
  emit(RunEventKind::note, task, -1, 0,
       fmt::format("{} marked status: failed: a failed attempt's SUMMARY does not make the plan executed", spec.layout.relative(file)));
  reload_spec(); // STATUS.md and the phase's gates read the plan as not executed from now on
}

void Orchestrator::Impl::discount_reported_failures(const std::vector<std::string>& dead,
                                                    const std::vector<store::MessageRecord>& messages) {
  if (dead.empty() || !db) return;
  const std::set<std::string> gone(dead.begin(), dead.end());
  std::set<std::string> failed; // sessions whose worker reported task_failed
  for (const auto& m : messages)
    if (m.type == "task_failed" && gone.contains(m.session_id)) failed.insert(m.session_id);
  for (const auto& sid : failed) {
    auto rec = db->session(sid);
    if (!rec || !*rec || !(*rec)->task_id.starts_with("execute:") || !spec.layout.owns_spec_trailer((*rec)->spec)) continue;
    discount_failed_summary((*rec)->task_id, (*rec)->task_id.substr(std::string_view("execute:").size()));
  }
}

/// commits.log lines a killed run never wrote: every trailer commit of this spec is logged.
void Orchestrator::Impl::recover_commits_log() {
  commits_log_known = util::read_file(spec.layout.commits_log).value_or("");
  std::vector<std::string> plans;
  for (const auto& p : spec.plans) plans.push_back(p.id);
  log_trailer_commits(plans, "recovered", "");
}

/// Whatever the worker says it committed (the script worker in result.json, an agent in its
/// task_completed, or nothing), git is the record: the plan's trailer commits this log lacks are
/// its attempt's, task commits and SUMMARY commit alike.
void Orchestrator::Impl::log_attempt_commits(const Session& s) {
  if (s.action.kind != TaskKind::execute && s.action.kind != TaskKind::reconcile) return;
  const auto* plan = plan_of(s.action);
  if (!plan || !trailers) return;
  trailers->refresh();
  log_trailer_commits({plan->id}, s.id, s.action.task);
}

void Orchestrator::Impl::log_trailer_commits(const std::vector<std::string>& plans, std::string_view label,
                                             const std::string& task) {
  std::vector<std::pair<std::string, std::string>> commits;
  for (const auto& id : plans)
    for (const auto& c : trailers->commits_for(id))
      if (spec.layout.owns_spec_trailer(c.spec)) commits.emplace_back(c.hash, id);
  if (commits.empty()) return;
  // One read per call (this runs at every task's end, and the log grows with the run).
  auto log = util::read_file(spec.layout.commits_log).value_or("");
  keep_commits_log_whole(log); // else the lines lost would count as missing, and get this label
  const auto lines = missing_commit_lines(log, commits, label);
  if (!lines.empty()) wrote({spec.layout.commits_log}); // first: see run_verification
  const auto appended = append_commits_log(spec.layout.commits_log, lines);
  if (appended && !lines.empty() && commits_log_known && log.starts_with(*commits_log_known)) {
    if (log.size() != commits_log_known->size()) commits_log_known = std::move(log); // lines someone else added
    for (const auto& l : lines) commits_log_known->append(l).append("\n");
  }
  record_write(spec.layout.commits_log, appended, task);
}

void Orchestrator::Impl::keep_commits_log_whole() {
  auto now = util::read_file(spec.layout.commits_log).value_or("");
  keep_commits_log_whole(now);
}

void Orchestrator::Impl::keep_commits_log_whole(std::string& now) {
  if (!commits_log_known) return;
  const auto& log = spec.layout.commits_log;
  auto whole = whole_commits_log(*commits_log_known, now);
  if (!whole) return;
  wrote({log});
  const auto written = util::write_file_atomic(log, *whole);
  record_write(log, written, "");
  if (!written) return;
  commits_log_known = *whole;
  now = std::move(*whole);
  emit(RunEventKind::note, "", -1, 0,
       fmt::format("{} lost lines this run had written (removed while uncommitted, a `git clean` say): written whole "
                   "again",
                   spec.layout.relative(log)));
}

/// Whether a finished script execute ran any task, from its session's result.json (the script
/// worker writes one); its commits are logged from git (log_attempt_commits), not from here.
void Orchestrator::Impl::record_result(const Session& s) {
  ran_nothing.erase(s.action.subject);
  auto text = util::read_file(s.dir / "result.json");
  if (!text) return;
  boost::system::error_code ec;
  auto j = boost::json::parse(*text, ec);
  if (ec || !j.is_object()) return;
  const auto& o = j.as_object();
  // A script execute that found every task committed changed nothing.
  const auto* run = o.if_contains("tasksRun");
  const auto* skipped = o.if_contains("tasksSkipped");
  if (s.action.kind == TaskKind::execute && run && skipped && run->is_int64() && skipped->is_int64() &&
      run->as_int64() == 0 && skipped->as_int64() > 0)
    ran_nothing[s.action.subject] = static_cast<int>(skipped->as_int64());
}

void Orchestrator::Impl::note_ignored_outputs(const Session& s) {
  const auto* plan = plan_of(s.action);
  if (!plan || plan->tasks.empty() || plan->files_modified.empty() || !trailers) return;
  const int tasks = static_cast<int>(plan->tasks.size());
  std::set<int> committed; // a task committed twice (a retry of a partial attempt) counts once
  for (const auto& [task, hash] : trailers->standing_tasks(plan->id, ours())) committed.insert(task);
  const int uncommitted = tasks - static_cast<int>(committed.size());
  if (uncommitted <= 0) return;
  // Changed by this attempt: an ignored file that was there before (a build's output) is not its work.
  const auto since = fs::file_time_type::clock::now() - (std::chrono::steady_clock::now() - s.started) - std::chrono::seconds(1);
  std::vector<std::string> ignored;
  for (auto& path : worker::ignored_paths(spec.layout.project_root, plan->files_modified)) {
    std::error_code ec;
    const auto written = fs::last_write_time(spec.layout.project_root / path, ec);
    if (!ec && written >= since) ignored.push_back(std::move(path));
  }
  const auto rule = ignored.empty() ? std::string() : worker::ignore_rule(spec.layout.project_root, ignored.front());
  if (auto note = ignored_outputs_note(plan->id, ignored, rule, uncommitted, tasks); !note.empty())
    emit(RunEventKind::note, s.action.task, s.action.slot, s.action.attempt, std::move(note));
}

/// The orchestrator's own writes into the spec directory (verification marks, VERIFICATION,
/// STATUS, ROADMAP, commits.log) become one commit, so the record is in the history too. Only
/// those: a user editing SPEC.md while the run goes on keeps that edit to commit.
void Orchestrator::Impl::commit_writeback(const std::string& what, const fs::path& only) {
  if (head_moved()) return; // the commit would go to a branch the run did not start on
  if (only.empty()) keep_commits_log_whole();
  const auto root = spec.layout.project_root;
  std::error_code ec;
  // What a live worker is writing is its to commit (a SUMMARY with its trailers, a research
  // file): sweeping it into this commit would take it from under the worker. So is the report of
  // a verification still running in the pool: not written yet, it would look unchanged here and
  // leave the list below, and its own end would then have nothing to commit.
  std::set<std::string> theirs;
  for (const auto& [sid, s] : sessions) {
    if (const auto report = report_file(s.action); !report.empty()) {
      theirs.insert(fs::relative(report, root, ec).generic_string());
      continue;
    }
    if (!host || !host->has_process(sid)) continue;
    const auto* plan = plan_of(s.action);
    const auto* phase = plan ? spec.layout.find_phase(plan->phase) : nullptr;
    if (phase && (s.action.kind == TaskKind::execute || s.action.kind == TaskKind::reconcile))
      theirs.insert(fs::relative(spec.layout.summary_file(*phase, plan->id), root, ec).generic_string());
    if (auto n = spec::parse_phase_number(s.action.subject); n && s.action.kind == TaskKind::research)
      theirs.insert(fs::relative(spec.layout.research_file(*n), root, ec).generic_string());
  }
  std::vector<std::string> paths;
  if (!only.empty()) {
    const std::string only_rel = fs::relative(only, root, ec).generic_string();
    // The folder as a literal pathspec, so that git looks under it only (a whole-tree status lists
    // every untracked file of a large repository) and reads no pattern or magic in its name.
    for (const auto& c : worker::changed_paths(root, {worker::literal_pathspec(only_rel)}))
      if ((c.path == only_rel || c.path.starts_with(only_rel + "/")) && !theirs.contains(c.path)) paths.push_back(c.path);
  } else {
    if (own_writes.empty()) return;
    // The paths as pathspecs: git looks at these files only, not the whole tree.
    const std::vector<std::string> mine(own_writes.begin(), own_writes.end());
    paths = writeback_paths(worker::changed_paths(root, mine), own_writes, theirs);
  }
  auto r = worker::commit_paths(root, state_dir / "git.lock", paths,
                                fmt::format("docs({}): {}\n\nSpec: {}\n", spec.layout.spec_name, what, spec.layout.spec_trailer));
  if (!r) {
    for (const auto& p : paths) failed_commits[p] = r.error();
    return emit(RunEventKind::note, "", -1, 0, "could not commit the spec directory: " + r.error());
  }
  for (const auto& p : paths) failed_commits.erase(p);
  if (!only.empty()) return;
  // Committed now, or unchanged: either way nothing of ours is left to commit but a live worker's.
  const auto before = own_writes.size();
  std::erase_if(own_writes, [&](const std::string& p) { return !theirs.contains(p); });
  if (own_writes.size() != before) save_own_writes();
}

void Orchestrator::Impl::commit_writeback_when_free(std::string what) {
  if (done) return; // the run's end commits what is left
  // Workers' commits queue on the same lock, each up to a few hundred milliseconds in a repository
  // of 100,000 files: waiting behind them here would hold every slot's messages, the display and
  // Ctrl-C. So wait on a timer while it is taken; the commit itself waits for one at most (a
  // worker's that took the lock between this look and it).
  if (worker::FileLock::held(state_dir / "git.lock"))
    return run_after(std::chrono::milliseconds(50), [this, what = std::move(what)]() mutable {
      commit_writeback_when_free(std::move(what));
    });
  commit_writeback(what);
}

void Orchestrator::Impl::wrote(std::initializer_list<fs::path> files) {
  bool added = false;
  std::error_code ec;
  for (const auto& f : files) {
    auto rel = fs::relative(f, spec.layout.project_root, ec).generic_string();
    if (!ec && !rel.empty() && !rel.starts_with("..")) added |= own_writes.insert(std::move(rel)).second;
  }
  if (added) save_own_writes();
}

void Orchestrator::Impl::record_write(const fs::path& file, const std::expected<void, std::string>& written,
                                      const std::string& task) {
  std::error_code ec;
  const auto rel = fs::relative(file, spec.layout.project_root, ec).generic_string();
  if (written) {
    failed_writes.erase(rel);
    return;
  }
  // The file is named beside its reason: a reason that names it too ("<path>: write: No space
  // left on device", write_file_atomic's) would set it apart from the other files that failed alike.
  std::string why = written.error();
  if (const auto own = file.string() + ": "; why.starts_with(own)) why.erase(0, own.size());
  // STATUS.md is written again at every phase: on a full disk one note is enough, until a write
  // of it goes through again. The end of the run names the last reason.
  if (auto [it, added] = failed_writes.insert_or_assign(rel, why); !added) return;
  emit(RunEventKind::note, task, -1, 0, fmt::format("could not write {}: {}", rel, why));
}

void Orchestrator::Impl::store_failed(const std::string& task, std::string message) {
  if (store_error.empty()) store_error = message;
  // Once each: on a full disk every task's record failed alike, and the note came 10-20 times a
  // run (review II F9); run_finished names the store among what was not written.
  if (!store_notes_said.insert(task + '\n' + message).second) return;
  emit(RunEventKind::note, task, -1, 0, std::move(message));
}

std::vector<UnwrittenDocument> Orchestrator::Impl::unwritten_documents() {
  std::vector<UnwrittenDocument> out;
  for (const auto& [file, why] : failed_writes) out.push_back({file, UnwrittenDocument::Step::write, why});
  if (!store_error.empty()) out.push_back({".orchestration/harness.db", UnwrittenDocument::Step::write, store_error});
  if (failed_commits.empty()) return out;
  std::vector<std::string> files;
  for (const auto& [file, why] : failed_commits) files.push_back(file);
  std::set<std::string> still;
  for (const auto& c : worker::changed_paths(spec.layout.project_root, files)) still.insert(c.path);
  for (const auto& [file, why] : failed_commits)
    if (still.contains(file)) out.push_back({file, UnwrittenDocument::Step::commit, why});
  return out;
}

void Orchestrator::Impl::load_own_writes() {
  if (!db) return;
  auto entries = db->values();
  if (!entries) return;
  const auto key = uncommitted_writes_key(spec.layout.spec_name);
  for (const auto& [k, v] : *entries)
    if (k == key) own_writes = decode_paths(v);
}

void Orchestrator::Impl::load_executor_asked() {
  if (!db) return;
  auto entries = db->values();
  if (!entries) return;
  const auto key = executor_asked_key(spec.layout.spec_name);
  for (const auto& [k, v] : *entries)
    if (k == key) executor_asked = decode_paths(v);
}

void Orchestrator::Impl::note_executor_asked(const std::string& plan) {
  if (!executor_asked.insert(plan).second || !db) return;
  if (auto r = db->set_value(executor_asked_key(spec.layout.spec_name), encode_paths(executor_asked)); !r)
    emit(RunEventKind::note, "execute:" + plan, -1, 0, "could not record that the executor asked: " + r.error());
}

void Orchestrator::Impl::take_over_unrecorded_writes(std::size_t unrecorded_sessions) {
  if (!db) return;
  auto entries = db->values();
  if (!entries) return;
  int upgraded_from = 0;
  std::set<std::string> taken;
  for (const auto& [k, v] : *entries) {
    if (k == store::upgraded_from_key) upgraded_from = std::atoi(v.c_str());
    if (k == unrecorded_writes_taken_key()) taken = decode_paths(v);
  }
  // A store upgraded from before the list, or none at all beside an older harness's session
  // directories (one that kept no store): either way nothing lists what that harness wrote.
  const bool older = (upgraded_from > 0 && upgraded_from < first_schema_recording_writes) || unrecorded_sessions > 0;
  if (!older || taken.contains(spec.layout.spec_name)) return;
  const auto found = unrecorded_writes(spec, worker::changed_paths(spec.layout.project_root, orchestrator_documents(spec)));
  const auto before = own_writes.size();
  own_writes.insert(found.begin(), found.end());
  if (own_writes.size() != before) save_own_writes(); // listed before the mark below: a kill in between loses nothing
  taken.insert(spec.layout.spec_name);
  if (auto r = db->set_value(unrecorded_writes_taken_key(), encode_paths(taken)); !r)
    store_failed("", "could not record the files to commit: " + r.error());
  if (found.empty()) return;
  emit(RunEventKind::note, "", -1, 0,
       fmt::format("{} document{} an older harness's run wrote and never committed ({}{}) {} committed by this run",
                   found.size(), found.size() == 1 ? "" : "s", spec.layout.relative(spec.layout.project_root / *found.begin()),
                   found.size() == 1 ? "" : ", ...", found.size() == 1 ? "is" : "are"));
}

void Orchestrator::Impl::save_own_writes() {
  if (!db) return;
  const auto key = uncommitted_writes_key(spec.layout.spec_name);
  auto r = own_writes.empty() ? db->erase_value(key) : db->set_value(key, encode_paths(own_writes));
  if (!r) store_failed("", "could not record the files to commit: " + r.error());
}

std::string Orchestrator::Impl::undo_forbidden_plan_changes(const Session& s) {
  if (!s.guard_plans) return {};
  const fs::path& root = spec.layout.project_root;
  auto bad = forbidden_plan_changes(s.action.kind, s.action.subject, s.plans_before, root);
  // Not this task's doing (review TT H1): a file another task still running may change (its own
  // end judges it). A change committed meanwhile is no excuse: an agent could commit its own
  // forbidden edit (review UU H1); git keeps that commit, and the work tree is put back.
  std::erase_if(bad, [&](const std::string& f) {
    const auto& was = s.plans_before.at(f);
    return std::ranges::any_of(sessions, [&](const auto& kv) {
      const auto& other = kv.second;
      return kv.first != s.id && other.guard_plans &&
             may_change_plan(other.action.kind, other.action.subject, was.plan, was.phase);
    });
  });
  std::string said;
  if (!bad.empty()) {
    const bool one = bad.size() == 1;
    const std::string names = fmt::format("{}", fmt::join(bad, ", "));
    auto where = put_back_plans(spec.layout, bad, s.plans_before);
    reload_spec();
    said = where ? fmt::format("it changed {} ({}): put back as {} when it started, its version kept in {}", names,
                               plan_change_rule(s.action.kind), one ? "it was" : "they were", *where)
                 : fmt::format("it changed {} ({}), which could not be put back: {}; restore {} (git restore)", names,
                               plan_change_rule(s.action.kind), where.error(), one ? "it" : "them");
  }
  // What this task was free to change is, for the tasks still running, how the file now stands:
  // their ends compare with it, not with the text they started with.
  for (auto& [id, other] : sessions) {
    if (id == s.id || !other.guard_plans) continue;
    for (auto it = other.plans_before.begin(); it != other.plans_before.end();) {
      if (!may_change_plan(s.action.kind, s.action.subject, it->second.plan, it->second.phase)) {
        ++it;
        continue;
      }
      if (auto now = util::read_file(root / it->first)) (it++)->second.text = std::move(*now);
      else it = other.plans_before.erase(it); // removed by it (a revision pass dropped the plan)
    }
  }
  return said;
}

void Orchestrator::Impl::note_reconciled(const std::string& plan, bool now) {
  if (!db || reconciled.contains(plan) == now) return;
  if (now) reconciled.insert(plan);
  else reconciled.erase(plan);
  const auto key = reconciled_key(spec.layout.spec_name);
  auto r = reconciled.empty() ? db->erase_value(key) : db->set_value(key, encode_paths(reconciled));
  if (!r) store_failed("reconcile:" + plan, "could not record the reconciled plans: " + r.error());
}

void Orchestrator::Impl::save_loop_rounds(const std::string& phase) {
  const auto n = spec::parse_phase_number(phase);
  if (!db || !n) return;
  const auto rounds = scheduler->loop_rounds(*n);
  const auto saved = saved_loop_rounds.find(phase);
  if (saved == saved_loop_rounds.end() ? rounds == std::pair{0, 0} : saved->second == rounds) return;
  const auto key = loop_rounds_key(spec.layout.spec_name, phase);
  auto r = rounds == std::pair{0, 0} ? db->erase_value(key) : db->set_value(key, loop_rounds_value(rounds));
  if (!r) return store_failed("", "could not record phase " + phase + "'s planning rounds: " + r.error());
  saved_loop_rounds[phase] = rounds;
}

/// A planner is done when its plans are on disk and parse; a checker's verdict comes from its
/// report and the engine's own checks of the phase's plans.
void Orchestrator::Impl::finish_planning(const std::string& sid) {
  auto it = sessions.find(sid);
  if (it == sessions.end()) return;
  const sched::Action a = it->second.action;
  const bool script = it->second.adapter == worker::AdapterKind::script;
  reload_spec();
  auto known = [this](const std::string& id) { return scheduler->find_task("execute:" + id) != nullptr; };
  auto r = planning_event(spec, a, known, it->second.report, script ? VerdictFrom::engine : VerdictFrom::worker);
  if (!r) {
    std::string why = r.error();
    if (script) why += fmt::format("; the script worker does not plan: write them (/harness:plan-phase {} {}) and run again",
                       spec_arg(), a.subject);
    end_session(sid, why, false);
    // The script worker does the same on a second attempt: the plans on disk decide, and they
    // have not changed.
    return fail(a.task, script ? sched::FailureClass::no_retry : sched::FailureClass::crashed, why);
  }
  std::string outcome;
  if (a.kind == TaskKind::check_plans) {
    const bool revise = r->event.verdict == sched::Verdict::revise;
    if (revise) revision_findings[a.subject] = r->findings;
    else revision_findings.erase(a.subject);
    outcome = revise ? "revise: " + r->event.detail : script ? "pass (the engine's checks of the plans)" : "pass";
  } else {
    const auto count = r->event.plans.size();
    outcome = fmt::format("{} {}plan{} in the graph", count, a.kind == TaskKind::plan_gaps ? "new " : "", count == 1 ? "" : "s");
    // The plans go into the history now: a run killed later resumes from them, and has only to
    // check them.
    commit_writeback(fmt::format("plan phase {}", a.subject), phase_plans_dir(spec, *spec::parse_phase_number(a.subject)));
    if (a.kind == TaskKind::plan && planning_marked.contains(a.subject)) mark_planning(a.subject, PlanningStage::written);
  }
  end_session(sid, outcome);
  feed(r->event);
}

/// A phase a killed run was planning has plans on disk that no checker passed: the planner runs
/// again over them and the checker after it, or only the checker when the planner had finished.
/// Not with the script worker, which cannot plan: its run takes half-written plans as they are
/// on disk and says so.
void Orchestrator::Impl::apply_planning_marks(sched::Workload& w) {
  if (!db) return;
  auto entries = db->values();
  if (!entries) return;
  // Plans an earlier run reconciled that have not executed since: not reconciled again (review SS M3).
  for (const auto& [k, v] : *entries)
    if (k == reconciled_key(spec.layout.spec_name)) reconciled = decode_paths(v);
  for (const auto& id : std::set<std::string>(reconciled)) // a plan removed since: a new one of its id is another plan
    if (!spec.find_plan(id)) note_reconciled(id, false);
  for (auto& p : w.plans) p.reconciled = !p.executed && reconciled.contains(p.id);
  // The rounds earlier runs spent: the loops' bounds count per phase, not per run (review SS H3).
  for (const auto& [phase, rounds] : stored_loop_rounds(*entries, spec.layout.spec_name)) {
    saved_loop_rounds[phase] = rounds;
    auto n = spec::parse_phase_number(phase);
    // A phase without plans now is planned from scratch (a person removed them): a new cycle.
    if (auto it = n ? std::ranges::find(w.phases, *n, &sched::WorkPhase::number) : w.phases.end();
        it != w.phases.end() && it->plans_exist)
      std::tie(it->revisions, it->gap_rounds) = rounds;
  }
  const bool can_plan = adapter_for(TaskKind::plan) != worker::AdapterKind::script;
  for (const auto& [phase, stage] : unfinished_planning(*entries, spec.layout.spec_name)) {
    auto n = spec::parse_phase_number(phase);
    auto it = n ? std::ranges::find(w.phases, *n, &sched::WorkPhase::number) : w.phases.end();
    if (it == w.phases.end() || !it->plans_exist || it->verified) {
      (void)db->erase_value(planning_mark_key(spec.layout.spec_name, phase)); // nothing left to finish
      continue;
    }
    if (stage == PlanningStage::written) {
      it->plans_unchecked = true;
      planning_marked.insert(phase);
      emit(RunEventKind::note, "", -1, 0,
           fmt::format("phase {}'s plans were written but never checked: they are checked before any of them runs", phase));
      continue;
    }
    if (!can_plan) {
      // This run executes them as they are: they wait on no check any more (status reads the mark).
      (void)db->erase_value(planning_mark_key(spec.layout.spec_name, phase));
      emit(RunEventKind::note, "", -1, 0,
           fmt::format("phase {}'s planning was interrupted; the script worker cannot finish it: its plans run as they "
                       "are on disk",
                       phase));
      continue;
    }
    it->planning_unfinished = true;
    planning_marked.insert(phase);
    emit(RunEventKind::note, "", -1, 0,
         fmt::format("phase {}'s planning was interrupted: it is planned again over the plans already written, and "
                     "checked, before any of them runs",
                     phase));
  }
}

void Orchestrator::Impl::mark_planning(const std::string& phase, PlanningStage stage) {
  if (!db) return;
  planning_marked.insert(phase);
  if (auto r = db->set_value(planning_mark_key(spec.layout.spec_name, phase), planning_mark_value(stage)); !r)
    emit(RunEventKind::note, "plan:" + phase, -1, 0, "could not record the planning's progress: " + r.error());
}

void Orchestrator::Impl::clear_checked_planning() {
  for (auto it = planning_marked.begin(); it != planning_marked.end();) {
    const auto* check = scheduler->find_task("check-plans:" + *it);
    if (check && check->state != sched::TaskState::done && check->state != sched::TaskState::dropped) {
      ++it;
      continue;
    }
    if (db) (void)db->erase_value(planning_mark_key(spec.layout.spec_name, *it));
    it = planning_marked.erase(it);
  }
}

} // namespace harness::orchestrator
