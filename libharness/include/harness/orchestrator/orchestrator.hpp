#pragma once
// The run loop of `harness-cli orchestrate`: one Asio thread feeds the scheduler's actions to
// worker processes and the verification pool, and feeds worker exits, worker reports, human
// answers and timers back to the scheduler as events. The spec directory's files are the record
// of finished work, so a killed run restarts from them: executed plans are not executed again,
// and the script worker's per-task commits make even a half-finished plan resume exactly once.

#include "harness/graph/progress.hpp"
#include "harness/orchestrator/run_event.hpp"
#include "harness/orchestrator/run_options.hpp"
#include "harness/orchestrator/verifier.hpp"
#include "harness/store/checkpoint_files.hpp"

#include <boost/json/object.hpp>

#include <memory>

namespace harness::orchestrator {

/// Why a run did not start: an invalid spec, or problems that would stop it part-way (no git
/// repository or identity, a worker that cannot be launched; start_problems) (exit_code 2), or a
/// project another orchestrate is running in, or state that cannot be opened (exit_code 1).
struct RunError {
  std::string message;
  int exit_code = 2;
};

class Orchestrator {
public:
  Orchestrator(RunOptions options, Verifier& verifier, Observer& observer);
  ~Orchestrator();
  Orchestrator(const Orchestrator&) = delete;
  Orchestrator& operator=(const Orchestrator&) = delete;

  /// Runs until the spec is complete, blocked, waiting for a human with nothing else to do (only
  /// without a terminal prompt: `interactive` runs wait for the answer), or interrupted
  /// (SIGINT/SIGTERM/SIGHUP: the first drains, the second stops; an observer whose output is a
  /// closed pipe, Observer::output_error() EPIPE, drains it too, once). Fails before starting or writing
  /// anything when the spec does not load or validate, when start_problems finds any, or when
  /// another orchestrate runs in the project.
  std::expected<RunSummary, RunError> run();

private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

/// `.orchestration/sessions/<id>/checkpoint.json` files waiting for an answer that a run will
/// read: the running orchestrate's own, and those an earlier run left (the next run that reaches
/// their task asks the same again and takes the answer). Stale ones (a worker's question whose
/// run has ended) are not listed.
struct PendingCheckpoint {
  std::string id;        ///< what `harness-cli respond` takes
  std::string task;
  std::string question;
  std::filesystem::path file;
  std::string hint;      ///< for one left by an earlier run: who will read the answer
  std::string spec;      ///< the spec directory's name (empty in files of older harness versions)
  std::string head;      ///< the commit HEAD was at when asked (empty: unknown)
  store::CheckpointAsks asks = store::CheckpointAsks::approval; ///< which answers it takes
  std::vector<std::string> options; ///< a worker's decision: its options (store::read_typed_answer)
};
std::vector<PendingCheckpoint> pending_checkpoints(const std::filesystem::path& state_dir);
/// `respond --list`: one `<id>  <spec>  <task>  <question>  [answer: <forms>]  (<who reads the
/// answer>)` line per checkpoint (the answers only for one that takes other than approve|refuse);
/// the spec, since every spec has its own verify-plan:01-01.
std::string checkpoints_text(const std::vector<PendingCheckpoint>& pending);
/// `respond --list --json`: `{"checkpoints": [{"id", "spec", "task", "question", "asks", "options",
/// "head"?}]}`; `asks` is approval | decision | action, `options` the answers it takes
/// (store::answer_options).
std::string checkpoints_json(const std::vector<PendingCheckpoint>& pending);
/// "<task> of <spec>: <question> -- answer with: harness-cli respond <id> approve|refuse" (or the
/// checkpoint's own answers, store::answer_forms): a line of
/// the run's summary and of `status`'s "Waiting for your answer".
std::string waiting_line(const PendingCheckpoint& checkpoint);
/// waiting_line of each checkpoint in `state_dir` that belongs to spec `spec_name` (or names none).
std::vector<std::string> waiting_lines(const std::filesystem::path& state_dir, const std::string& spec_name);
/// `status`'s view of those checkpoints, from one reading: `p.waiting` holds their waiting_lines,
/// and the plans whose verification waits on one are marked (graph::mark_awaiting_answer).
void show_waiting_checkpoints(graph::Progress& p, const std::filesystem::path& state_dir, const std::string& spec_name);

/// `status`'s view of the project's run state, from one open of its store: an orchestrate running
/// now (`running`, `running_orchestrate`) and the plans it has workers on (or, when its store
/// cannot be read, an older harness's, why in `running_tasks_unread`); without one, workers an
/// earlier run left running (`left_running`; marked running, since they would be its own); the
/// phases whose plans no plan checker has passed yet (graph::mark_unchecked); and the checkpoints
/// waiting for an answer (show_waiting_checkpoints). Nothing is created where nothing ran.
void show_run_state(graph::Progress& p, const spec::Layout& layout);

/// What respond_checkpoint wrote.
struct Responded {
  std::string answer;        ///< as written: approve | refuse | done | the option chosen
  std::string replaced;      ///< the answer it replaced (--replace), empty when none
  std::string replaced_note; ///< that answer's note
  /// "approve", or "approve (it replaces refuse, whose note was: wrong one)".
  std::string text() const;
  /// `{"id", "answer", "replaces"?: {"answer", "note"}}`: `answer` holds the answer alone (review
  /// MM M2: a script comparing it with approve broke after a --replace).
  boost::json::object json(const std::string& id) const;
};

/// Answers a pending checkpoint (writes checkpoint_response.json atomically). `answer` is read by
/// store::read_typed_answer against what the checkpoint asks (approve, yes, ok, refuse, no, ... in
/// any case; done for an action; one of a worker's options, or its number); returns the answer as
/// written (approve | refuse | the option chosen) and the one it replaced. Fails with exit_code 2 for an answer the
/// checkpoint does not take (the message lists those it does), an unknown id,
/// or a checkpoint whose answer nobody would read (stale, answered, expired: the message names the
/// one that waits for the same task), and 1 when the answer cannot be written. `replace`: an
/// answer given before may be replaced (store::Replace).
std::expected<Responded, RunError> respond_checkpoint(const std::filesystem::path& state_dir, const std::string& id,
                                                        const std::string& answer, const std::string& note,
                                                        store::Replace replace = store::Replace::no);

} // namespace harness::orchestrator
