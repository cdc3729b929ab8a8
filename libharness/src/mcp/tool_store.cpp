#include "harness/mcp/tool_store.hpp"

#include "harness/protocol/codec.hpp"
#include "harness/spec/phase_number.hpp"
#include "harness/util/private_directory.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <vector>
#include <system_error>

namespace harness::mcp {
namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

constexpr std::string_view k_verified_key = "verified_phases";

json::value parse_or_string(const std::string& text) {
  json::error_code ec;
  json::value v = json::parse(text, ec);
  return ec ? json::value(json::string(text)) : v;
}

json::object message_json(const store::MessageRecord& m) {
  return json::object{{"message_id", m.id}, {"session_id", m.session_id}, {"type", m.type},
                      {"payload", parse_or_string(m.payload)}, {"created_at", m.created_at}};
}

bool higher_phase(const std::string& candidate, const std::string& current) {
  auto a = spec::parse_phase_number(candidate);
  auto b = spec::parse_phase_number(current);
  if (!a) return false;
  return !b || *b < *a;
}

}  // namespace

ToolStore::ToolStore(fs::path project, bool worker) : m_project(std::move(project)), m_worker(worker) {}

std::expected<store::Store*, std::string> ToolStore::open(CreateIfMissing create) {
  if (m_store) return &*m_store;
  if (auto why = store::unreadable_state(m_project / ".orchestration"); !why.empty()) return std::unexpected(std::move(why));
  std::error_code ec;
  if (create == CreateIfMissing::no && !fs::exists(store::default_db_path(m_project), ec)) return nullptr;
  // A store made here (harness_set_state before any run) sits in a .orchestration/ git ignores,
  // as every run's does: it holds workers' tokens (review KK F3).
  if (create == CreateIfMissing::yes) (void)util::create_state_directory(m_project / ".orchestration");
  auto opened = store::Store::open({.db_path = store::default_db_path(m_project), .upgrade_under_run = m_worker});
  if (!opened) return std::unexpected(opened.error());
  m_store.emplace(std::move(*opened));
  return &*m_store;
}

std::expected<void, std::string> ToolStore::create_session(const std::string& id, const std::string& token,
                                                           const std::string& task_id) {
  std::lock_guard lock(m_mutex);
  auto db = open(CreateIfMissing::yes);
  if (!db) return std::unexpected(db.error());
  store::SessionRecord r;
  r.id = id;
  r.status = "running";
  r.working_dir = fs::absolute(m_project).string();
  r.task_id = task_id;
  r.token = token;
  return (*db)->create_session(r);
}

std::expected<bool, std::string> ToolStore::check_token(const std::string& id, const std::string& token) {
  std::lock_guard lock(m_mutex);
  auto db = open(CreateIfMissing::no);
  if (!db) return std::unexpected(db.error());
  if (*db == nullptr) return false;
  return (*db)->check_token(id, token);
}

std::expected<std::optional<SessionRow>, std::string> ToolStore::session(const std::string& id) {
  std::lock_guard lock(m_mutex);
  auto db = open(CreateIfMissing::no);
  if (!db) return std::unexpected(db.error());
  if (*db == nullptr) return std::nullopt;
  auto r = (*db)->session(id);
  if (!r) return std::unexpected(r.error());
  if (!*r) return std::nullopt;
  const store::SessionRecord& s = **r;
  json::object task{{"task_id", s.task_id}, {"spec", s.spec}, {"attempt", s.attempt}, {"adapter", s.adapter},
                    {"working_dir", s.working_dir}};
  if (auto t = (*db)->task(s.task_id); t && *t) {
    task["kind"] = (*t)->kind;
    task["status"] = (*t)->status;
    task["detail"] = parse_or_string((*t)->detail);
  }
  return SessionRow{s.id, std::move(task), s.status, s.updated_at, s.log_path.value_or("")};
}

std::expected<json::array, std::string> ToolStore::list_sessions() {
  std::lock_guard lock(m_mutex);
  auto db = open(CreateIfMissing::no);
  if (!db) return std::unexpected(db.error());
  json::array out;
  if (*db == nullptr) return out;
  auto sessions = (*db)->list_sessions();
  if (!sessions) return std::unexpected(sessions.error());
  auto pending = (*db)->pending_messages();
  if (!pending) return std::unexpected(pending.error());
  std::map<std::string, std::int64_t> counts;
  for (const auto& m : *pending) counts[m.session_id]++;
  for (const auto& s : *sessions) {
    json::object row{{"session_id", s.id}, {"task_id", s.task_id}, {"spec", s.spec}, {"status", s.status},
                     {"updated_at", s.updated_at}, {"pending", counts[s.id]}};
    if (s.end_reason) row["end_reason"] = *s.end_reason; // status `ended`: why the harness ended it
    out.push_back(std::move(row));
  }
  return out;
}

std::expected<void, std::string> ToolStore::set_status(const std::string& id, const std::string& status) {
  std::lock_guard lock(m_mutex);
  auto db = open(CreateIfMissing::yes);
  if (!db) return std::unexpected(db.error());
  auto done = (*db)->set_session_status(id, status);
  if (!done) return std::unexpected(done.error());
  if (!*done) return std::unexpected("unknown session " + id);
  return {};
}

std::expected<std::string, std::string> ToolStore::add_message(const std::string& session, const std::string& type,
                                                               const json::value& payload) {
  auto decoded = protocol::payload_from_json(type, payload);
  if (!decoded) return std::unexpected("invalid report: " + decoded.error());
  if (protocol::direction_of(protocol::type_of(*decoded)) != protocol::Direction::worker_to_orchestrator) {
    return std::unexpected("invalid report: " + type + " is sent by the orchestrator, not a worker");
  }
  protocol::Envelope envelope = protocol::make_envelope(session, std::move(*decoded));
  std::lock_guard lock(m_mutex);
  auto db = open(CreateIfMissing::yes);
  if (!db) return std::unexpected(db.error());
  auto inserted = (*db)->insert_message(envelope);
  if (!inserted) return std::unexpected(inserted.error());
  return envelope.id;
}

std::expected<json::array, std::string> ToolStore::pending(const std::string& session) {
  std::lock_guard lock(m_mutex);
  auto db = open(CreateIfMissing::no);
  if (!db) return std::unexpected(db.error());
  json::array out;
  if (*db == nullptr) return out;
  auto messages = (*db)->pending_messages(session.empty() ? std::nullopt : std::optional<std::string>(session));
  if (!messages) return std::unexpected(messages.error());
  for (const auto& m : *messages) out.push_back(message_json(m));
  return out;
}

std::expected<bool, std::string> ToolStore::respond(const std::string& message_id, const json::value& response) {
  std::lock_guard lock(m_mutex);
  auto db = open(CreateIfMissing::no);
  if (!db) return std::unexpected(db.error());
  if (*db == nullptr) return false;
  return (*db)->respond(message_id, json::serialize(response));
}

std::expected<std::optional<store::MessageRecord>, std::string> ToolStore::message(const std::string& id) {
  std::lock_guard lock(m_mutex);
  auto db = open(CreateIfMissing::no);
  if (!db) return std::unexpected(db.error());
  if (*db == nullptr) return std::optional<store::MessageRecord>{};
  return (*db)->message(id);
}

std::expected<std::string, std::string> ToolStore::latest_awaitable(const std::string& session) {
  std::lock_guard lock(m_mutex);
  auto db = open(CreateIfMissing::no);
  if (!db) return std::unexpected(db.error());
  if (*db == nullptr) return std::string();
  // Answered questions count too: the orchestrator may answer before the worker starts waiting.
  // The store has no per-session cursor, so this scans the message log in pages.
  std::string newest;
  std::int64_t after = 0;
  for (;;) {
    auto page = (*db)->messages_after(after, 1000);
    if (!page) return std::unexpected(page.error());
    for (const auto& m : *page) {
      auto type = protocol::parse_message_type(m.type);
      if (m.session_id == session && type && protocol::expects_response(*type) && m.status != store::message_expired) {
        newest = m.id;
      }
    }
    if (page->size() < 1000) return newest;
    after = page->back().seq;
  }
}

std::expected<std::optional<json::value>, std::string> ToolStore::response_of(const std::string& session,
                                                                              const std::string& message_id) {
  std::lock_guard lock(m_mutex);
  auto db = open(CreateIfMissing::no);
  if (!db) return std::unexpected(db.error());
  if (*db == nullptr) return std::unexpected("unknown message " + message_id);
  auto m = (*db)->message(message_id);
  if (!m) return std::unexpected(m.error());
  if (!*m || (*m)->session_id != session) return std::unexpected("message " + message_id + " is not one of this session's");
  if ((*m)->status == store::message_expired) return std::unexpected("message " + message_id + " expired unanswered");
  if ((*m)->status != store::message_responded || !(*m)->response) return std::nullopt;
  return parse_or_string(*(*m)->response);
}

std::expected<void, std::string> ToolStore::set_state(const std::string& key, const json::value& value) {
  // The verified phases live under their own key, written only by mark_phase_verified: a free-form
  // write there would silently unverify phases that get_state does not even show.
  if (key == k_verified_key)
    return std::unexpected(fmt::format("`{}` is kept by harness_mark_phase_verified; choose another key", key));
  std::lock_guard lock(m_mutex);
  auto db = open(CreateIfMissing::yes);
  if (!db) return std::unexpected(db.error());
  return (*db)->set_value(key, json::serialize(value));
}

std::expected<json::object, std::string> ToolStore::get_state() {
  std::lock_guard lock(m_mutex);
  auto db = open(CreateIfMissing::no);
  if (!db) return std::unexpected(db.error());
  json::object out;
  if (*db == nullptr) return out;
  auto values = (*db)->values();
  if (!values) return std::unexpected(values.error());
  for (const auto& [key, value] : *values) {
    if (key != k_verified_key) out[key] = parse_or_string(value);
  }
  return out;
}

std::expected<void, std::string> ToolStore::mark_phase_verified(const std::string& phase, const std::string& note,
                                                                const std::string& spec) {
  std::lock_guard lock(m_mutex);
  auto db = open(CreateIfMissing::yes);
  if (!db) return std::unexpected(db.error());
  auto values = (*db)->values();
  if (!values) return std::unexpected(values.error());
  json::object verified;
  for (const auto& [key, value] : *values) {
    if (key == k_verified_key) {
      if (auto v = parse_or_string(value); v.is_object()) verified = v.as_object();
    }
  }
  // Every spec has its phase 01: a spec's note is kept apart from another's.
  json::object entry{{"phase", phase}, {"note", note}, {"verified_at", protocol::now_iso8601()}};
  if (!spec.empty()) entry["spec"] = spec;
  verified[spec.empty() ? phase : spec + "/" + phase] = std::move(entry);
  if (auto done = (*db)->set_value(std::string(k_verified_key), json::serialize(verified)); !done) return done;
  const std::string project = fs::absolute(m_project).lexically_normal().string();
  auto state = (*db)->execution_state(project);
  if (!state) return std::unexpected(state.error());
  store::ExecutionState row = state->value_or(store::ExecutionState{});
  row.project_path = project;
  if (higher_phase(phase, row.highest_verified_phase)) {
    row.highest_verified_phase = phase;
    return (*db)->set_execution_state(row);
  }
  return {};
}

std::expected<json::array, std::string> ToolStore::verified_phases() {
  std::lock_guard lock(m_mutex);
  auto db = open(CreateIfMissing::no);
  if (!db) return std::unexpected(db.error());
  json::array out;
  if (*db == nullptr) return out;
  auto values = (*db)->values();
  if (!values) return std::unexpected(values.error());
  std::vector<std::pair<std::string, json::object>> phases;
  for (const auto& [key, value] : *values) {
    if (key != k_verified_key) continue;
    if (auto v = parse_or_string(value); v.is_object()) {
      for (const auto& [phase, info] : v.as_object()) {
        if (info.is_object()) phases.emplace_back(std::string(phase), info.as_object());
      }
    }
  }
  // Notes written before they carried their phase (and spec) have it as their key.
  for (auto& [key, info] : phases)
    if (!info.contains("phase")) info["phase"] = key;
  auto text = [](const json::object& o, std::string_view k) {
    const json::value* v = o.if_contains(k);
    return v && v->is_string() ? std::string(v->as_string()) : std::string();
  };
  std::sort(phases.begin(), phases.end(), [&](const auto& a, const auto& b) {
    const std::string sa = text(a.second, "spec"), sb = text(b.second, "spec");
    if (sa != sb) return sa < sb;
    auto pa = spec::parse_phase_number(text(a.second, "phase"));
    auto pb = spec::parse_phase_number(text(b.second, "phase"));
    if (pa && pb) return *pa < *pb;
    return text(a.second, "phase") < text(b.second, "phase");
  });
  for (auto& [key, info] : phases) out.push_back(std::move(info));
  return out;
}

}  // namespace harness::mcp
