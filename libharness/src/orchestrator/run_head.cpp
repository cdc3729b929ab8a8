// The branch a run commits to: read at its start, watched while it goes on. A branch switched in
// another terminal would split the run's work over two branches, and its verifications would read
// the other branch's files and report what is on the first as missing. A branch rewound under it
// (a worker's `git reset --hard HEAD~3`, an amend) takes commits the run made or counted off the
// branch: its verifications would then blame the plans whose work was erased.
#include "run_loop.hpp"

#include <fmt/ranges.h>

namespace harness::orchestrator {

namespace {

/// The command that makes HEAD `head` again.
std::string switch_back(const worker::GitHead& head) {
  return head.branch.empty() ? "git switch --detach " + head.commit.substr(0, 12) : "git switch " + head.branch;
}

/// "1a2b3c4d5e feat(01-02): task 1, ...": at most `most` commits, then how many more.
std::string commit_list(const std::vector<worker::TrailerCommit>& commits, std::size_t most = 8) {
  std::string out;
  for (std::size_t i = 0; i < commits.size() && i < most; ++i)
    out += fmt::format("{}{} {}", i ? ", " : "", commits[i].hash.substr(0, 10), commits[i].subject);
  if (commits.size() > most) out += fmt::format(" and {} more", commits.size() - most);
  return out;
}

std::string commits_word(std::size_t n) { return n == 1 ? "1 commit" : fmt::format("{} commits", n); }

} // namespace

void Orchestrator::Impl::note_head_at_start(const StartFacts& facts) {
  git_dir = facts.git_dir;
  head_at_start = worker::read_head(git_dir);
  if (head_at_start) known_tip = worker::read_head_commit(git_dir, *head_at_start).value_or("");
  if (!head_at_start || !head_at_start->branch.empty()) return;
  emit(RunEventKind::note, "", -1, 0,
       fmt::format("HEAD is detached (at {}): this run's commits will be on no branch; to keep them, make one before "
                   "you check out anything else (git switch -c NAME)",
                   head_at_start->commit.substr(0, 10)));
}

bool Orchestrator::Impl::head_moved() {
  if (head_moved_to || rewound) return true;
  if (!head_at_start) return false;
  // Unreadable for a moment is no move (git writes HEAD.lock, then renames it over HEAD).
  const auto now = worker::read_head(git_dir);
  if (!now) return false;
  // A detached HEAD moves with each commit made on it, the run's own included: for it, as for a
  // branch, only whether its commit descends from the last one seen tells a commit from a move.
  if (now->branch == head_at_start->branch) return branch_rewound(*now);
  head_moved_to = *now;
  const auto from = worker::describe(*head_at_start), to = worker::describe(*now);
  stop_for_head(fmt::format("HEAD moved from {} to {} during the run: switch back ({}) and run orchestrate again", from,
                            to, switch_back(*head_at_start)),
                fmt::format("HEAD moved from {} to {} during the run (a switch or checkout elsewhere): no new tasks, and "
                            "nothing more is verified, written to the spec or committed by the run, since it would land "
                            "on {}; running workers finish (what they commit goes to {}). The run's work so far is on "
                            "{}: switch back ({}) and run orchestrate again, which takes up where this one stopped",
                            from, to, to, to, from, switch_back(*head_at_start)));
  return true;
}

bool Orchestrator::Impl::branch_rewound(const worker::GitHead& now) {
  const auto tip = worker::read_head_commit(git_dir, now);
  if (!tip || *tip == known_tip) return false;
  // Most moves are the run's own commits: the trailer index reads them anyway, with their parents,
  // which prove a fast forward without a `git merge-base`. What they cannot prove, git decides.
  const bool grew = known_tip.empty() || (trailers && trailers->descends(*tip, known_tip));
  auto rewind = grew ? std::nullopt : worker::find_rewind(spec.layout.project_root, known_tip, *tip);
  if (!rewind) { // the branch grew (or its first commit appeared): what it held, it holds
    known_tip = *tip;
    return false;
  }
  rewound = std::move(*rewind);
  const auto& r = *rewound;
  const std::string where = worker::describe(now), old10 = r.old_tip.substr(0, 10);
  std::set<std::string> plans; // whose task or SUMMARY commits are gone
  for (const auto& c : r.lost)
    if (!c.plan.empty() && ours()(c.spec)) plans.insert(c.plan);
  const std::string plan_part =
      plans.empty() ? "" : fmt::format(" (plan{} {})", plans.size() == 1 ? "" : "s", fmt::join(plans, ", "));
  const std::string reflog = now.branch.empty() ? "git reflog" : "git reflog " + now.branch;
  // Kept first, always: workers that finish after the rewind commit on the rewound branch too, so
  // the reset drops more than the note can count now. The note and the run's last line give the
  // same command.
  const std::string keep = fmt::format("git branch rewound-{} {}", r.new_tip.substr(0, 10), now.branch.empty() ? "HEAD" : now.branch);
  const std::string added =
      r.added.empty() ? ""
                      : fmt::format(" (the {} made on the rewound branch since: {})", commits_word(r.added.size()),
                                    commit_list(r.added));
  stop_for_head(
      fmt::format("{} was rewound during the run: {} it held {} on no branch now{}: put it back (`{}` keeps what was "
                  "committed on the rewound branch, workers that finished since included, to cherry-pick; then git "
                  "reset --hard {}, see {}) and run orchestrate again",
                  where, commits_word(r.lost.size()), r.lost.size() == 1 ? "is" : "are", plan_part, keep, old10, reflog),
      fmt::format("{} was rewound during the run (a reset, an amend or a rebase, by a worker or elsewhere): its tip went "
                  "from {} to {}, which does not descend from it, so {} the run made or counted {} on no branch now, "
                  "though commits.log may still list {}{}: {}. No new tasks, and nothing more is verified, written "
                  "to the spec or committed by the run; running workers finish. To get them back, once the run has "
                  "ended, `{}` keeps what is committed on the rewound branch{} to cherry-pick, then `git reset --hard "
                  "{}` puts {} where the run last saw it (it discards uncommitted changes; `{}` lists each move); then "
                  "run orchestrate again, which takes up where this one stopped",
                  where, old10, r.new_tip.substr(0, 10), commits_word(r.lost.size()),
                  r.lost.size() == 1 ? "is" : "are", r.lost.size() == 1 ? "it" : "them", plan_part, commit_list(r.lost), keep,
                  added, r.old_tip, where, reflog));
  return true;
}

void Orchestrator::Impl::stop_for_head(const std::string& blocked, const std::string& note) {
  draining = true; // no new task; running workers are not stopped, even with --stop-on-interrupt
  // Not `interrupted` (exit 130, a signal): the run cannot go on until someone puts HEAD back.
  if (summary.outcome.empty() || summary.outcome == "complete") {
    summary.outcome = "blocked";
    summary.exit_code = 1;
  }
  summary.blocked.push_back("run: " + blocked);
  emit(RunEventKind::note, "", -1, 0, note);
  stop_workers_waiting_for_people(); // they would hold the run until someone answers
}

} // namespace harness::orchestrator
