// The branch a run commits to: read at its start, watched while it goes on. A branch switched in
// another terminal would split the run's work over two branches, and its verifications would read
// the other branch's files and report what is on the first as missing.
#include "run_loop.hpp"

namespace harness::orchestrator {

namespace {

/// The command that makes HEAD `head` again.
std::string switch_back(const worker::GitHead& head) {
  return head.branch.empty() ? "git switch --detach " + head.commit.substr(0, 12) : "git switch " + head.branch;
}

} // namespace

void Orchestrator::Impl::note_head_at_start(const StartFacts& facts) {
  git_dir = facts.git_dir;
  head_at_start = worker::read_head(git_dir);
  if (!head_at_start || !head_at_start->branch.empty()) return;
  emit(RunEventKind::note, "", -1, 0,
       fmt::format("HEAD is detached (at {}): this run's commits will be on no branch; to keep them, make one before "
                   "you check out anything else (git switch -c NAME)",
                   head_at_start->commit.substr(0, 10)));
}

bool Orchestrator::Impl::head_moved() {
  if (head_moved_to) return true;
  if (!head_at_start) return false;
  // Unreadable for a moment is no move (git writes HEAD.lock, then renames it over HEAD).
  const auto now = worker::read_head(git_dir);
  if (!now || *now == *head_at_start) return false;
  head_moved_to = *now;
  draining = true; // no new task; running workers are not stopped, even with --stop-on-interrupt
  // Not `interrupted` (exit 130, a signal): the run cannot go on until someone switches back.
  if (summary.outcome.empty() || summary.outcome == "complete") {
    summary.outcome = "blocked";
    summary.exit_code = 1;
  }
  const auto from = worker::describe(*head_at_start), to = worker::describe(*now);
  summary.blocked.push_back(fmt::format("run: HEAD moved from {} to {} during the run: switch back ({}) and run "
                                        "orchestrate again",
                                        from, to, switch_back(*head_at_start)));
  emit(RunEventKind::note, "", -1, 0,
       fmt::format("HEAD moved from {} to {} during the run (a switch or checkout elsewhere): no new tasks, and "
                   "nothing more is verified, written to the spec or committed by the run, since it would land on {}; "
                   "running workers finish (what they commit goes to {}). The run's work so far is on {}: switch "
                   "back ({}) and run orchestrate again, which takes up where this one stopped",
                   from, to, to, to, from, switch_back(*head_at_start)));
  return true;
}

} // namespace harness::orchestrator
