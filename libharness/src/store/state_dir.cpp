// `.orchestration/` projection and file transport.
#include "harness/store/state_dir.hpp"

#include "harness/store/checkpoint_files.hpp"

#include "harness/protocol/codec.hpp"
#include "harness/util/atomic_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace harness::store {
namespace json = boost::json;
namespace fs = std::filesystem;
namespace {

std::expected<void, std::string> write_json(const fs::path& path, const json::value& v) {
  return util::write_file_atomic(path, json::serialize(v) + "\n");
}

/// A 128-bit content hash as 32 hex digits (two FNV-1a passes with different offsets): ids of
/// file-transport messages, so the same file content always maps to the same message id.
std::string content_id(std::string_view kind, std::string_view session, std::string_view content) {
  auto fnv = [&](std::uint64_t h) {
    for (std::string_view part : {kind, std::string_view("\0", 1), session, std::string_view("\0", 1), content})
      for (unsigned char ch : part) {
        h ^= ch;
        h *= 1099511628211ull;
      }
    return h;
  };
  return fmt::format("{:016x}{:016x}", fnv(14695981039346656037ull), fnv(0x9e3779b97f4a7c15ull));
}

std::expected<std::string, std::string> field_string(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  if (!v) return std::unexpected(fmt::format("{}: missing required field", key));
  if (!v->is_string()) return std::unexpected(fmt::format("{}: expected string", key));
  return std::string(v->get_string());
}

std::expected<std::vector<std::string>, std::string> field_strings(const json::object& o, std::string_view key) {
  std::vector<std::string> out;
  const json::value* v = o.if_contains(key);
  if (!v || v->is_null()) return out;
  if (!v->is_array()) return std::unexpected(fmt::format("{}: expected array of strings", key));
  for (std::size_t i = 0; i < v->get_array().size(); ++i) {
    const auto& e = v->get_array()[i];
    if (!e.is_string()) return std::unexpected(fmt::format("{}[{}]: expected string", key, i));
    out.emplace_back(e.get_string());
  }
  return out;
}

/// Phase and plan may be written as numbers (seed 000) or strings ("02.1", "01-02").
std::expected<std::string, std::string> field_label(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  if (!v || v->is_null()) return std::string();
  if (v->is_string()) return std::string(v->get_string());
  if (v->is_int64()) return std::to_string(v->get_int64());
  return std::unexpected(fmt::format("{}: expected string or integer", key));
}

std::expected<int, std::string> field_int(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  if (!v || v->is_null()) return 0;
  if (!v->is_int64()) return std::unexpected(fmt::format("{}: expected integer", key));
  return static_cast<int>(v->get_int64());
}

std::expected<json::value, std::string> read_json(const fs::path& path) {
  auto text = util::read_file(path);
  if (!text) return std::unexpected(text.error());
  boost::system::error_code ec;
  json::value v = json::parse(*text, ec);
  if (ec) return std::unexpected("invalid JSON: " + ec.message());
  return v;
}

/// Why a report file in `session`'s directory is not that session's worker's: it must carry the
/// session's token (HARNESS_TOKEN, which only that worker was given), as every MCP call does. A
/// worker that slips and writes into a sibling's directory (a glob) must not fail its task.
/// Empty when the file is the session's own.
std::string not_the_sessions(Store& store, const std::string& session, const json::value& v) {
  const json::value* token = v.is_object() ? v.get_object().if_contains("token") : nullptr;
  if (!token || !token->is_string() || token->get_string().empty())
    return "token: missing required field (the session's HARNESS_TOKEN): not read";
  auto ok = store.check_token(session, std::string(token->get_string()));
  if (!ok) return ok.error();
  if (!*ok) return "token: not session " + session + "'s (a worker wrote into another session's directory?): not read";
  return {};
}

}  // namespace

json::value to_json(const WorkerStatus& s) {
  json::object o{{"sessionId", s.session_id}, {"timestamp", s.timestamp},     {"state", s.state},
                 {"phase", s.phase},          {"plan", s.plan},               {"currentTask", s.current_task},
                 {"totalTasks", s.total_tasks}};
  if (s.message) o["message"] = *s.message;
  if (!s.token.empty()) o["token"] = s.token;
  return o;
}

std::expected<WorkerStatus, std::string> worker_status_from_json(const json::value& v) {
  if (!v.is_object()) return std::unexpected("status: expected object");
  const auto& o = v.get_object();
  WorkerStatus s;
  auto id = field_string(o, "sessionId");
  auto ts = field_string(o, "timestamp");
  auto state = field_string(o, "state");
  auto phase = field_label(o, "phase");
  auto plan = field_label(o, "plan");
  auto cur = field_int(o, "currentTask");
  auto total = field_int(o, "totalTasks");
  for (const auto* f : {&id, &ts, &state, &phase, &plan})
    if (!*f) return std::unexpected(f->error());
  if (!cur) return std::unexpected(cur.error());
  if (!total) return std::unexpected(total.error());
  static constexpr std::array<std::string_view, 5> states{"initializing", "running", "checkpoint", "completed", "failed"};
  if (std::find(states.begin(), states.end(), *state) == states.end())
    return std::unexpected(fmt::format("state: unknown value \"{}\"", *state));
  s.session_id = *id;
  s.timestamp = *ts;
  s.state = *state;
  s.phase = *phase;
  s.plan = *plan;
  s.current_task = *cur;
  s.total_tasks = *total;
  if (const auto* m = o.if_contains("message"); m && m->is_string()) s.message = std::string(m->get_string());
  if (const auto* t = o.if_contains("token"); t && t->is_string()) s.token = std::string(t->get_string());
  return s;
}

protocol::Envelope status_message(const WorkerStatus& s) {
  protocol::Envelope e;
  e.session_id = s.session_id;
  e.created_at = s.timestamp;
  e.payload = protocol::ProgressUpdate{s.message.value_or(s.state), s.current_task, s.total_tasks};
  e.id = content_id("status", s.session_id, json::serialize(to_json(s)));
  return e;
}

std::expected<protocol::Envelope, std::string> result_message(const json::value& v) {
  if (!v.is_object()) return std::unexpected("result: expected object");
  const auto& o = v.get_object();
  auto id = field_string(o, "sessionId");
  if (!id) return std::unexpected(id.error());
  auto ts = field_string(o, "timestamp");
  if (!ts) return std::unexpected(ts.error());
  auto status = field_string(o, "status");
  if (!status) return std::unexpected(status.error());
  protocol::Envelope e;
  e.session_id = *id;
  e.created_at = *ts;
  if (*status == "completed") {
    auto summary = field_string(o, "summaryPath");
    if (!summary) return std::unexpected(summary.error());
    auto commits = field_strings(o, "commits");
    if (!commits) return std::unexpected(commits.error());
    auto files = field_strings(o, "filesTouched");
    if (!files) return std::unexpected(files.error());
    protocol::TaskCompleted done;
    done.summary_path = *summary;
    done.commits = *commits;
    done.files_touched = *files;
    if (o.contains("verdict")) { // check-plans: "pass" | "revise", checked by the codec's rules below
      auto verdict = field_string(o, "verdict");
      if (!verdict) return std::unexpected(verdict.error());
      if (*verdict != "pass" && *verdict != "revise")
        return std::unexpected(fmt::format("verdict: unknown value \"{}\" (expected pass, revise)", *verdict));
      done.verdict = *verdict;
    }
    auto findings = field_strings(o, "findings");
    if (!findings) return std::unexpected(findings.error());
    done.findings = std::move(*findings);
    e.payload = std::move(done);
  } else if (*status == "failed") {
    auto error = field_string(o, "error");
    if (!error) return std::unexpected(error.error());
    // Optional, as in task_failed: a worker that knows another attempt cannot help says so.
    auto retry = protocol::Retry::allowed;
    if (o.contains("retry")) {
      auto r = field_string(o, "retry");
      if (!r) return std::unexpected(r.error());
      if (*r != "allowed" && *r != "forbidden")
        return std::unexpected(fmt::format("retry: unknown value \"{}\" (expected allowed, forbidden)", *r));
      if (*r == "forbidden") retry = protocol::Retry::forbidden;
    }
    e.payload = protocol::TaskFailed{*error, retry, std::nullopt};
  } else {
    return std::unexpected(fmt::format("status: unknown value \"{}\" (expected completed, failed)", *status));
  }
  e.id = content_id("result", *id, json::serialize(v));
  return e;
}

StateDir::StateDir(fs::path root) : m_root(std::move(root)) {}

StateDir StateDir::for_project(const fs::path& project) { return StateDir(project / ".orchestration"); }

fs::path StateDir::session_dir(const std::string& session_id) const { return m_root / "sessions" / session_id; }

std::expected<void, std::string> StateDir::write_config(const OrchestrationConfig& config) const {
  return util::write_file_atomic(m_root / "config.yaml", render_config(config));
}

std::expected<OrchestrationConfig, std::vector<spec::Diagnostic>> StateDir::read_config() const {
  return load_config(m_root / "config.yaml");
}

std::expected<void, std::string> StateDir::write_dependency_graph(const json::value& graph) const {
  return write_json(m_root / "dependency-graph.json", graph);
}

std::expected<void, std::string> StateDir::write_active_files(const json::value& files) const {
  return write_json(m_root / "active-files.json", files);
}

std::expected<void, std::string> StateDir::write_status(const WorkerStatus& status) const {
  return write_json(session_dir(status.session_id) / "status.json", to_json(status));
}

std::expected<std::optional<WorkerStatus>, std::string> StateDir::read_status(const std::string& session_id) const {
  const auto path = session_dir(session_id) / "status.json";
  std::error_code ec;
  if (!fs::exists(path, ec)) return std::optional<WorkerStatus>();
  auto v = read_json(path);
  if (!v) return std::unexpected(path.string() + ": " + v.error());
  auto s = worker_status_from_json(*v);
  if (!s) return std::unexpected(path.string() + ": " + s.error());
  return std::optional(*s);
}

std::expected<void, std::string> StateDir::write_checkpoint(const protocol::Envelope& checkpoint,
                                                           const std::string& token) const {
  auto v = protocol::to_json(checkpoint);
  if (!token.empty() && v.is_object()) v.get_object()["token"] = token;
  return write_json(session_dir(checkpoint.session_id) / "checkpoint.json", v);
}

std::expected<void, std::string> StateDir::write_checkpoint_response(const protocol::Envelope& response) const {
  return write_json(session_dir(response.session_id) / "checkpoint_response.json", protocol::to_json(response));
}

std::expected<void, std::string> StateDir::write_result(const std::string& session_id, const json::value& result) const {
  return write_json(session_dir(session_id) / "result.json", result);
}

namespace {

/// Turns one session directory's status/checkpoint/result files into messages.
void ingest_dir(Store& store, const fs::path& dir, IngestReport& report) {
  std::error_code ec;
  // Every worker this harness starts has its session row before it runs; a directory without one
  // is an older harness's, whose reports no row could take (a foreign key error at every run,
  // otherwise), or one of the orchestrator's own checkpoints, which holds no report.
  if (auto row = store.session(dir.filename().string()); row && !*row) {
    if (fs::exists(dir / "status.json", ec) || fs::exists(dir / "result.json", ec)) ++report.unrecorded_sessions;
    return;
  }
  auto take = [&](const fs::path& file, std::expected<protocol::Envelope, std::string> message) {
    if (!message) return report.errors.push_back(file.string() + ": " + message.error());
    if (message->session_id != file.parent_path().filename().string())
      return report.errors.push_back(file.string() + ": session id does not match its directory");
    auto r = store.insert_message(*message);
    if (!r) return report.store_errors.push_back(file.string() + ": " + r.error());
    ++(*r == InsertOutcome::inserted ? report.inserted : report.duplicates);
  };
  // Order matters for readers of arrival order: progress, then a checkpoint, then the result.
  for (const char* name : {"status.json", "checkpoint.json", "result.json"}) {
    const fs::path file = dir / name;
    if (!fs::exists(file, ec)) continue;
    auto v = read_json(file);
    // The orchestrator keeps its own questions in checkpoint.json too: a record, not a report.
    if (v && std::string_view(name) == "checkpoint.json" && is_checkpoint_record(*v)) continue;
    if (v)
      if (auto why = not_the_sessions(store, dir.filename().string(), *v); !why.empty()) {
        report.errors.push_back(file.string() + ": " + why);
        continue;
      }
    std::expected<protocol::Envelope, std::string> msg = std::unexpected(v ? std::string() : v.error());
    if (v) {
      if (std::string_view(name) == "status.json") {
        auto s = worker_status_from_json(*v);
        msg = s ? std::expected<protocol::Envelope, std::string>(status_message(*s)) : std::unexpected(s.error());
      } else if (std::string_view(name) == "checkpoint.json") {
        msg = protocol::envelope_from_json(*v);
        // Only the worker's own checkpoint is heard here; our projection of an answer is not a message.
        if (msg && protocol::direction_of(msg->type()) != protocol::Direction::worker_to_orchestrator)
          msg = std::unexpected("expected a worker message type");
      } else {
        msg = result_message(*v);
      }
    }
    take(file, std::move(msg));
  }
}

}  // namespace

std::expected<IngestReport, std::string> StateDir::ingest(Store& store) const {
  IngestReport report;
  const fs::path sessions = m_root / "sessions";
  std::error_code ec;
  if (!fs::is_directory(sessions, ec)) return report;
  std::set<std::string> ended; // read when they ended: 2 s of every start at 10,000 sessions
  if (auto rows = store.list_sessions())
    for (const auto& row : *rows)
      if (row.status != "running") ended.insert(row.id);
  std::vector<fs::path> dirs;
  for (const auto& entry : fs::directory_iterator(sessions, ec))
    if (std::error_code entry_ec; entry.is_directory(entry_ec) && !ended.contains(entry.path().filename().string()))
      dirs.push_back(entry.path());
  std::sort(dirs.begin(), dirs.end());  // deterministic order
  for (const auto& dir : dirs) ingest_dir(store, dir, report);
  return report;
}

IngestReport StateDir::ingest_session(Store& store, const std::string& session_id) const {
  IngestReport report;
  ingest_dir(store, session_dir(session_id), report);
  return report;
}

}  // namespace harness::store
