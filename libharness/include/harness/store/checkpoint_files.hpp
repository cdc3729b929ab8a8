#pragma once
// The orchestrator's checkpoints as files, so that a person can answer from another terminal
// (`harness-cli respond`), from an MCP client (harness_get_pending / harness_respond) or while no
// run is alive at all:
//   .orchestration/sessions/<id>/checkpoint.json           the open question (a record, not a report)
//   .orchestration/sessions/<id>/checkpoint_response.json  the answer, until a run reads it
//   .orchestration/sessions/<id>/checkpoint.answered.json  closed: a run took the answer
//   .orchestration/sessions/<id>/checkpoint.expired.json   closed: nobody will read an answer
//   .orchestration/index/open_checkpoints/<id>            empty: names an open one (session_index.hpp)
// A checkpoint belongs to the run that opened it (`run`, the id that run writes beside its lock),
// to its spec (every spec numbers its plans from 01-01, so a task id alone names nothing) and to
// the commit HEAD was at when it asked (what the person is asked about). One the orchestrator
// asked itself (a verification, an escalation) is asked again by the next run of the same spec
// that reaches its task with that commit in its history, which takes over the file and any answer
// given meanwhile; a worker's question dies with the worker, unless the run stopped that worker
// while it waited for the answer (an interrupt): then it is kept for the task's next worker.

#include "harness/store/run_lock.hpp"

#include <boost/json/value.hpp>

#include <expected>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace harness::store {

/// Who reads the answer.
enum class CheckpointAsker {
  orchestrator, ///< the run itself (verification, escalation): a later run asks the same again
  worker,       ///< a worker waiting in harness_worker_await: gone with its run
};

enum class CheckpointState { open, answered, expired };

/// What a checkpoint asks for, and so which answers it takes (checkpoint_answers.hpp).
enum class CheckpointAsks {
  approval, ///< approve or refuse: a verification, an escalation, a worker's verification_needed
  decision, ///< a worker's decision_needed: one of its `options` (any text when it gave none), or refuse
  action,   ///< a worker's action_needed: done (the person did what the worker cannot), or refuse
};

struct CheckpointAnswer {
  bool approved = false;
  std::string note;
  std::string by; ///< who answered, and how (who_answers()); empty in files of older harnesses
  std::string at; ///< ISO 8601; answer_checkpoint() sets it when empty
  /// A decision's answer as the worker receives it (`{"choice": ...}`): the option chosen. Empty
  /// for approve/refuse, and in answers written by older harnesses.
  std::string choice = {};
};

/// "alice (harness-cli respond)": the login name of the user running this process and `how`. The
/// orchestrator records it with an answer to a phase or final verification.
std::string who_answers(std::string_view how);

struct CheckpointRecord {
  std::string id;
  std::string task;       ///< scheduler task id, "verify-plan:02-03"
  std::string spec;       ///< the spec directory's name (task ids repeat across specs); empty: an older harness's
  std::string head;       ///< the commit HEAD was at when asked; empty: unknown (an older harness, no commit)
  std::string question;   ///< what the person is asked
  std::string run;        ///< the run that opened it (empty: written by a harness without run ids)
  CheckpointAsker asker = CheckpointAsker::orchestrator;
  CheckpointAsks asks = CheckpointAsks::approval;
  std::vector<std::string> options; ///< asks decision: the worker's options, in its order (may be none)
  std::string message_id; ///< the worker's question in the store (asker worker)
  /// Asker worker: the run stopped that worker (an interrupt) while the question was open. It
  /// stays open for the task's next worker, which the run that reaches the task gives the answer
  /// (or the question, still unanswered), as an orchestrator's checkpoint is carried over.
  bool kept_for_task = false;
  std::string opened_at;  ///< ISO 8601
  CheckpointState state = CheckpointState::open;
  std::optional<CheckpointAnswer> answer; ///< given; read by a run or not yet
  std::string expired_because;            ///< state expired
};

/// What an answer to a checkpoint would do now.
enum class CheckpointStatus {
  waiting,      ///< open; the running orchestrate that opened it reads the answer
  carried_over, ///< open; its run ended: a run that reaches its task again takes the answer
  stale,        ///< open, yet nobody will read an answer: the worker that asked ended with its run (not kept_for_task)
  answered,
  expired,
};
std::string_view to_string(CheckpointStatus s);

/// The status of `r` while `running` runs in the project (nullopt: no orchestrate runs). Pure.
/// An orchestrator's checkpoint whose file names no spec (written by an older harness) is stale
/// once its run ended: any spec's run could take its answer for another spec's task, so none does.
CheckpointStatus checkpoint_status(const CheckpointRecord& r, const std::optional<RunInfo>& running);
/// Why nobody reads an answer to the stale checkpoint `r`, for its expiry and respond's refusal.
std::string stale_reason(const CheckpointRecord& r);

/// Where the commit a checkpoint asked about (its `head`) stands, seen from the checkout a run
/// starts on.
enum class AskedCommit {
  unknown,    ///< the record names none (an older harness, a repository without commits)
  in_history, ///< HEAD's history holds it: the run works on what the person was asked about
  elsewhere,  ///< another branch (or ref) holds it, HEAD's history does not
  gone,       ///< no ref holds it any more (the history was rewritten, the branch deleted)
};

/// What a starting run of spec `spec_name` does with a carried-over checkpoint.
enum class CarryAction {
  take,   ///< asked again when the run reaches its task; an answer given meanwhile counts
  leave,  ///< another spec's, or asked on another branch: a run of that spec, there, takes it
  expire, ///< nobody can take it any more: `why` says so
};
struct CarryDecision {
  CarryAction action = CarryAction::take;
  std::string why;
};
/// Pure: `commit` is where `r.head` stands now (only looked at for `spec_name`'s checkpoints).
CarryDecision carry_decision(const CheckpointRecord& r, std::string_view spec_name, AskedCommit commit);

/// True for the orchestrator's own checkpoint.json (a record as above), which a worker's report
/// through the file transport never is: StateDir::ingest skips it.
bool is_checkpoint_record(const boost::json::value& v);

/// Every checkpoint under `state_dir`/sessions, open or closed, in id order: a walk of every
/// session directory the project ever had, for looking at its history.
std::vector<CheckpointRecord> read_checkpoints(const std::filesystem::path& state_dir);
/// The open checkpoints, in id order, found through the index of open checkpoints
/// (session_index.hpp, `.orchestration/index/open_checkpoints/`) that the writers below keep: what
/// status and a run's start cost grows with what is open, not with the project's history. A
/// checkpoint.json a harness without the index wrote after this one built it is not seen.
std::vector<CheckpointRecord> open_checkpoints(const std::filesystem::path& state_dir);
/// One checkpoint by id; nullopt when there is none (or the id is not a plain name).
std::optional<CheckpointRecord> read_checkpoint(const std::filesystem::path& state_dir, const std::string& id);

/// Writes `r` as the open checkpoint.json (atomic); an answer already given stays.
std::expected<void, std::string> write_open_checkpoint(const std::filesystem::path& state_dir, const CheckpointRecord& r);
/// A run read the answer and acts on it now: from here on --replace is refused (the run may be
/// killed after it recorded the answer somewhere, before it closes the checkpoint).
void mark_answer_taken(const std::filesystem::path& state_dir, const std::string& id);
/// A run took the answer: checkpoint.json and the response become *.answered.json.
void close_answered_checkpoint(const std::filesystem::path& state_dir, const std::string& id);
/// Nobody will read an answer to it any more: checkpoint.expired.json records why.
void expire_checkpoint(const std::filesystem::path& state_dir, const std::string& id, const std::string& why);

/// The answer given to the open checkpoint `id`, not read by a run yet.
std::optional<CheckpointAnswer> read_checkpoint_answer(const std::filesystem::path& state_dir, const std::string& id);

/// Why an answer was not taken: exit_code 2 for an answer nobody would read (unknown, stale,
/// closed), 1 when the answer could not be written.
struct CheckpointRefusal {
  std::string message;
  int exit_code = 2;
};
/// Whether an answer may take the place of one given before.
enum class Replace {
  no,  ///< the first answer stands (two people answering must not overwrite each other silently)
  yes, ///< a person corrects their answer: only while no orchestrate runs in the project (none can
       ///< have read it) and for an orchestrator's checkpoint (a worker may have read its answer)
};
/// The open checkpoint `id` if an answer to it would be read (waiting or carried over, none given
/// yet, or one `replace` may replace); else why not, as answer_checkpoint refuses it. Lets
/// `respond` read a typed answer against the checkpoint's options only once the checkpoint is
/// known to take one. The record's `answer` is the one given before, if any.
std::expected<CheckpointRecord, CheckpointRefusal> answerable_checkpoint(const std::filesystem::path& state_dir,
                                                                        const std::string& id, Replace replace = Replace::no);
/// Writes the answer to an open checkpoint whose answer someone will read (waiting or carried
/// over); refuses a stale or closed one, naming the checkpoint that waits for the same task of the
/// same spec.
std::expected<void, CheckpointRefusal> answer_checkpoint(const std::filesystem::path& state_dir, const std::string& id,
                                                         const CheckpointAnswer& answer, Replace replace = Replace::no);

/// Open checkpoints without an answer yet whose answer someone will read, in id order.
struct PendingCheckpointView {
  CheckpointRecord record;
  CheckpointStatus status = CheckpointStatus::waiting;
  /// Who reads the answer, for a carried-over one ("the next orchestrate of SPC-... takes it when
  /// it reaches verify-plan:01-01 with commit 1a2b3c4 in its history").
  std::string hint;
};
std::vector<PendingCheckpointView> pending_checkpoint_views(const std::filesystem::path& state_dir);

} // namespace harness::store
