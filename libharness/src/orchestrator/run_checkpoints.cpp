// Verification on the thread pool (results posted back to the loop) and checkpoints: asked on the
// terminal, answered by `harness-cli respond`, by harness_respond, or by --yes.
#include "run_loop.hpp"

#include "harness/orchestrator/checkpoint_question.hpp"
#include "harness/protocol/answer.hpp"
#include "harness/store/checkpoint_answers.hpp"
#include "harness/store/checkpoint_files.hpp"
#include "harness/util/shell_words.hpp"
#include "harness/util/text.hpp"
#include "harness/verify/executed_since.hpp"
#include "harness/verify/human_answer.hpp"

#include <fmt/ranges.h>

namespace harness::orchestrator {
namespace {

/// An answer as the documents record it: who and when filled in where an answer file left them out.
spec::HumanAnswer human_answer_of(const store::CheckpointAnswer& answer) {
  return {answer.approved, answer.by.empty() ? store::who_answers("an answer file") : answer.by,
          answer.at.empty() ? protocol::now_iso8601() : answer.at, answer.note};
}

/// The answers offered on the terminal, after the question.
std::string terminal_choices(const PendingCheckpoint& cp) {
  switch (cp.asks) {
  case store::CheckpointAsks::action: return "done (y) / refuse (n)";
  case store::CheckpointAsks::decision: {
    if (cp.options.empty()) return "your answer / refuse";
    std::string out;
    for (std::size_t i = 0; i < cp.options.size(); ++i) out += fmt::format("{}) {}  ", i + 1, util::printable(cp.options[i], false));
    return out + "(number or text) / refuse";
  }
  case store::CheckpointAsks::approval: break;
  }
  return "approve (y) / refuse (n)";
}

/// The commit HEAD is at, empty when there is none (a repository without commits).
std::string head_commit(const fs::path& root) {
  auto r = worker::run_git(root, {"rev-parse", "--verify", "-q", "HEAD^{commit}"});
  std::string sha = r.exit_code == 0 ? r.out.substr(0, r.out.find('\n')) : "";
  return sha.size() == 40 || sha.size() == 64 ? sha : ""; // SHA-1 or SHA-256, nothing else
}

/// Where `head` (the commit a checkpoint asked about) stands from the checkout in `root`.
store::AskedCommit asked_commit(const fs::path& root, const std::string& head) {
  if (head.empty()) return store::AskedCommit::unknown;
  if (worker::run_git(root, {"cat-file", "-e", head + "^{commit}"}).exit_code != 0) return store::AskedCommit::gone;
  const auto ancestor = worker::run_git(root, {"merge-base", "--is-ancestor", head, "HEAD"});
  if (ancestor.exit_code == 0) return store::AskedCommit::in_history;
  if (ancestor.exit_code != 1) return store::AskedCommit::unknown; // git could not tell: as for a record without one
  const auto refs = worker::run_git(root, {"for-each-ref", "--count=1", "--format=%(refname)", "--contains", head});
  return refs.exit_code == 0 && !refs.out.empty() ? store::AskedCommit::elsewhere : store::AskedCommit::gone;
}

} // namespace

bool Orchestrator::Impl::work_changed_since(const std::string& task, const std::string& head) const {
  if (head.empty()) return true; // asked by a harness that did not record it: cannot tell
  const fs::path& root = spec.layout.project_root;
  const std::string subject = task.substr(task.find(':') + 1);
  std::vector<std::string> paths;
  if (task.starts_with("verify-plan:")) { // the plan as written, and what it wrote
    const auto* plan = spec.find_plan(subject);
    if (!plan) return true;
    paths.push_back(worker::literal_pathspec((spec.layout.spec_dir / plan->file).lexically_relative(root).generic_string()));
    for (const auto& f : plan->files_modified) paths.push_back(worker::glob_pathspec(f));
  } else {
    const auto n = spec::parse_phase_number(subject);
    const auto* phase = n ? spec.layout.find_phase(*n) : nullptr;
    if (!phase) return true;
    paths.push_back(worker::literal_pathspec(phase->plans_dir.lexically_relative(root).generic_string()));
    if (task.starts_with("verify-phase:")) // what the phase's plans wrote is what was verified
      for (const auto& p : spec.plans)
        if (p.phase == *n)
          for (const auto& f : p.files_modified) paths.push_back(worker::glob_pathspec(f));
  }
  // What harness itself writes there since (the run's closing commit: SUMMARY marks, reports,
  // STATUS, ROADMAP) is not a change of the work asked about, even under a plan's `docs/**`.
  for (const auto& file : spec::harness_written_files(spec))
    paths.push_back(":(exclude,literal)" + file.lexically_relative(root).generic_string());
  std::vector<std::string> diff{"diff", "--quiet", head, "--"};
  diff.insert(diff.end(), paths.begin(), paths.end());
  if (worker::run_git(root, diff).exit_code != 0) return true; // changed (1), or git could not tell
  std::vector<std::string> untracked{"ls-files", "--others", "--exclude-standard", "--"};
  untracked.insert(untracked.end(), paths.begin(), paths.end());
  const auto added = worker::run_git(root, untracked);
  return added.exit_code != 0 || !added.out.empty();
}

fs::path Orchestrator::Impl::report_file(const sched::Action& a) const {
  if (a.kind == TaskKind::verify_final) return spec.layout.final_verification;
  if (a.kind == TaskKind::verify_phase)
    if (auto n = spec::parse_phase_number(a.subject))
      if (const auto* dir = spec.layout.find_phase(*n)) return spec.layout.verification_file(*dir);
  return {};
}

void Orchestrator::Impl::run_verification(Session& s) {
  const auto a = s.action;
  const std::string sid = s.id;
  // Recorded before the verifier writes it: a kill in between must not leave a write that no
  // run commits.
  if (const auto report = report_file(a); !report.empty()) wrote({report});
  bool edited = false;
  auto as_started = a.kind == TaskKind::verify_plan ? plan_to_verify(a.subject, edited) : std::nullopt;
  // The pool reads a copy the loop never changes: the loop may reload `spec` meanwhile.
  asio::post(*verify_pool, [this, a, sid, snapshot = loop_spec.shared(), as_started = std::move(as_started), edited] {
    VerifyOutcome out;
    if (a.kind == TaskKind::verify_plan) {
      if (as_started) out = verifier.verify_plan(*snapshot, *as_started);
      else if (const auto* p = snapshot->find_plan(a.subject)) out = verifier.verify_plan(*snapshot, *p);
      else out = {sched::Verdict::passed, true, "unknown plan " + a.subject};
      if (edited)
        out.message += fmt::format("; checked as its execute started: its PLAN file changed since (by its worker, or by "
                                   "you: see git diff {}); the phase's verification and the next run read the edit",
                                   spec::plan_path(snapshot->layout, a.subject)
                                       .lexically_relative(snapshot->layout.project_root)
                                       .generic_string());
    } else if (a.kind == TaskKind::verify_phase) {
      out = verifier.verify_phase(*snapshot, *spec::parse_phase_number(a.subject));
    } else {
      out = verifier.verify_final(*snapshot);
    }
    asio::post(ctx, [this, a, sid, out] { on_verified(a, sid, out); });
  });
}

void Orchestrator::Impl::on_verified(const sched::Action& a, const std::string& sid, const VerifyOutcome& out) {
  if (head_moved()) { // it read another branch's files: its verdict is not this run's
    end_session(sid, "ended after HEAD moved or its branch was rewound: its verdict is not kept; the next run verifies again", false);
    return maybe_stop_after_drain();
  }
  // Checks that failed on a full disk (a test that could not write its files) say nothing of the
  // work: the verification runs again once there is space, instead of spending an execute attempt
  // or planning gap closures (review II F9).
  if ((out.failed || out.verdict == sched::Verdict::gaps_found) && out.missing_summaries.empty() &&
      defer_for_space(sid, a.task, out.message.empty() ? std::string("the checks failed") : out.message))
    return;
  if (out.failed) {
    std::string why = out.message;
    if (auto n = ran_nothing.find(a.subject); a.kind == TaskKind::verify_plan && n != ran_nothing.end()) {
      // Executing again cannot change the outcome: say what can.
      why += fmt::format("; executing {} again ran none of its tasks ({} committed, and a committed task does not run "
                         "again): if its PLAN was wrong, fix it, then harness-cli redo {} {}[:TASK]",
                         a.subject, n->second, spec_arg(), a.subject);
    }
    end_session(sid, why, false);
    return fail(a.task, sched::FailureClass::verification_failed, why);
  }
  if (a.kind == TaskKind::verify_plan) {
    plans_as_started.erase(a.subject); // its checks passed: no retry reads it (a redo starts anew)
    const auto* plan = plan_of(a);
    // A continuation is the approved checkpoint coming back: it must not ask again.
    const auto asked = executor_asked.contains(a.subject) ? spec::ExecutorAsked::yes : spec::ExecutorAsked::no;
    if (plan && !a.continuation && spec::needs_approval(*plan, asked)) {
      // The plan needs a person after its checks (checkpoints, autonomous: false): the slot is
      // not needed meanwhile.
      sessions.at(sid).last_progress = "waiting for a verification checkpoint";
      auto e = sched::make_event(EventType::checkpoint, a.task);
      e.worker_alive = false;
      mark_plan_waiting(a);
      // What the plan is, so a person knows what they approve without opening it (review PP F7).
      const bool titled = !plan->title.empty() && plan->title != plan->id;
      e.detail = fmt::format("verification of {}{}: automated checks passed ({})", a.subject,
                             titled ? " (" + util::clipped(util::printable(plan->title, false), 120) + ")" : std::string(),
                             out.message);
      // What the plan's author asked the person to look at (GSD's checkpoint:human-verify task).
      if (!plan->human_check.empty()) {
        e.detail += "; " + util::clipped(plan->human_check, 600);
        // Its worker's processes went with it (a server its how-to-verify points at). Said only
        // when this run saw some stopped: otherwise nothing is known to have run.
        if (const auto l = stopped_leftovers.find(a.subject); l != stopped_leftovers.end() && !l->second.empty())
          e.detail += fmt::format("; what the plan's worker left running (`{}`) was stopped when it ended: start it "
                                  "again to check",
                                  util::clipped(util::printable(l->second.front(), false), 100));
      }
      end_session(sid, "checks passed; checkpoint opened");
      return feed(e);
    }
  }
  if (!out.missing_summaries.empty()) return lost_summaries(a, sid, out);
  if (a.kind == TaskKind::verify_phase) {
    if (out.verdict == sched::Verdict::gaps_found) phase_gaps[a.subject] = out.message;
    else phase_gaps.erase(a.subject);
  }
  // Marked only now: a plan whose checkpoint a human refuses must not read as verified next run.
  if (a.kind == TaskKind::verify_plan) mark_plan_verified(a);
  const bool gate = a.kind == TaskKind::verify_phase || a.kind == TaskKind::verify_final;
  if (const auto report = report_file(a); !report.empty())
    record_write(report, out.report_error.empty() ? std::expected<void, std::string>() : std::unexpected(out.report_error), a.task);
  if (gate) {
    reload_spec();
    if (out.verdict == sched::Verdict::passed && a.kind == TaskKind::verify_phase)
      emit(RunEventKind::phase_verified, a.task, a.slot, a.attempt, out.message);
  }
  end_session(sid, out.message.empty() ? std::string(sched::to_string(out.verdict)) : out.message);
  if (gate) {
    write_progress(true);
    commit_writeback_when_free(fmt::format("{} {}", a.kind == TaskKind::verify_phase ? "verify phase" : "final verification",
                                           a.subject));
  }
  succeed(a.task, out.verdict, false, out.message);
}

void Orchestrator::Impl::lost_summaries(const sched::Action& a, const std::string& sid, const VerifyOutcome& out) {
  if (const auto report = report_file(a); !report.empty())
    record_write(report, out.report_error.empty() ? std::expected<void, std::string>() : std::unexpected(out.report_error), a.task);
  // A gap-closure plan cannot bring a record back, and executing the plans again would redo
  // verified work behind the user's back, while the file is one `git restore` away (the run's
  // commits never take a deletion): the gate blocks, naming the files, for a person to look at.
  std::string files;
  for (const auto& id : out.missing_summaries) {
    const auto* plan = spec.find_plan(id);
    const auto* phase = plan ? spec.layout.find_phase(plan->phase) : nullptr;
    files += (files.empty() ? "" : ", ") + (phase ? spec.layout.relative(spec.layout.summary_file(*phase, id)) : id);
  }
  const bool one = out.missing_summaries.size() == 1;
  const std::string why = fmt::format(
      "the SUMMARY{} of {} {} gone from the work tree ({}), deleted after {} verified, by a worker or a person: "
      "`git restore` {} (harness did not commit the deletion) and run orchestrate again, or leave {} deleted and the "
      "next run executes {} again",
      one ? "" : "s", fmt::join(out.missing_summaries, ", "), one ? "is" : "are", files, one ? "the plan was" : "the plans were",
      one ? "it" : "them", one ? "it" : "them", one ? "the plan" : "those plans");
  write_progress(true);
  end_session(sid, why, false);
  fail(a.task, sched::FailureClass::no_retry, why);
}

std::vector<std::string> Orchestrator::Impl::loop_findings(const sched::Action& a) const {
  if (a.kind == TaskKind::check_plans)
    if (auto f = revision_findings.find(a.subject); f != revision_findings.end()) return f->second;
  // A phase's human_needed question names its items itself; the gap-round limit names nothing.
  if (a.kind != TaskKind::verify_phase || a.reason.starts_with(sched::to_string(sched::Verdict::human_needed))) return {};
  if (auto g = phase_gaps.find(a.subject); g != phase_gaps.end()) return {g->second};
  // Verified by an earlier run: its report names the gaps.
  std::error_code ec;
  if (const auto report = report_file(a); !report.empty() && fs::exists(report, ec))
    return {"see " + spec.layout.relative(report)};
  return {};
}

void Orchestrator::Impl::ask_human(const sched::Action& a) {
  std::string question = checkpoint_question(a, loop_findings(a));
  std::optional<std::string> message_id;
  WorkerQuestion asked; // what an orchestrator's own checkpoint asks: approve or refuse
  if (auto q = worker_question.find(a.task); q != worker_question.end()) {
    asked = std::move(q->second);
    message_id = asked.message_id;
    worker_question.erase(q);
  }
  // The same question an earlier run asked and never had answered (or whose answer came after it
  // ended): this run takes over that checkpoint, so its id stays valid and its answer counts.
  std::optional<store::CheckpointRecord> earlier;
  if (auto c = carried.find(a.task); c != carried.end() && !message_id) {
    earlier = std::move(c->second);
    carried.erase(c);
  }
  // A worker asking what an earlier worker of its task asked, stopped before the answer came.
  if (message_id) earlier = take_carried_question(a.task, asked.asks, question, asked.options);
  const bool answered_meanwhile = earlier && earlier->answer;
  const bool checks_passed = a.kind == TaskKind::verify_plan && a.reason.find("automated checks passed") != std::string::npos;
  // A person refused this work at an earlier run's checkpoint (its SUMMARY keeps the refusal
  // until the plan runs again): they are asked again, told so, and --yes does not answer for them.
  std::optional<spec::HumanAnswer> refused;
  if (a.kind == TaskKind::verify_plan)
    if (auto sum = spec.summaries.find(a.subject); sum != spec.summaries.end() && sum->second.answer && !sum->second.answer->approved)
      refused = sum->second.answer;
  if (refused) {
    question += "; refused before by " + spec::answered_by(*refused);
    if (opt.auto_yes && checks_passed && !answered_meanwhile)
      emit(RunEventKind::note, a.task, -1, 0, "--yes does not answer it: a person refused this plan's work before");
  }
  if (opt.auto_yes && checks_passed && !answered_meanwhile && !refused) { // a person's answer outweighs --yes
    const spec::HumanAnswer yes{true, "orchestrate --yes (its checks passed)", protocol::now_iso8601(), ""};
    if (earlier) { // an earlier run's open checkpoint: answered, so `respond` to it says by whom
      (void)store::answer_checkpoint(state_dir, earlier->id, store::CheckpointAnswer{true, "", yes.by, yes.at});
      store::close_answered_checkpoint(state_dir, earlier->id);
    }
    plan_approvals[a.subject] = yes;
    // No checkpoint file: nothing for `respond`, so no checkpoint_id either.
    emit(RunEventKind::checkpoint_opened, a.task, a.slot, a.attempt, question);
    asio::post(ctx, [this, t = a.task] {
      emit(RunEventKind::checkpoint_answered, t, -1, 0, "approved automatically (--yes; checks passed)");
      auto e = sched::make_event(EventType::answered, t);
      e.answer = sched::Answer::approved;
      feed(e);
    });
    return;
  }
  store::CheckpointRecord r;
  if (earlier) {
    r = std::move(*earlier);
  } else {
    // Unique per checkpoint: a task may ask twice in a run, and "final" has no ':' to replace.
    // The spec's name first: every spec has a verify-plan:01-01, and the person must tell them apart.
    std::string name = a.task;
    std::replace(name.begin(), name.end(), ':', '-');
    r.id = fmt::format("cp-{}-{}-{}-{}", spec.layout.spec_name, name, run_id, ++checkpoints_opened);
    r.opened_at = protocol::now_iso8601();
  }
  // What the person is asked about is the work as it is now; an answer given meanwhile was about
  // the commit asked about then (which this run's history holds, or it would not be taken).
  if (!answered_meanwhile) r.head = head_commit(spec.layout.project_root);
  r.task = a.task;
  r.spec = spec.layout.spec_name;
  r.question = question;
  r.run = run_id;
  r.asker = message_id ? store::CheckpointAsker::worker : store::CheckpointAsker::orchestrator;
  r.message_id = message_id.value_or("");
  r.kept_for_task = false; // a worker waits on it again: it goes with that worker, unless the run stops it too
  r.asks = asked.asks;
  r.options = asked.options;
  if (auto w = store::write_open_checkpoint(state_dir, r); !w) emit(RunEventKind::note, a.task, -1, 0, "checkpoint: " + w.error());
  PendingCheckpoint cp{r.id,   a.task, question, state_dir / "sessions" / r.id / "checkpoint.json", "", r.spec, r.head,
                       r.asks, r.options};
  checkpoints[cp.id] = cp;
  if (message_id) checkpoint_message[cp.id] = *message_id;
  // Answered since: no "answer with" before the words that say it needs none (review PP F8).
  std::string text = answered_meanwhile
                         ? fmt::format("{} ({}: asked by an earlier run, answered since: taking that answer)", question, cp.id)
                         : checkpoint_opened_message(question, cp.id, store::answer_forms(cp.asks, cp.options));
  if (earlier && !answered_meanwhile) text += " (asked by an earlier run too)";
  emit(RunEvent{RunEventKind::checkpoint_opened, 0, a.task, a.slot, a.attempt, std::move(text), cp.id, cp.options});
  if (opt.interactive && !answered_meanwhile) prompt_on_terminal(cp);
  poll_checkpoints();
}

void Orchestrator::Impl::take_over_checkpoints() {
  // Workers that asked in an earlier run are gone, and so is whoever would read their answers,
  // unless that run stopped them while they waited (kept_for_task): those questions go to the
  // task's next worker. What the orchestrator asked itself, it asks again when the task gets
  // there. Either only if the checkpoint is this spec's and asked about work this checkout holds
  // (carry_decision).
  const std::optional<store::RunInfo> running = store::RunInfo{0, "", "", run_id}; // this run holds the lock
  for (auto& r : store::open_checkpoints(state_dir)) {
    const auto status = store::checkpoint_status(r, running);
    if (status == store::CheckpointStatus::stale) {
      store::expire_checkpoint(state_dir, r.id, store::stale_reason(r));
      continue;
    }
    if (status != store::CheckpointStatus::carried_over) continue;
    const auto commit = r.spec == spec.layout.spec_name ? asked_commit(spec.layout.project_root, r.head) : store::AskedCommit::unknown;
    const auto decision = store::carry_decision(r, spec.layout.spec_name, commit);
    if (decision.action == store::CarryAction::expire) {
      store::expire_checkpoint(state_dir, r.id, decision.why);
      emit(RunEventKind::note, r.task, -1, 0, fmt::format("checkpoint {} of an earlier run expired: {}", r.id, decision.why));
      continue;
    }
    if (decision.action == store::CarryAction::leave) {
      if (commit == store::AskedCommit::elsewhere) // the person may wonder why their answer is not taken
        emit(RunEventKind::note, r.task, -1, 0,
             fmt::format("checkpoint {} of an earlier run asked about commit {}, which this checkout's history does not "
                         "hold (another branch does): left for a run there",
                         r.id, r.head.substr(0, 7)));
      continue;
    }
    // A plan's approval or refusal given between runs is about the work the question showed: a
    // commit to the plan or its files since (a fix by hand) is other work, which is asked again.
    if (r.answer && r.asker == store::CheckpointAsker::orchestrator && r.task.starts_with("verify-plan:") &&
        work_changed_since(r.task, r.head)) {
      const std::string why = fmt::format("the plan or its files changed since it asked (at commit {}), so its answer ({}) "
                                          "was about other work: asked again",
                                          r.head.substr(0, 7), r.answer->approved ? "approved" : "refused");
      store::expire_checkpoint(state_dir, r.id, why);
      emit(RunEventKind::note, r.task, -1, 0, fmt::format("checkpoint {} of an earlier run expired: {}", r.id, why));
      continue;
    }
    // The plans the person judged at the revision loop's bound are not the plans there are now:
    // the checker looks at these, and an answer about the others must not execute them (review
    // SS M6: it vanished unsaid).
    if (r.asker == store::CheckpointAsker::orchestrator && r.task.starts_with("check-plans:") && !r.head.empty() &&
        work_changed_since(r.task, r.head)) {
      const std::string why = fmt::format("it {} about the phase's plans as they were at commit {}, and they changed since: "
                                          "the checker runs again over them, and asks again at its bound",
                                          r.answer ? (r.answer->approved ? "was approved" : "was refused") : "asked",
                                          r.head.substr(0, 7));
      store::expire_checkpoint(state_dir, r.id, why);
      emit(RunEventKind::note, r.task, -1, 0, fmt::format("checkpoint {} of an earlier run expired: {}", r.id, why));
      continue;
    }
    if (r.asker == store::CheckpointAsker::worker) { // open_checkpoints: in id order
      // Its task got done anyway (a worker left running by a killed run finished it): no next
      // worker will ask, and nobody is told one will.
      if (const auto* t = scheduler->find_task(r.task); t && t->state == sched::TaskState::done) {
        if (r.answer) store::close_answered_checkpoint(state_dir, r.id);
        else store::expire_checkpoint(state_dir, r.id, "its task was done without it");
        continue;
      }
      emit(RunEventKind::note, r.task, -1, 0,
           fmt::format("checkpoint {} of an earlier run ({}) {}: the next worker of {} is told the question{}", r.id,
                       r.kept_for_task ? "its worker was stopped while it waited" : "its worker ended with that run",
                       r.answer ? "was answered since" : "is still open", r.task, r.answer ? " and its answer" : ""));
      carried_questions[r.task].push_back(std::move(r));
      continue;
    }
    auto [it, fresh] = carried.try_emplace(r.task, r);
    if (fresh) continue;
    // Two for one task (a harness before this one opened a new checkpoint per run): the
    // answered one counts, else the latest; the other can never be read.
    auto& kept = it->second;
    const bool take_new = (r.answer && !kept.answer) || (bool(r.answer) == bool(kept.answer) && r.opened_at > kept.opened_at);
    const std::string dropped = take_new ? kept.id : r.id, superseded_by = take_new ? r.id : kept.id;
    if (take_new) kept = r;
    store::expire_checkpoint(state_dir, dropped, "superseded by checkpoint " + superseded_by + " of the same task");
  }
  for (const auto& [task, r] : carried) {
    const std::string state =
        r.answer ? fmt::format("was {} since", r.answer->approved ? "approved" : "refused") : "is still open";
    // A loop's bound reached (plans sent back too often, gaps left after the gap rounds): its
    // question is about the plans or the phase as they stand, so it is asked (or its answer
    // taken) as soon as the task is ready; running the loop again from round one would rewrite
    // the plans the person judged and spend the rounds again.
    const bool escalation = r.asker == store::CheckpointAsker::orchestrator &&
                            (task.starts_with("check-plans:") || task.starts_with("verify-phase:")) &&
                            !work_changed_since(task, r.head);
    if (escalation) {
      auto e = sched::make_event(EventType::escalated, task);
      e.detail = "checkpoint: " + r.question; // asked in the same words
      feed(e);
      if (const auto* t = scheduler->find_task(task); t && !t->escalated.empty()) {
        emit(RunEventKind::note, task, -1, 0,
             fmt::format("checkpoint {} of an earlier run {}: {} when {} is ready, without running it again", r.id, state,
                         r.answer ? "taken" : "asked again", task));
        continue;
      }
    }
    emit(RunEventKind::note, task, -1, 0,
         fmt::format("checkpoint {} of an earlier run {}: {} when {} gets there", r.id, state,
                     r.answer ? "its answer is taken" : "asked again", task));
  }
}

void Orchestrator::Impl::show_open_checkpoints_at_head() {
  const std::string head = head_commit(spec.layout.project_root);
  if (head.empty()) return;
  for (const auto& [id, cp] : checkpoints) {
    if (checkpoint_message.contains(id)) continue; // a worker's: settled with its worker
    auto r = store::read_checkpoint(state_dir, id);
    if (!r || r->state != store::CheckpointState::open || r->answer || r->head == head) continue;
    r->head = head;
    (void)store::write_open_checkpoint(state_dir, *r);
  }
}

void Orchestrator::Impl::close_answers_in_flight(const std::string& task) {
  auto it = answers_in_flight.find(task);
  if (it == answers_in_flight.end()) return;
  for (const auto& id : it->second) store::close_answered_checkpoint(state_dir, id);
  answers_in_flight.erase(it);
}

void Orchestrator::Impl::settle_checkpoints() {
  while (!answers_in_flight.empty()) close_answers_in_flight(answers_in_flight.begin()->first);
  std::vector<std::string> asked_by_workers;
  for (const auto& [id, cp] : checkpoints)
    if (checkpoint_message.contains(id)) asked_by_workers.push_back(id);
  for (const auto& id : asked_by_workers) {
    store::expire_checkpoint(state_dir, id, "the run ended, and with it the worker that asked");
    checkpoints.erase(id);
    checkpoint_message.erase(id);
  }
  std::vector<std::string> done_without;
  for (const auto& [task, r] : carried)
    if (const auto* t = scheduler->find_task(task); !t || t->state == sched::TaskState::done || t->state == sched::TaskState::dropped)
      done_without.push_back(task);
  for (const auto& task : done_without) {
    // Answered and its task done: an approval the plan's SUMMARY recorded before a killed run
    // could close its checkpoint. Closed as answered, not expired as unused.
    if (auto c = carried.find(task); c != carried.end() && c->second.answer) {
      store::close_answered_checkpoint(state_dir, c->second.id);
      carried.erase(c);
      continue;
    }
    expire_carried(task, "its task was done without it");
  }
  // A kept worker question whose task got done: its answer went to the worker in its task input;
  // unanswered, it was done without it. A task not done yet keeps it for the next run.
  for (auto c = carried_questions.begin(); c != carried_questions.end();) {
    const auto* t = scheduler->find_task(c->first);
    if (t && t->state != sched::TaskState::done && t->state != sched::TaskState::dropped) {
      ++c;
      continue;
    }
    for (const auto& r : c->second) {
      if (store::read_checkpoint_answer(state_dir, r.id)) store::close_answered_checkpoint(state_dir, r.id);
      else store::expire_checkpoint(state_dir, r.id, "its task was done without it");
    }
    c = carried_questions.erase(c);
  }
}

void Orchestrator::Impl::expire_carried(const std::string& task, const std::string& why) {
  auto c = carried.find(task);
  if (c == carried.end()) return;
  store::expire_checkpoint(state_dir, c->second.id, why);
  emit(RunEventKind::note, task, -1, 0, fmt::format("checkpoint {} of an earlier run expired: {}", c->second.id, why));
  carried.erase(c);
}

void Orchestrator::Impl::prompt_on_terminal(const PendingCheckpoint& cp) {
  // Read on the loop (a blocking read would stop the other slots), one question at a time: a line
  // answers the question shown, and a question answered elsewhere meanwhile gives way to the next.
  tty_queue.push_back(cp.id);
  if (tty_queue.size() == 1) show_terminal_question();
  if (!tty_in) {
    const int fd = ::dup(STDIN_FILENO); // the descriptor closes its own copy, never stdin
    boost::system::error_code ec;
    if (fd >= 0) tty_in.emplace(ctx).assign(fd, ec);
    if (ec || fd < 0) {
      tty_in.reset();
      return; // `harness-cli respond` still answers
    }
    // The live table redraws while the person types: it draws the typed line itself, and the
    // terminal's echo (which a redraw would erase) is off meanwhile.
    if (observer.draws_prompt()) tty_mode.emplace(STDIN_FILENO);
    read_terminal();
  }
}

void Orchestrator::Impl::show_terminal_question() {
  while (!tty_queue.empty() && !checkpoints.contains(tty_queue.front())) tty_queue.pop_front();
  if (tty_queue.empty()) return ask_on_terminal("");
  const auto& cp = checkpoints.at(tty_queue.front());
  // A worker's question: never an escape sequence for the terminal.
  ask_on_terminal(fmt::format("\n? {} [{}]\n  {}: ", util::printable(cp.question, true), cp.task, terminal_choices(cp)));
}

void Orchestrator::Impl::ask_on_terminal(std::string prompt) {
  if (!observer.draws_prompt()) {
    if (!prompt.empty()) std::cerr << prompt << std::flush;
    return;
  }
  tty_prompt = std::move(prompt);
  observer.on_view(view());
}

void Orchestrator::Impl::read_terminal() {
  tty_in->async_read_some(asio::buffer(tty_chunk), [this](boost::system::error_code e, std::size_t n) {
    if (e || done) { // closed terminal or the run is over: `respond` remains
      tty_mode.reset();
      return;
    }
    const std::string_view chunk(tty_chunk.data(), n);
    if (tty_mode && tty_mode->active()) {
      for (const auto& line : tty_editor.feed(chunk)) answer_typed_line(line);
      if (tty_editor.ended()) {
        tty_mode.reset();
        return;
      }
      if (!done) observer.on_view(view()); // the echo: the line as typed so far, under the question
    } else {
      tty_line.append(chunk);
      for (auto nl = tty_line.find('\n'); nl != std::string::npos; nl = tty_line.find('\n')) {
        const std::string line = tty_line.substr(0, nl);
        tty_line.erase(0, nl + 1);
        ++tty_lines_read; // the terminal echoed it, newline and all
        answer_typed_line(line);
      }
    }
    if (!done) read_terminal();
  });
}

void Orchestrator::Impl::answer_typed_line(const std::string& line) {
  while (!tty_queue.empty() && !checkpoints.contains(tty_queue.front())) tty_queue.pop_front();
  if (tty_queue.empty()) return; // nothing asked: the line is not an answer
  const auto& cp = checkpoints.at(tty_queue.front());
  auto typed = store::read_typed_answer(cp.asks, cp.options, line);
  if (!typed) {
    // An empty line or a typo decides nothing: the same question again.
    std::string choices = terminal_choices(cp);
    choices.replace(choices.rfind(" / "), 3, " or ");
    if (!observer.draws_prompt()) {
      std::cerr << "  please answer " << choices << ": " << std::flush;
      return;
    }
    // The question stays and the line to type on says what it takes; redrawn even when that
    // is unchanged, since the typed line's echo moved the cursor.
    tty_prompt = tty_prompt.substr(0, tty_prompt.rfind('\n') + 1) + "  please answer " + choices + ": ";
    observer.on_view(view());
    return;
  }
  const std::string id = tty_queue.front();
  tty_queue.pop_front();
  if (observer.draws_prompt()) tty_prompt.clear(); // answered: the answer's event line redraws without it
  typed->by = store::who_answers("on the terminal");
  typed->at = protocol::now_iso8601();
  answer_checkpoint(id, *typed);
  show_terminal_question();
}

void Orchestrator::Impl::poll_checkpoints() {
  checkpoint_poll.expires_after(std::chrono::milliseconds(200));
  checkpoint_poll.async_wait([this](boost::system::error_code e) {
    if (e || checkpoints.empty()) return;
    std::vector<std::pair<std::string, store::CheckpointAnswer>> answered;
    for (const auto& [id, cp] : checkpoints)
      if (auto r = store::read_checkpoint_answer(state_dir, id)) answered.push_back({id, *r});
      else if (auto w = answered_in_store(id)) answered.push_back({id, *w});
    for (const auto& [id, r] : answered) answer_checkpoint(id, r);
    if (stop_when_only_people_can_go_on()) return;
    if (!checkpoints.empty()) poll_checkpoints();
  });
}

void Orchestrator::Impl::answer_checkpoint(const std::string& id, const store::CheckpointAnswer& answer) {
  auto it = checkpoints.find(id);
  if (it == checkpoints.end()) return;
  const auto task = it->second.task;
  const bool approved = answer.approved;
  const std::string& note = answer.note;
  checkpoints.erase(it);
  store::mark_answer_taken(state_dir, id); // first: what follows acts on it, so nothing replaces it
  // Recorded before the checkpoint closes: killed in between, the next run finds the phase
  // answered in its VERIFICATION and the checkpoint expires unused; never the other way round.
  record_gate_answer(task, answer);
  const bool workers = checkpoint_message.contains(id);
  bool approval = false;
  if (const auto* t = scheduler->find_task(task); t && t->kind == TaskKind::verify_plan) {
    if (answer.approved) { // written when the plan is marked verified (its checkpoint closed then)
      plan_approvals[t->subject] = human_answer_of(answer);
      if (!workers) approvals_in_flight[t->subject] = id;
      approval = !workers;
    } else {
      record_plan_refusal(*t, human_answer_of(answer));
    }
  }
  // A worker's question stays open with its answer until the worker's session ends: a run killed
  // before then (the answer read, not acted on) leaves it for the task's next worker, not lost.
  if (workers) answers_in_flight[task].push_back(id);
  else if (!approval) store::close_answered_checkpoint(state_dir, id);
  bool elsewhere = false;
  if (!tty_queue.empty() && tty_queue.front() == id) { // answered elsewhere while shown: next one
    tty_queue.pop_front();
    elsewhere = observer.draws_prompt();
    if (elsewhere) tty_prompt.clear(); // the answer's event line says so, and redraws without it
    else std::cerr << "(answered elsewhere)\n";
    show_terminal_question();
  }
  if (auto m = checkpoint_message.find(id); m != checkpoint_message.end()) {
    answer_worker(m->second, answer);
    checkpoint_message.erase(m);
    for (const auto& [sid, s] : sessions) // its timeouts run again from where they stopped
      if (s.action.task == task) host->release(sid);
  }
  const std::string said = !answer.choice.empty() ? "chose " + util::quote_shell_word(answer.choice) : approved ? "approved" : "refused";
  // The slot of a worker that waited on it: the one line about the answer says where it goes on.
  const auto* t = scheduler->find_task(task);
  emit(RunEvent{RunEventKind::checkpoint_answered, 0, task, t ? t->slot : -1, 0,
                said + (note.empty() ? "" : ": " + note) + (elsewhere ? " (answered elsewhere)" : ""), id});
  auto e = sched::make_event(EventType::answered, task);
  e.answer = approved ? sched::Answer::approved : sched::Answer::refused;
  e.detail = note;
  feed(e);
}

bool Orchestrator::Impl::stop_when_only_people_can_go_on() {
  // On a terminal the question is on the screen and the run waits for it; elsewhere nobody may be
  // watching, so a run with nothing else to do stops (exit 3) and the next run takes the answers.
  if (opt.interactive || done || draining || checkpoints.empty() || host->running() > 0) return false;
  if (!scheduler->waits_only_for_humans()) return false;
  summary.outcome = "waiting_for_human";
  summary.exit_code = 3;
  for (const auto& [id, cp] : checkpoints) {
    summary.waiting.push_back(waiting_line(cp));
    emit(RunEvent{RunEventKind::note, 0, cp.task, -1, 0,
                  fmt::format("waits for an answer: {}; then run harness-cli orchestrate {} again",
                              checkpoint_opened_message(cp.question, id, store::answer_forms(cp.asks, cp.options)), spec_arg()),
                  id, cp.options});
  }
  finish_run();
  return true;
}

/// A worker's question answered straight in the store (harness_respond over MCP): the worker's
/// await returns with it, and the checkpoint the run opened for it closes with the same answer.
std::optional<store::CheckpointAnswer> Orchestrator::Impl::answered_in_store(const std::string& checkpoint_id) {
  auto m = checkpoint_message.find(checkpoint_id);
  auto cp = checkpoints.find(checkpoint_id);
  if (m == checkpoint_message.end() || cp == checkpoints.end() || !db) return std::nullopt;
  auto msg = db->message(m->second);
  if (!msg || !*msg || !(*msg)->response) return std::nullopt;
  const auto type = protocol::parse_message_type((*msg)->type);
  if (!type) return std::nullopt;
  // Read as `respond` reads the same answer, so the run says what was chosen ("chose 'B'",
  // "done"), not only that something was.
  boost::system::error_code ec;
  const auto parsed = boost::json::parse(*(*msg)->response, ec);
  store::CheckpointAnswer answer;
  if (auto read = !ec && parsed.is_object() ? store::read_response_answer(cp->second.asks, cp->second.options, parsed.as_object())
                                            : std::unexpected(std::string("not an object"));
      read)
    answer = *read;
  else {
    const auto reading = protocol::read_answer(*type, *(*msg)->response);
    answer.approved = reading.approved;
    answer.note = reading.note;
  }
  answer.by = store::who_answers("harness_respond over MCP");
  return answer;
}

/// The worker that asked exited before an answer: its question is withdrawn (nobody is left to
/// read the answer). True when one was open.
bool Orchestrator::Impl::withdraw_questions(const std::string& task, bool finished) {
  const std::string why = finished ? "withdrawn: the worker finished its task without the answer"
                                   : "withdrawn: the worker that asked has exited";
  std::vector<std::string> ids;
  for (const auto& [id, cp] : checkpoints)
    if (cp.task == task && checkpoint_message.contains(id)) ids.push_back(id);
  bool withdrawn = false;
  for (const auto& id : ids) {
    // Answered over MCP after the last poll: the worker had its answer; close it the normal way.
    if (auto w = answered_in_store(id)) {
      answer_checkpoint(id, *w);
      continue;
    }
    withdrawn = true;
    checkpoints.erase(id);
    checkpoint_message.erase(id);
    store::expire_checkpoint(state_dir, id, why);
    emit(RunEventKind::note, task, -1, 0, "checkpoint " + id + " " + why);
  }
  worker_question.erase(task);
  return withdrawn;
}

bool Orchestrator::Impl::keep_questions(const std::string& task) {
  std::vector<std::string> ids;
  for (const auto& [id, cp] : checkpoints)
    if (cp.task == task && checkpoint_message.contains(id)) ids.push_back(id);
  for (const auto& id : ids) {
    // Answered over MCP after the last poll, too late for the worker: the answer stays with the
    // question, for the task's next worker.
    if (auto w = answered_in_store(id)) (void)store::answer_checkpoint(state_dir, id, *w);
    if (auto r = store::read_checkpoint(state_dir, id); r && r->state == store::CheckpointState::open) {
      r->kept_for_task = true;
      if (auto k = store::write_open_checkpoint(state_dir, *r); !k) emit(RunEventKind::note, task, -1, 0, "checkpoint: " + k.error());
    }
    kept_questions.push_back(checkpoints.at(id));
    checkpoints.erase(id);
    checkpoint_message.erase(id);
    emit(RunEvent{RunEventKind::note, 0, task, -1, 0,
                  "checkpoint " + id + " stays open: its worker was stopped while it waited; answer it now or later, and "
                  "the next run gives the answer to the task's next worker",
                  id});
  }
  worker_question.erase(task);
  if (!ids.empty() && !tty_queue.empty()) show_terminal_question(); // not asked on the terminal any more
  return !ids.empty();
}

std::optional<store::CheckpointRecord> Orchestrator::Impl::take_carried_question(const std::string& task,
                                                                                 store::CheckpointAsks asks,
                                                                                 const std::string& question,
                                                                                 const std::vector<std::string>& options) {
  auto c = carried_questions.find(task);
  if (c == carried_questions.end()) return std::nullopt;
  auto& kept = c->second;
  auto same = std::ranges::find_if(kept, [&](const auto& r) { return same_question(r, asks, question, options); });
  if (same == kept.end()) return std::nullopt;
  store::CheckpointRecord r = std::move(*same);
  kept.erase(same);
  if (kept.empty()) carried_questions.erase(c);
  r.answer = store::read_checkpoint_answer(state_dir, r.id); // given since the run started, perhaps
  return r;
}

void Orchestrator::Impl::list_open_questions() {
  std::vector<const PendingCheckpoint*> open;
  for (const auto& cp : kept_questions) open.push_back(&cp);
  for (const auto& [id, cp] : checkpoints) // the run's own: carried over (a worker's died with it)
    if (!checkpoint_message.contains(id)) open.push_back(&cp);
  for (const auto* cp : open) {
    // Answered while the run drained: the next run takes it without asking anybody.
    if (store::read_checkpoint_answer(state_dir, cp->id)) continue;
    summary.waiting.push_back(waiting_line(*cp));
    emit(RunEvent{RunEventKind::note, 0, cp->task, -1, 0,
                  fmt::format("waits for an answer: {}; then run harness-cli orchestrate {} again",
                              checkpoint_opened_message(cp->question, cp->id, store::answer_forms(cp->asks, cp->options)),
                              spec_arg()),
                  cp->id, cp->options});
  }
}

void Orchestrator::Impl::record_gate_answer(const std::string& task, const store::CheckpointAnswer& answer) {
  const auto* t = scheduler->find_task(task);
  // Only an escalated verification: a checkpoint a running task asked (verify-plan's) is not one.
  if (!t || t->state != sched::TaskState::human) return;
  fs::path file;
  if (t->kind == TaskKind::verify_final) file = spec.layout.final_verification;
  else if (t->kind != TaskKind::verify_phase) return;
  else if (auto n = spec::parse_phase_number(t->subject))
    if (const auto* dir = spec.layout.find_phase(*n)) file = spec.layout.verification_file(*dir);
  if (file.empty()) return;
  const spec::HumanAnswer human = human_answer_of(answer);
  wrote({file}); // first: see run_verification
  auto recorded = verify::record_verification_answer(file, human);
  record_write(file, recorded, task);
  if (recorded) reload_spec();
}

std::filesystem::path Orchestrator::Impl::summary_file_of(const std::string& plan_id) const {
  const auto* plan = spec.find_plan(plan_id);
  const auto* phase = plan ? spec.layout.find_phase(plan->phase) : nullptr;
  return phase ? spec.layout.summary_file(*phase, plan->id) : std::filesystem::path();
}

void Orchestrator::Impl::mark_plan_verified(const sched::Action& a) {
  const auto file = summary_file_of(a.subject);
  if (file.empty()) return;
  wrote({file}); // first: see run_verification
  const auto found = plan_approvals.find(a.subject);
  const auto approval = found == plan_approvals.end() ? std::nullopt : std::optional(found->second);
  const auto written = mark_summary_verification(file, "passed", approval);
  record_write(file, written, a.task);
  if (!written) return; // an approval's checkpoint stays open with its answer: the next run takes it
  // The phase's verification reads it next (mark_plan_waiting marked it waiting).
  loop_spec.edit([&](spec::Spec& s) {
    if (auto sum = s.summaries.find(a.subject); sum != s.summaries.end()) {
      sum->second.verification = spec::VerificationStatus::passed;
      if (approval) sum->second.answer = approval;
    }
  });
  if (auto cp = approvals_in_flight.find(a.subject); cp != approvals_in_flight.end()) {
    store::close_answered_checkpoint(state_dir, cp->second);
    approvals_in_flight.erase(cp);
  }
}

void Orchestrator::Impl::mark_plan_waiting(const sched::Action& a) {
  const auto file = summary_file_of(a.subject);
  std::error_code ec;
  if (file.empty() || !fs::exists(file, ec)) return; // the checks found it; nothing to mark
  wrote({file}); // first: see run_verification
  const auto written = mark_summary_verification(file, "human_needed", std::nullopt);
  record_write(file, written, a.task);
  if (written) // STATUS.md of this run reads it too
    loop_spec.edit([&](spec::Spec& s) {
      if (auto sum = s.summaries.find(a.subject); sum != s.summaries.end())
        sum->second.verification = spec::VerificationStatus::human_needed;
    });
}

void Orchestrator::Impl::record_plan_refusal(const sched::Task& t, const spec::HumanAnswer& refusal) {
  const auto file = summary_file_of(t.subject);
  if (file.empty()) return;
  wrote({file}); // first: see run_verification
  const auto written = record_summary_refusal(file, refusal);
  record_write(file, written, t.id);
  if (written) // what the next question of this run reads too
    loop_spec.edit([&](spec::Spec& s) {
      if (auto sum = s.summaries.find(t.subject); sum != s.summaries.end()) sum->second.answer = refusal;
    });
}

void Orchestrator::Impl::remember_plan_as_started(const sched::Action& a) {
  auto it = plans_as_started.find(a.subject);
  if (it != plans_as_started.end() && it->second.pinned) return;
  // The file, not the run's copy of the spec: an edit the watch has not read yet is what the
  // worker reads.
  auto text = util::read_file(spec::plan_path(spec.layout, a.subject));
  if (!text) {
    if (it != plans_as_started.end()) it->second.pinned = true; // gone since the last attempt: as before
    return;
  }
  // A retry of a plan whose file changed since its last attempt started (its worker edited a check
  // and failed, so that no verification saw the edit): checked as the first attempt started.
  if (it != plans_as_started.end()) {
    if (it->second.text != *text) it->second.pinned = true;
    return;
  }
  plans_as_started.emplace(a.subject, PlanAsStarted{std::move(*text), false});
}

std::optional<spec::Plan> Orchestrator::Impl::plan_to_verify(const std::string& plan_id, bool& edited) {
  auto it = plans_as_started.find(plan_id);
  if (it == plans_as_started.end()) return std::nullopt;
  if (!it->second.pinned) {
    const auto now = util::read_file(spec::plan_path(spec.layout, plan_id));
    if (!now || *now != it->second.text) it->second.pinned = true;
  }
  edited = it->second.pinned;
  if (!edited) return std::nullopt; // the file as it started, which the run's copy was read from
  auto plan = spec::plan_from_text(spec.layout, plan_id, it->second.text);
  if (!plan) return std::nullopt;
  return std::move(*plan);
}

void Orchestrator::Impl::note_executed_again(const sched::Action& a) {
  const auto* plan = plan_of(a);
  const auto* phase = plan ? spec.layout.find_phase(plan->phase) : nullptr;
  if (!phase) return;
  const std::string id = plan->id;
  const auto number = plan->phase;
  bool marked = false;
  for (const fs::path& file : {spec.layout.verification_file(*phase), spec.layout.final_verification}) {
    std::error_code ec;
    if (!fs::exists(file, ec)) continue; // the common case: no verification of this work yet
    auto text = util::read_file(file);
    auto updated = text ? verify::with_executed_since(*text, spec.layout.relative(file), id)
                        : std::expected<std::optional<std::string>, std::string>(std::unexpected(text.error()));
    if (updated && !*updated) continue;
    wrote({file}); // first: see run_verification
    const auto written = updated ? util::write_file_atomic(file, **updated) : std::unexpected(updated.error());
    record_write(file, written, a.task);
    marked = marked || written.has_value();
    // Until the next reload, what this run reads (STATUS.md, the gates) must not see the old verdict hold.
    const bool final = file == spec.layout.final_verification;
    loop_spec.edit([&](spec::Spec& s) {
      auto* v = final ? (s.final_verification ? &*s.final_verification : nullptr)
                      : (s.verifications.contains(number) ? &s.verifications.at(number) : nullptr);
      if (v && std::ranges::find(v->executed_since, id) == v->executed_since.end()) v->executed_since.push_back(id);
    });
  }
  // Into the history before the worker's SUMMARY, as far as the git lock allows: a clone taken
  // after a crash must not read the new SUMMARY beside reports that still vouch for the old work.
  if (marked) commit_writeback_when_free(fmt::format("{} runs again: the reports of its earlier work no longer hold", id));
}

} // namespace harness::orchestrator
