#include "harness/store/checkpoint_files.hpp"

#include "harness/store/checkpoint_answers.hpp"
#include "harness/store/session_index.hpp"

#include "harness/protocol/codec.hpp"
#include "harness/protocol/message.hpp"
#include "harness/util/atomic_file.hpp"
#include "harness/util/text.hpp"
#include "harness/util/private_directory.hpp"

#include <boost/json.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <pwd.h>
#include <unistd.h>

namespace harness::store {
namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

constexpr const char* open_file = "checkpoint.json";
constexpr const char* answered_file = "checkpoint.answered.json";
constexpr const char* expired_file = "checkpoint.expired.json";
constexpr const char* response_file = "checkpoint_response.json";
constexpr const char* answered_response_file = "checkpoint_response.answered.json";
constexpr const char* expired_response_file = "checkpoint_response.expired.json";
constexpr const char* taken_file = "checkpoint_response.taken"; ///< a run read the answer (mark_answer_taken)

/// An id names one directory under sessions/, never a path out of it.
bool plain_name(const std::string& id) {
  return !id.empty() && id != "." && id != ".." && id.find('/') == std::string::npos && id.find('\0') == std::string::npos;
}

std::optional<CheckpointAnswer> answer_in(const fs::path& file) {
  auto o = protocol::read_json_object(file);
  if (!o) return std::nullopt;
  return CheckpointAnswer{protocol::string_field(*o, "answer") == "approve", protocol::string_field(*o, "note"),
                          protocol::string_field(*o, "answered_by"), protocol::string_field(*o, "answered_at"),
                          protocol::string_field(*o, "choice")};
}

/// The wire type a checkpoint file names for what it asks (older files: always verification_needed).
const char* type_name(CheckpointAsks asks) {
  switch (asks) {
  case CheckpointAsks::decision: return "decision_needed";
  case CheckpointAsks::action: return "action_needed";
  case CheckpointAsks::approval: break;
  }
  return "verification_needed";
}

std::optional<CheckpointRecord> read_dir(const fs::path& dir) {
  CheckpointRecord r;
  std::optional<json::object> o;
  if ((o = protocol::read_json_object(dir / open_file))) {
    r.state = CheckpointState::open;
    r.answer = answer_in(dir / response_file);
  } else if ((o = protocol::read_json_object(dir / answered_file))) {
    r.state = CheckpointState::answered;
    r.answer = answer_in(dir / answered_response_file);
  } else if ((o = protocol::read_json_object(dir / expired_file))) {
    r.state = CheckpointState::expired;
    r.answer = answer_in(dir / expired_response_file);
  } else {
    return std::nullopt;
  }
  if (!is_checkpoint_record(*o)) return std::nullopt; // a worker's report through the file transport
  r.id = protocol::string_field(*o, "id");
  if (r.id.empty()) r.id = dir.filename().string();
  r.task = protocol::string_field(*o, "task");
  r.spec = protocol::string_field(*o, "spec");
  r.head = protocol::string_field(*o, "head");
  r.question = protocol::string_field(*o, "question");
  r.run = protocol::string_field(*o, "run");
  r.asker = protocol::string_field(*o, "asker") == "orchestrator" ? CheckpointAsker::orchestrator : CheckpointAsker::worker;
  r.message_id = protocol::string_field(*o, "message_id");
  if (const auto* kept = o->if_contains("kept_for_task")) r.kept_for_task = kept->is_bool() && kept->as_bool();
  const std::string type = protocol::string_field(*o, "type");
  r.asks = type == "decision_needed" ? CheckpointAsks::decision
           : type == "action_needed" ? CheckpointAsks::action
                                     : CheckpointAsks::approval;
  if (const auto* opts = o->if_contains("options"); r.asks == CheckpointAsks::decision && opts && opts->is_array())
    for (const auto& x : opts->as_array())
      if (x.is_string()) r.options.emplace_back(x.as_string());
  r.opened_at = protocol::string_field(*o, "opened_at");
  r.expired_because = protocol::string_field(*o, "expired_because");
  return r;
}

/// The directories under sessions/ that hold an open checkpoint: what status and a run's start
/// read, instead of every session directory the project ever had.
const SessionIndex& open_index() {
  static const SessionIndex index{"open_checkpoints", [](const fs::path& dir) {
                                    const auto r = read_dir(dir);
                                    return r && r->state == CheckpointState::open;
                                  }};
  return index;
}

json::object to_json(const CheckpointRecord& r) {
  // An approval's `type` and `options` as the file always had them: readers of older harness
  // versions. A worker's decision lists the worker's options, which its answer must be one of.
  json::array options;
  for (const auto& x : answer_options(r.asks, r.options)) options.emplace_back(x);
  json::object o{{"id", r.id},
                 {"task", r.task},
                 {"type", type_name(r.asks)},
                 {"question", r.question},
                 {"options", std::move(options)},
                 {"run", r.run},
                 {"asker", r.asker == CheckpointAsker::orchestrator ? "orchestrator" : "worker"},
                 {"opened_at", r.opened_at}};
  if (!r.spec.empty()) o["spec"] = r.spec;
  if (!r.head.empty()) o["head"] = r.head;
  if (!r.message_id.empty()) o["message_id"] = r.message_id;
  if (r.kept_for_task) o["kept_for_task"] = true;
  if (!r.expired_because.empty()) o["expired_because"] = r.expired_because;
  return o;
}

/// Whether `running` runs spec `spec_name`: the lock names the spec by its directory, whose last
/// component is the spec's name (a legacy `.planning/` project has one spec only).
bool runs_spec(const RunInfo& running, const std::string& spec_name) {
  fs::path dir(running.spec);
  if (dir.filename().empty()) dir = dir.parent_path(); // "docs/specs/SPC-001-x/"
  return dir.filename() == spec_name || dir.filename() == ".planning";
}

/// Who takes the answer to a carried-over checkpoint: a run of its spec, on a checkout whose
/// history holds the commit it asked about.
std::string carried_over_hint(const CheckpointRecord& r, const std::optional<RunInfo>& running) {
  const std::string where = r.head.empty() ? "" : fmt::format(" with commit {} in its history", r.head.substr(0, 7));
  if (r.asker == CheckpointAsker::worker) { // kept_for_task: no worker reads it, the task's next one does
    const std::string who = !running              ? fmt::format("no orchestrate runs; the next one of {}", r.spec)
                            : runs_spec(*running, r.spec) ? std::string("the running orchestrate")
                                                          : fmt::format("the next orchestrate of {}", r.spec);
    return fmt::format("its worker was stopped while it waited; {} gives the answer to the next worker of {}", who, r.task);
  }
  if (!running) return fmt::format("no orchestrate runs; the next one of {} takes the answer when it reaches {}{}", r.spec, r.task, where);
  if (runs_spec(*running, r.spec))
    return fmt::format("opened by an earlier run; the running orchestrate takes the answer when it reaches {}{}", r.task, where);
  return fmt::format("opened by an earlier run; the next orchestrate of {} takes the answer when it reaches {}{}", r.spec, r.task, where);
}

bool answerable(CheckpointStatus s) { return s == CheckpointStatus::waiting || s == CheckpointStatus::carried_over; }

/// The checkpoint an answer about `task` (of the same spec) belongs to now, for a refusal's message.
std::string where_to_answer(const fs::path& state_dir, const CheckpointRecord& refused, const std::optional<RunInfo>& running) {
  for (const auto& r : open_checkpoints(state_dir))
    if (r.id != refused.id && r.task == refused.task && r.spec == refused.spec && answerable(checkpoint_status(r, running)))
      return fmt::format("; {} waits on checkpoint {} now: harness-cli respond {} {}", r.task, r.id, r.id,
                         answer_forms(r.asks, r.options));
  return fmt::format("; no checkpoint of {} waits for an answer now (harness-cli respond --list shows the ones that do)",
                     refused.task);
}

} // namespace

std::string who_answers(std::string_view how) {
  std::string name;
  if (const passwd* pw = ::getpwuid(::geteuid()); pw && pw->pw_name) name = pw->pw_name;
  else if (const char* user = std::getenv("USER")) name = user;
  if (name.empty()) name = fmt::format("uid {}", ::geteuid());
  return fmt::format("{} ({})", name, how);
}

std::string_view to_string(CheckpointStatus s) {
  switch (s) {
  case CheckpointStatus::waiting: return "waiting";
  case CheckpointStatus::carried_over: return "carried_over";
  case CheckpointStatus::stale: return "stale";
  case CheckpointStatus::answered: return "answered";
  case CheckpointStatus::expired: return "expired";
  }
  return "stale";
}

CheckpointStatus checkpoint_status(const CheckpointRecord& r, const std::optional<RunInfo>& running) {
  if (r.state == CheckpointState::answered) return CheckpointStatus::answered;
  if (r.state == CheckpointState::expired) return CheckpointStatus::expired;
  if (r.run.empty()) return CheckpointStatus::stale; // no run id: nothing says who would read it
  if (running && running->run_id == r.run) return CheckpointStatus::waiting;
  // A worker's question dies with its worker, unless its run stopped the worker while it waited
  // (kept_for_task), or a person answered before the run passed the answer on (killed right after
  // `respond`): then the task's next worker is given the question and the answer.
  if (r.asker == CheckpointAsker::worker && !r.kept_for_task && !r.answer) return CheckpointStatus::stale;
  return r.spec.empty() ? CheckpointStatus::stale : CheckpointStatus::carried_over; // no spec: whose task?
}

std::string stale_reason(const CheckpointRecord& r) {
  if (r.run.empty()) return "the run that opened it has ended, so nobody would read an answer";
  if (r.asker == CheckpointAsker::worker)
    return "the run that opened it has ended and the worker that asked ended with it, so nobody would read an answer";
  return "an older harness wrote it without naming its spec, so no run reads an answer (another spec's run could take "
         "it for its own task of the same id); the next run of its spec asks again";
}

CarryDecision carry_decision(const CheckpointRecord& r, std::string_view spec_name, AskedCommit commit) {
  if (r.spec != spec_name) return {CarryAction::leave, {}};
  switch (commit) {
  case AskedCommit::elsewhere: return {CarryAction::leave, {}};
  case AskedCommit::gone:
    return {CarryAction::expire,
            fmt::format("it asked about commit {}, which no branch holds any more: the work it asked about is gone",
                        r.head.substr(0, 12))};
  case AskedCommit::unknown:
  case AskedCommit::in_history: break;
  }
  return {CarryAction::take, {}};
}

bool is_checkpoint_record(const json::value& v) {
  // A report is a protocol envelope, which always carries its version `v`; a record never does.
  if (!v.is_object()) return false;
  const auto& o = v.as_object();
  auto* q = o.if_contains("question");
  auto* t = o.if_contains("task");
  return !o.contains("v") && q && q->is_string() && t && t->is_string();
}

std::vector<CheckpointRecord> read_checkpoints(const fs::path& state_dir) {
  std::vector<CheckpointRecord> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(state_dir / "sessions", ec))
    if (auto r = read_dir(e.path())) out.push_back(std::move(*r));
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  return out;
}

std::vector<CheckpointRecord> open_checkpoints(const fs::path& state_dir) {
  std::vector<CheckpointRecord> out;
  for (const auto& id : indexed_sessions(state_dir, open_index()))
    if (auto r = read_dir(state_dir / "sessions" / id); r && r->state == CheckpointState::open) out.push_back(std::move(*r));
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  return out;
}

std::optional<CheckpointRecord> read_checkpoint(const fs::path& state_dir, const std::string& id) {
  if (!plain_name(id)) return std::nullopt;
  return read_dir(state_dir / "sessions" / id);
}

std::expected<void, std::string> write_open_checkpoint(const fs::path& state_dir, const CheckpointRecord& r) {
  if (!plain_name(r.id)) return std::unexpected("invalid checkpoint id '" + r.id + "'");
  // The index first: a crash in between leaves an entry without its checkpoint, never the reverse.
  if (auto indexed = add_to_index(state_dir, open_index(), r.id); !indexed) return indexed;
  if (auto ec = util::create_private_directories(state_dir / "sessions" / r.id))
    return std::unexpected(fmt::format("{}: create directory: {}", (state_dir / "sessions" / r.id).string(), ec.message()));
  return util::write_file_atomic(state_dir / "sessions" / r.id / open_file, json::serialize(to_json(r)) + "\n");
}

void mark_answer_taken(const fs::path& state_dir, const std::string& id) {
  if (!plain_name(id)) return;
  // Best effort: without the mark, a --replace after a kill is taken and may be ignored, as before.
  (void)util::write_file_atomic(state_dir / "sessions" / id / taken_file, "taken\n");
}

void close_answered_checkpoint(const fs::path& state_dir, const std::string& id) {
  if (!plain_name(id)) return;
  std::error_code ec;
  const fs::path dir = state_dir / "sessions" / id;
  fs::rename(dir / open_file, dir / answered_file, ec);
  fs::rename(dir / response_file, dir / answered_response_file, ec);
  remove_from_index(state_dir, open_index(), id);
}

void expire_checkpoint(const fs::path& state_dir, const std::string& id, const std::string& why) {
  auto r = read_checkpoint(state_dir, id);
  if (!r || r->state != CheckpointState::open) return;
  r->expired_because = why;
  const fs::path dir = state_dir / "sessions" / id;
  // The expired record first: a crash in between leaves the checkpoint open, never lost.
  if (!util::write_file_atomic(dir / expired_file, json::serialize(to_json(*r)) + "\n")) return;
  std::error_code ec;
  fs::remove(dir / open_file, ec);
  fs::rename(dir / response_file, dir / expired_response_file, ec);
  remove_from_index(state_dir, open_index(), id);
}

std::expected<CheckpointRecord, CheckpointRefusal> answerable_checkpoint(const fs::path& state_dir, const std::string& id,
                                                                        Replace replace) {
  auto r = read_checkpoint(state_dir, id);
  if (!r) return std::unexpected(CheckpointRefusal{fmt::format("no checkpoint '{}' (harness-cli respond --list shows the pending ones)", id)});
  const auto running = running_orchestrator(state_dir);
  switch (checkpoint_status(*r, running)) {
  case CheckpointStatus::answered:
    return std::unexpected(CheckpointRefusal{fmt::format(
        "checkpoint {} was answered already{}; nothing reads another answer", id,
        !r->answer ? ""
                   : fmt::format(" ({}{})",
                                 !r->answer->choice.empty() ? "chose " + r->answer->choice
                                 : r->answer->approved      ? std::string("approved")
                                                            : std::string("refused"),
                                 r->answer->by.empty() ? "" : " by " + r->answer->by))});
  case CheckpointStatus::expired:
    return std::unexpected(CheckpointRefusal{
        fmt::format("checkpoint {} has expired ({}){}", id, r->expired_because, where_to_answer(state_dir, *r, running))});
  case CheckpointStatus::stale:
    return std::unexpected(CheckpointRefusal{
        fmt::format("checkpoint {} is stale: {}{}", id, stale_reason(*r), where_to_answer(state_dir, *r, running))});
  case CheckpointStatus::waiting:
  case CheckpointStatus::carried_over: break;
  }
  // Two people answering (a terminal and an MCP client) must not overwrite each other silently:
  // the first answer stands until the run takes it, unless its author replaces it while nothing
  // can have read it.
  if (!r->answer) return std::move(*r);
  // On one line, without a worker's escape sequences (review QQ F3).
  const std::string given =
      fmt::format("checkpoint {} has an answer already ({}{})", id, util::printable(answer_text(*r->answer, r->asks), false),
                  r->answer->note.empty() ? "" : ": " + util::printable(r->answer->note, false));
  // Taken or not (a worker's answer stays open until the worker is done with it), it stands.
  if (running)
    return std::unexpected(CheckpointRefusal{fmt::format(
        "{}; the first answer stands, and nothing replaces it while an orchestrate runs ({}: it may have read it)", given,
        describe_run(*running))});
  if (r->asker == CheckpointAsker::worker)
    return std::unexpected(CheckpointRefusal{fmt::format(
        "{}; the first answer stands, and nothing replaces it: a worker may have read it already", given)});
  std::error_code ec;
  // A run killed after it read the answer may have acted on it already (an approval is written
  // into a VERIFICATION before the checkpoint closes): replacing it now would be ignored.
  if (fs::exists(state_dir / "sessions" / id / taken_file, ec))
    return std::unexpected(CheckpointRefusal{fmt::format(
        "{}; the first answer stands, and nothing replaces it: a run read it already and may have acted on it", given)});
  if (replace == Replace::no)
    return std::unexpected(CheckpointRefusal{fmt::format(
        "{}; the first answer stands: no run has read it yet, so `harness-cli respond {} ANSWER --replace` replaces it",
        given, id)});
  return std::move(*r);
}

std::expected<void, CheckpointRefusal> answer_checkpoint(const fs::path& state_dir, const std::string& id,
                                                         const CheckpointAnswer& answer, Replace replace) {
  // A replacement is accepted only while no run can have read the first answer: no run starts
  // before it is written (one that runs already makes answerable_checkpoint refuse it).
  std::optional<RunsHeldOff> held;
  if (replace == Replace::yes)
    if (auto h = hold_off_runs(state_dir)) held.emplace(std::move(*h));
  if (auto r = answerable_checkpoint(state_dir, id, replace); !r) return std::unexpected(std::move(r.error()));
  json::object o{{"id", id},
                 {"answer", answer.approved ? "approve" : "refuse"},
                 {"note", answer.note},
                 {"answered_at", answer.at.empty() ? protocol::now_iso8601() : answer.at}};
  if (!answer.by.empty()) o["answered_by"] = answer.by;
  if (!answer.choice.empty()) o["choice"] = answer.choice; // `answer` stays approve: older readers go on
  if (auto w = util::write_file_atomic(state_dir / "sessions" / id / response_file, json::serialize(o) + "\n"); !w)
    return std::unexpected(CheckpointRefusal{w.error(), 1});
  return {};
}

std::optional<CheckpointAnswer> read_checkpoint_answer(const fs::path& state_dir, const std::string& id) {
  if (!plain_name(id)) return std::nullopt;
  return answer_in(state_dir / "sessions" / id / response_file);
}

std::vector<PendingCheckpointView> pending_checkpoint_views(const fs::path& state_dir) {
  std::vector<PendingCheckpointView> out;
  const auto running = running_orchestrator(state_dir);
  for (auto& r : open_checkpoints(state_dir)) {
    const auto status = checkpoint_status(r, running);
    if (!answerable(status) || r.answer) continue;
    out.push_back({std::move(r), status, {}});
    if (status == CheckpointStatus::carried_over) out.back().hint = carried_over_hint(out.back().record, running);
  }
  return out;
}

} // namespace harness::store
