// The run's progress documents (STATUS.md, the ROADMAP's progress), kept current while tasks end,
// and the notes a run gives about the state it found or leaves: validation warnings, files
// changed beside it, commits no plan owns.
#include "run_loop.hpp"

#include "harness/util/atomic_file.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <set>

namespace harness::orchestrator {

void Orchestrator::Impl::reload_spec() {
  if (auto s = spec::load_spec(opt.spec_dir)) {
    loop_spec.replace(std::move(*s));
    summaries_written.clear();
  }
}

void Orchestrator::Impl::write_progress(bool running) {
  // This run's blocked tasks replace what the previous run left in STATUS.md.
  loop_spec.edit([&](spec::Spec& s) { s.status = spec::StatusDocument{s.layout.relative(s.layout.status_md), blocked_tasks}; });
  auto progress = graph::compute_progress(spec, graph::build_plan_graph(spec.plans), opt.sched.gate_lookahead);
  std::vector<spec::PhaseNumber> unchecked; // as `status` reads them from the store
  for (const auto& phase : planning_marked)
    if (auto n = spec::parse_phase_number(phase)) unchecked.push_back(*n);
  graph::mark_unchecked(progress, unchecked);
  std::vector<std::string> asking;
  for (const auto& [id, cp] : checkpoints) asking.push_back(cp.task);
  graph::mark_awaiting_answer(progress, asking);
  const std::string state = running ? "running" : summary.outcome;
  // Recorded before they are written (see run_verification); an unchanged one is not committed.
  wrote({spec.layout.status_md});
  record_write(spec.layout.status_md, util::write_file_atomic(spec.layout.status_md, render_status_md(progress, state, blocked_tasks)));
  roadmap_doc.kept = spec.roadmap.has_value(); // a ROADMAP written during the run counts from then on
  keep_document(roadmap_doc, spec.layout.roadmap_md,
                [&] { return update_roadmap(spec, progress, roadmap_minutes_before + execute_minutes, running); });
  keep_document(requirements_doc, spec.layout.requirements_md, [&] { return update_requirements(spec, progress); });
}

void Orchestrator::Impl::keep_document(KeptDocument& doc, const fs::path& path,
                                       const std::function<std::expected<DocumentWrite, std::string>()>& update) {
  if (!doc.kept) return;
  if (!doc.theirs) wrote({path});
  auto r = update();
  if (!r) return;
  // Edited since this run last wrote it: by a person, whose edit is theirs to commit (the update
  // kept it; the commit must not take it).
  if (doc.written && r->before != *doc.written) note_theirs(doc, path);
  record_write(path, r->write_error.empty() ? std::expected<void, std::string>() : std::unexpected(r->write_error));
  doc.written = std::move(r->write_error.empty() ? r->after : r->before); // what the file holds
}

void Orchestrator::Impl::refresh_status_soon(const std::string& task) {
  if (const auto* t = scheduler->find_task(task); t && (t->kind == TaskKind::execute || t->kind == TaskKind::verify_plan))
    summaries_written.insert(t->subject);
  if (status_refresh_due || done) return;
  status_refresh_due = true;
  status_timer.expires_after(opt.status_refresh);
  status_timer.async_wait([this](boost::system::error_code e) {
    status_refresh_due = false;
    // On another branch the file would be written there (see finish_run).
    if (e || done || head_moved()) return;
    // Only the SUMMARYs the ended tasks wrote: everything else the run writes (plans, phase
    // reports, failure marks) or notices (PLAN edits) reads the whole spec again where it
    // happens, and a whole read costs about 1 ms per plan of a large spec at every refresh.
    loop_spec.edit([&](spec::Spec& s) { spec::reload_summaries(s, summaries_written); });
    summaries_written.clear();
    write_progress(true);
  });
}

void Orchestrator::Impl::adopt_kept_document(KeptDocument& doc, const fs::path& path) {
  if (!doc.kept) return;
  std::error_code ec;
  const auto rel = fs::relative(path, spec.layout.project_root, ec).generic_string();
  // Changed, and not by a run of ours that was killed before committing it: the user's edit.
  if (!own_writes.contains(rel) && std::ranges::any_of(*changes_at_start, [&](const worker::GitChange& c) { return c.path == rel; }))
    note_theirs(doc, path);
  else // what it holds now is committed or ours: any change before our first write is someone's
    doc.written = util::read_file(path).value_or("");
}

void Orchestrator::Impl::note_theirs(KeptDocument& doc, const fs::path& path) {
  if (doc.theirs) return;
  doc.theirs = true;
  std::error_code ec;
  const auto rel = fs::relative(path, spec.layout.project_root, ec).generic_string();
  if (own_writes.erase(rel)) save_own_writes();
  // A file no commit holds has no "edits": it is all the user's to commit.
  const bool uncommitted = changes_at_start && std::ranges::any_of(*changes_at_start, [&](const worker::GitChange& c) {
                             return c.path == rel && (c.untracked || c.added);
                           });
  emit(RunEventKind::note, "", -1, 0,
       fmt::format("{} {}: it keeps updating its progress there but does not commit the file; commit it yourself ({})",
                   spec.layout.relative(path),
                   uncommitted ? "is not committed" : "has uncommitted edits harness did not make",
                   uncommitted ? "with the progress in it" : "those edits and the progress together"));
}

/// Uncommitted edits in files a pending plan writes would go into that plan's commit: say so
/// before any worker runs (the run goes on; the user may stop it and commit or stash first).
/// A warning of the spec (an ignored key, a dependency on a later phase) is shown at every run,
/// not only by `validate`: the run acts on the plans as parsed, without what was ignored.
void Orchestrator::Impl::warn_about_validation() {
  std::size_t shown = 0, warnings = 0;
  for (const auto& d : spec.diagnostics) {
    if (d.severity != spec::Severity::warning) continue;
    if (++warnings > 10) continue;
    const std::string text = spec::render(d);
    emit(RunEventKind::note, "", -1, 0, text.substr(0, text.find('\n')));
    ++shown;
  }
  if (warnings > shown)
    emit(RunEventKind::note, "", -1, 0,
         fmt::format("and {} more warnings: harness-cli validate {}", warnings - shown, spec_arg()));
}

void Orchestrator::Impl::warn_about_dirty_files() {
  // One look at the whole tree (run() takes it before the workload): it also is the baseline of
  // warn_about_undeclared_changes().
  if (!changes_at_start) changes_at_start = worker::changed_paths(spec.layout.project_root);
  config_at_start = util::read_file(state_dir / "config.yaml").value_or("");
  if (auto note = uncommitted_spec_note(spec, *changes_at_start); !note.empty()) emit(RunEventKind::note, "", -1, 0, std::move(note));
  if (auto note = edited_plans_note(spec, *changes_at_start); !note.empty()) emit(RunEventKind::note, "", -1, 0, std::move(note));
  roadmap_doc.kept = spec.roadmap.has_value();
  // Requirements' marks: GSD's checklist and traceability table (GSD reads them back), and the
  // status column of harness's template (review OO F7: the template had one, never ticked).
  std::error_code ec;
  requirements_doc.kept = fs::is_regular_file(spec.layout.requirements_md, ec) &&
                          std::ranges::any_of(spec.plans, [](const spec::Plan& p) { return !p.requirements.empty(); });
  adopt_kept_document(roadmap_doc, spec.layout.roadmap_md);
  adopt_kept_document(requirements_doc, spec.layout.requirements_md);
  roadmap_minutes_before = roadmap_minutes(spec);
  const auto dirty = dirty_declared_files(spec, *changes_at_start);
  // A plan an earlier run already tried (a killed run's worker stopped before its commit): its
  // files hold that attempt's unfinished work, which the plan's next attempt resets.
  std::map<std::string, bool> tried;
  auto attempted = [&](const std::string& plan_id) {
    auto [it, added] = tried.try_emplace(plan_id, false);
    if (added && db)
      it->second = db->has_session_for_task("execute:" + plan_id, spec.layout.spec_name).value_or(false);
    return it->second;
  };
  for (std::size_t i = 0; i < dirty.size() && i < 10; ++i)
    emit(RunEventKind::note, "execute:" + dirty[i].plan_id, -1, 0,
         attempted(dirty[i].plan_id)
             ? fmt::format("{} has uncommitted changes an earlier attempt of plan {} left (it ended before its "
                           "commit): not finished work, so do not commit them as they are; the plan's next attempt "
                           "resets the file (a copy goes to .orchestration/discarded/)",
                           dirty[i].path, dirty[i].plan_id)
             : fmt::format("{} has uncommitted changes and plan {} writes it: its commit will include them, and a "
                           "retry resets the file (a copy goes to .orchestration/discarded/); commit or stash them "
                           "first to keep them apart",
                           dirty[i].path, dirty[i].plan_id));
  if (dirty.size() > 10)
    emit(RunEventKind::note, "", -1, 0, fmt::format("and {} more files with uncommitted changes that plans write", dirty.size() - 10));
}

/// Workers commit only the files their plan declares: what else changed during the run stays
/// uncommitted, and the run says so rather than leave it to be found later.
void Orchestrator::Impl::warn_about_undeclared_changes() {
  if (!changes_at_start) return; // the run never got as far as its start
  warn_about_untrailed_commits();
  if (util::read_file(state_dir / "config.yaml").value_or("") != config_at_start)
    emit(RunEventKind::note, "", -1, 0,
         ".orchestration/config.yaml changed during the run (by you, or by a worker: workers run as you): the next run "
         "reads it, and its adapters and commands choose what that run starts: look at it first (git does not track it)");
  const auto now = worker::changed_paths(spec.layout.project_root);
  // PLAN files added during the run (taken by it, or left for the next): what the start's note
  // says of those already there.
  std::set<std::string> before;
  for (const auto& c : *changes_at_start) before.insert(c.path);
  std::vector<worker::GitChange> since;
  std::ranges::copy_if(now, std::back_inserter(since), [&](const worker::GitChange& c) { return !before.contains(c.path); });
  if (auto note = uncommitted_spec_note(spec, since); !note.empty())
    emit(RunEventKind::note, "", -1, 0, "added during the run: " + std::move(note));
  const auto undeclared = undeclared_changes(spec, *changes_at_start, now);
  if (undeclared.empty()) return;
  std::string names;
  for (std::size_t i = 0; i < undeclared.size() && i < 10; ++i) names += (i ? ", " : "") + undeclared[i];
  if (undeclared.size() > 10) names += fmt::format(" and {} more", undeclared.size() - 10);
  emit(RunEventKind::note, "", -1, 0,
       fmt::format("changed during the run, declared by no plan's files_modified, left uncommitted: {} (a plan wrote "
                   "outside its files_modified, or someone edited meanwhile: git status shows them)",
                   names));
}

/// A worker that commits on its own without the trailers (`git add -A && git commit`) leaves work
/// no plan owns, in files no plan may declare; the commit is already made, so the run names it.
void Orchestrator::Impl::warn_about_untrailed_commits() {
  if (!trailers) return;
  trailers->refresh();
  const auto commits = trailers->untrailed();
  for (std::size_t i = 0; i < commits.size() && i < 5; ++i) {
    const auto& c = commits[i];
    std::string files;
    std::set<std::string> owners; // whose declared files it took: their task commits may lack them
    for (std::size_t k = 0; k < c.files.size(); ++k) {
      const auto declaring = spec::plans_declaring(spec, c.files[k]);
      if (k < 5) files += (k ? ", " : "") + c.files[k] + (declaring.empty() ? "" : fmt::format(" ({}'s)", fmt::join(declaring, "'s, ")));
      owners.insert(declaring.begin(), declaring.end());
    }
    if (c.files.size() > 5) files += fmt::format(" and {} more", c.files.size() - 5);
    emit(RunEventKind::note, "", -1, 0,
         fmt::format("commit {} '{}' was made during the run without Plan:/Spec: trailers (a worker's own commit, or "
                     "someone else's): no plan owns it{}{}",
                     c.hash.substr(0, 10), c.subject, files.empty() ? std::string() : "; it changed " + files,
                     owners.empty() ? std::string()
                                    : fmt::format("; it changed files {} declare: work their task commits may "
                                                  "lack (a commit -a or add -A while the run went on sweeps up a "
                                                  "worker's files), and a task run again repeats it",
                                                  fmt::join(owners, ", "))));
  }
  if (commits.size() > 5)
    emit(RunEventKind::note, "", -1, 0, fmt::format("and {} more commits without trailers", commits.size() - 5));
}

} // namespace harness::orchestrator
