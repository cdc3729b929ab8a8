// Verification on the thread pool (results posted back to the loop) and checkpoints: asked on the
// terminal, answered by `harness-cli respond`, by harness_respond, or by --yes.
#include "run_loop.hpp"

#include "harness/protocol/answer.hpp"

namespace harness::orchestrator {

void Orchestrator::Impl::run_verification(Session& s) {
  const auto a = s.action;
  const std::string sid = s.id;
  spec::Spec snapshot = spec; // the pool reads its own copy; the loop may reload meanwhile
  asio::post(*verify_pool, [this, a, sid, snapshot = std::move(snapshot)] {
    VerifyOutcome out;
    if (a.kind == TaskKind::verify_plan) {
      if (const auto* p = snapshot.find_plan(a.subject)) out = verifier.verify_plan(snapshot, *p);
      else out = {sched::Verdict::passed, true, "unknown plan " + a.subject};
    } else if (a.kind == TaskKind::verify_phase) {
      out = verifier.verify_phase(snapshot, *spec::parse_phase_number(a.subject));
    } else {
      out = verifier.verify_final(snapshot);
    }
    asio::post(ctx, [this, a, sid, out] { on_verified(a, sid, out); });
  });
}

void Orchestrator::Impl::on_verified(const sched::Action& a, const std::string& sid, const VerifyOutcome& out) {
  if (out.failed) {
    end_session(sid, out.message, false);
    return fail(a.task, sched::FailureClass::verification_failed, out.message);
  }
  if (a.kind == TaskKind::verify_plan) {
    const auto* plan = plan_of(a);
    // A continuation is the approved checkpoint coming back: it must not ask again.
    if (plan && !a.continuation &&
        std::find(plan->checkpoints.begin(), plan->checkpoints.end(), "verification") != plan->checkpoints.end()) {
      // The plan asked for a human look after its checks: the slot is not needed meanwhile.
      sessions.at(sid).last_progress = "waiting for a verification checkpoint";
      auto e = sched::make_event(EventType::checkpoint, a.task);
      e.worker_alive = false;
      e.detail = fmt::format("verification of {}: automated checks passed ({})", a.subject, out.message);
      end_session(sid, "checks passed; checkpoint opened");
      return feed(e);
    }
  }
  // Marked only now: a plan whose checkpoint a human refuses must not read as verified next run.
  if (a.kind == TaskKind::verify_plan) mark_plan_verified(a);
  const bool gate = a.kind == TaskKind::verify_phase || a.kind == TaskKind::verify_final;
  if (gate) {
    if (a.kind == TaskKind::verify_final) wrote({spec.layout.final_verification});
    else if (auto n = spec::parse_phase_number(a.subject))
      if (const auto* dir = spec.layout.find_phase(*n)) wrote({spec.layout.verification_file(*dir)});
    reload_spec();
    if (out.verdict == sched::Verdict::passed && a.kind == TaskKind::verify_phase)
      emit(RunEventKind::phase_verified, a.task, a.slot, a.attempt, out.message);
  }
  end_session(sid, out.message.empty() ? std::string(sched::to_string(out.verdict)) : out.message);
  if (gate) {
    write_progress(true);
    commit_writeback(fmt::format("{} {}", a.kind == TaskKind::verify_phase ? "verify phase" : "final verification",
                                 a.subject));
  }
  succeed(a.task, out.verdict);
}

void Orchestrator::Impl::ask_human(const sched::Action& a) {
  const bool checks_passed = a.kind == TaskKind::verify_plan && a.reason.find("automated checks passed") != std::string::npos;
  if (opt.auto_yes && checks_passed) {
    emit(RunEventKind::checkpoint_opened, a.task, a.slot, a.attempt, a.reason);
    asio::post(ctx, [this, t = a.task] {
      emit(RunEventKind::checkpoint_answered, t, -1, 0, "approved automatically (--yes; checks passed)");
      auto e = sched::make_event(EventType::answered, t);
      e.answer = sched::Answer::approved;
      feed(e);
    });
    return;
  }
  // Unique per checkpoint: a task may ask twice in a run, and "final" has no ':' to replace.
  std::string name = a.task;
  std::replace(name.begin(), name.end(), ':', '-');
  PendingCheckpoint cp{fmt::format("cp-{}-{}-{}", name, run_id, ++checkpoints_opened), a.task, a.reason,
                       state_dir / "checkpoints"};
  cp.file = write_checkpoint(state_dir, cp.id, a.task, a.reason);
  checkpoints[cp.id] = cp;
  if (auto q = worker_question.find(a.task); q != worker_question.end()) {
    checkpoint_message[cp.id] = q->second;
    worker_question.erase(q);
  }
  emit(RunEventKind::checkpoint_opened, a.task, a.slot, a.attempt,
       fmt::format("{} -- answer with: harness-cli respond {} approve|refuse", a.reason, cp.id));
  if (opt.interactive) prompt_on_terminal(cp);
  poll_checkpoints();
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
    read_terminal();
  }
}

void Orchestrator::Impl::show_terminal_question() {
  while (!tty_queue.empty() && !checkpoints.contains(tty_queue.front())) tty_queue.pop_front();
  if (tty_queue.empty()) return;
  const auto& cp = checkpoints.at(tty_queue.front());
  std::cerr << fmt::format("\n? {} [{}]\n  approve (y) / refuse (n): ", cp.question, cp.task) << std::flush;
}

void Orchestrator::Impl::read_terminal() {
  tty_in->async_read_some(asio::buffer(tty_chunk), [this](boost::system::error_code e, std::size_t n) {
    if (e || done) return; // closed terminal or the run is over: `respond` remains
    tty_line.append(tty_chunk.data(), n);
    for (auto nl = tty_line.find('\n'); nl != std::string::npos; nl = tty_line.find('\n')) {
      const std::string line = tty_line.substr(0, nl);
      tty_line.erase(0, nl + 1);
      while (!tty_queue.empty() && !checkpoints.contains(tty_queue.front())) tty_queue.pop_front();
      if (tty_queue.empty()) continue; // nothing asked: the line is not an answer
      const auto yes = protocol::parse_approval(line);
      if (!yes) { // an empty line or a typo decides nothing: the same question again
        std::cerr << "  please answer approve (y) or refuse (n): " << std::flush;
        continue;
      }
      const std::string id = tty_queue.front();
      tty_queue.pop_front();
      answer_checkpoint(id, *yes, "answered on the terminal");
      show_terminal_question();
    }
    read_terminal();
  });
}

void Orchestrator::Impl::poll_checkpoints() {
  checkpoint_poll.expires_after(std::chrono::milliseconds(200));
  checkpoint_poll.async_wait([this](boost::system::error_code e) {
    if (e || checkpoints.empty()) return;
    std::vector<std::pair<std::string, std::pair<bool, std::string>>> answered;
    for (const auto& [id, cp] : checkpoints)
      if (auto r = read_checkpoint_response(state_dir, id)) answered.push_back({id, *r});
      else if (auto w = answered_in_store(id)) answered.push_back({id, *w});
    for (const auto& [id, r] : answered) answer_checkpoint(id, r.first, r.second);
    if (!checkpoints.empty()) poll_checkpoints();
  });
}

void Orchestrator::Impl::answer_checkpoint(const std::string& id, bool approved, const std::string& note) {
  auto it = checkpoints.find(id);
  if (it == checkpoints.end()) return;
  const auto task = it->second.task;
  checkpoints.erase(it);
  close_checkpoint(state_dir, id);
  if (!tty_queue.empty() && tty_queue.front() == id) { // answered elsewhere while shown: next one
    tty_queue.pop_front();
    std::cerr << "(answered elsewhere)\n";
    show_terminal_question();
  }
  if (auto m = checkpoint_message.find(id); m != checkpoint_message.end()) {
    answer_worker(m->second, approved, note);
    checkpoint_message.erase(m);
  }
  emit(RunEventKind::checkpoint_answered, task, -1, 0, (approved ? "approved" : "refused") + (note.empty() ? "" : ": " + note));
  auto e = sched::make_event(EventType::answered, task);
  e.answer = approved ? sched::Answer::approved : sched::Answer::refused;
  e.detail = note;
  feed(e);
}

/// A worker's question answered straight in the store (harness_respond over MCP): the worker's
/// await returns with it, and the checkpoint the run opened for it closes with the same answer.
std::optional<std::pair<bool, std::string>> Orchestrator::Impl::answered_in_store(const std::string& checkpoint_id) {
  auto m = checkpoint_message.find(checkpoint_id);
  if (m == checkpoint_message.end() || !db) return std::nullopt;
  auto msg = db->message(m->second);
  if (!msg || !*msg || !(*msg)->response) return std::nullopt;
  const auto type = protocol::parse_message_type((*msg)->type);
  if (!type) return std::nullopt;
  const auto answer = protocol::read_answer(*type, *(*msg)->response);
  return std::pair{answer.approved, "answered over MCP" + (answer.note.empty() ? std::string() : ": " + answer.note)};
}

/// The worker that asked exited before an answer: its question is withdrawn (nobody is left to
/// read the answer). True when one was open.
bool Orchestrator::Impl::withdraw_questions(const std::string& task) {
  std::vector<std::string> ids;
  for (const auto& [id, cp] : checkpoints)
    if (cp.task == task && checkpoint_message.contains(id)) ids.push_back(id);
  bool withdrawn = false;
  for (const auto& id : ids) {
    // Answered over MCP after the last poll: the worker had its answer; close it the normal way.
    if (auto w = answered_in_store(id)) {
      answer_checkpoint(id, w->first, w->second);
      continue;
    }
    withdrawn = true;
    checkpoints.erase(id);
    checkpoint_message.erase(id);
    close_checkpoint(state_dir, id);
    emit(RunEventKind::note, task, -1, 0, "checkpoint " + id + " withdrawn: the worker that asked has exited");
  }
  worker_question.erase(task);
  return withdrawn;
}

void Orchestrator::Impl::mark_plan_verified(const sched::Action& a) {
  const auto* plan = plan_of(a);
  if (const auto* phase = plan ? spec.layout.find_phase(plan->phase) : nullptr) {
    const auto summary_file = spec.layout.summary_file(*phase, plan->id);
    if (auto r = mark_summary_verification(summary_file, "passed"); !r) emit(RunEventKind::note, a.task, -1, 0, r.error());
    else wrote({summary_file});
  }
}

} // namespace harness::orchestrator
