// Strict Boost.JSON codecs for envelopes and payloads.
#include "harness/protocol/codec.hpp"

#include "harness/util/atomic_file.hpp"

#include <fmt/format.h>

#include <array>
#include <cstdint>

namespace harness::protocol {
namespace json = boost::json;
namespace {

/// Reads fields of one JSON object, remembering the first error with the field's full path.
class Reader {
 public:
  enum class Need { required, optional };
  Reader(const json::object& obj, std::string path) : m_obj(obj), m_path(std::move(path)) {}

  bool str(std::string_view key, std::string& out) {
    const json::value* v = find(key, Need::required);
    if (!v) return false;
    return as_string(*v, field(key), out);
  }
  bool opt_str(std::string_view key, std::optional<std::string>& out) {
    const json::value* v = find(key, Need::optional);
    if (!v) return ok();
    std::string s;
    if (!as_string(*v, field(key), s)) return false;
    out = std::move(s);
    return true;
  }
  bool integer(std::string_view key, int& out) {
    const json::value* v = find(key, Need::required);
    if (!v) return false;
    std::int64_t i = 0;
    if (!as_int(*v, field(key), i)) return false;
    out = static_cast<int>(i);
    return true;
  }
  bool opt_int(std::string_view key, std::optional<int>& out) {
    const json::value* v = find(key, Need::optional);
    if (!v) return ok();
    std::int64_t i = 0;
    if (!as_int(*v, field(key), i)) return false;
    out = static_cast<int>(i);
    return true;
  }
  bool int64(std::string_view key, std::int64_t& out) {
    const json::value* v = find(key, Need::required);
    return v && as_int(*v, field(key), out);
  }
  bool opt_int64(std::string_view key, std::optional<std::int64_t>& out) {
    const json::value* v = find(key, Need::optional);
    if (!v) return ok();
    std::int64_t i = 0;
    if (!as_int(*v, field(key), i)) return false;
    out = i;
    return true;
  }
  bool strings(std::string_view key, std::vector<std::string>& out, Need need = Need::required) {
    const json::value* v = find(key, need);
    if (!v) return need == Need::optional && ok();
    if (!v->is_array()) return fail(field(key) + ": expected array of strings");
    const auto& arr = v->get_array();
    for (std::size_t i = 0; i < arr.size(); ++i) {
      std::string s;
      if (!as_string(arr[i], fmt::format("{}[{}]", field(key), i), s)) return false;
      out.push_back(std::move(s));
    }
    return true;
  }
  /// A string restricted to `names` (mapped to an enum by index).
  template <class E, std::size_t N>
  bool choice(std::string_view key, const std::array<std::string_view, N>& names, E& out) {
    std::string s;
    if (!str(key, s)) return false;
    for (std::size_t i = 0; i < N; ++i)
      if (names[i] == s) {
        out = static_cast<E>(i);
        return true;
      }
    std::string list;
    for (auto n : names) list += (list.empty() ? "" : ", ") + std::string(n);
    return fail(fmt::format("{}: unknown value \"{}\" (expected one of {})", field(key), s, list));
  }
  /// A required nested object.
  const json::object* object(std::string_view key) {
    const json::value* v = find(key, Need::required);
    if (!v) return nullptr;
    if (!v->is_object()) {
      fail(field(key) + ": expected object");
      return nullptr;
    }
    return &v->get_object();
  }
  const std::string& error() const { return m_error; }
  std::string field(std::string_view key) const { return m_path.empty() ? std::string(key) : m_path + "." + std::string(key); }
  bool fail(std::string message) {
    if (m_error.empty()) m_error = std::move(message);
    return false;
  }

 private:
  bool ok() const { return m_error.empty(); }
  const json::value* find(std::string_view key, Need need) {
    const json::value* v = m_obj.if_contains(key);
    if (v && v->is_null() && need == Need::optional) return nullptr;
    if (!v && need == Need::required) fail(field(key) + ": missing required field");
    return v;
  }
  bool as_string(const json::value& v, const std::string& where, std::string& out) {
    if (!v.is_string()) return fail(where + ": expected string");
    out = std::string(v.get_string());
    return true;
  }
  bool as_int(const json::value& v, const std::string& where, std::int64_t& out) {
    if (v.is_int64()) out = v.get_int64();
    else if (v.is_uint64() && v.get_uint64() <= static_cast<std::uint64_t>(INT64_MAX)) out = static_cast<std::int64_t>(v.get_uint64());
    else return fail(where + ": expected integer");
    return true;
  }

  const json::object& m_obj;
  std::string m_path;
  std::string m_error;
};

constexpr std::array<std::string_view, 3> planner_modes{"standard", "gap_closure", "revision"};
constexpr std::array<std::string_view, 2> retry_names{"allowed", "forbidden"};
constexpr std::array<std::string_view, 2> verdict_names{"approved", "rejected"};
constexpr std::array<std::string_view, 5> kind_names{"researcher", "planner", "plan_checker", "executor", "verifier"};

json::array to_array(const std::vector<std::string>& v) {
  json::array a;
  for (const auto& s : v) a.emplace_back(s);
  return a;
}
void put(json::object& o, std::string_view key, const std::optional<std::string>& v) {
  if (v) o[key] = *v;
}

// ---- encoders ----
json::object encode(const SessionReady& p) {
  json::object o{{"adapter", p.adapter}};
  if (p.pid) o["pid"] = *p.pid;
  return o;
}
json::object encode(const TaskStarted& p) { return {{"task_id", p.task_id}, {"attempt", p.attempt}}; }
json::object encode(const ProgressUpdate& p) {
  json::object o{{"message", p.message}};
  if (p.current_task) o["current_task"] = *p.current_task;
  if (p.total_tasks) o["total_tasks"] = *p.total_tasks;
  return o;
}
json::object encode(const VerificationNeeded& p) {
  json::object o{{"what_built", p.what_built}, {"how_to_verify", to_array(p.how_to_verify)}};
  put(o, "url", p.url);
  return o;
}
json::object encode(const DecisionNeeded& p) {
  json::object o{{"question", p.question}, {"options", to_array(p.options)}};
  put(o, "context", p.context);
  return o;
}
json::object encode(const ActionNeeded& p) { return {{"action", p.action}, {"reason", p.reason}}; }
json::object encode(const TaskCompleted& p) {
  json::object o{{"summary_path", p.summary_path}, {"commits", to_array(p.commits)}, {"files_touched", to_array(p.files_touched)}};
  put(o, "verdict", p.verdict);
  if (!p.findings.empty()) o["findings"] = to_array(p.findings);
  return o;
}
json::object encode(const TaskFailed& p) {
  json::object o{{"error", p.error}, {"retry", retry_names[static_cast<std::size_t>(p.retry)]}};
  put(o, "log_path", p.log_path);
  return o;
}
json::object encode(const AwaitingAnswer& p) { return {{"message_id", p.message_id}, {"timeout_ms", p.timeout_ms}}; }
json::object encode(const ResearcherInput& p) {
  json::object o{{"phase_number", p.phase_number}, {"phase_name", p.phase_name}, {"requirements", p.requirements},
                 {"roadmap_context", p.roadmap_context}, {"current_state", p.current_state}};
  put(o, "user_decisions", p.user_decisions);
  return o;
}
json::object encode(const PlannerInput& p) {
  json::object o{{"mode", planner_modes[static_cast<std::size_t>(p.mode)]}, {"phase_number", p.phase_number},
                 {"project_state", p.project_state}, {"roadmap", p.roadmap}, {"requirements", p.requirements},
                 {"revision_issues", to_array(p.revision_issues)}};
  put(o, "context", p.context);
  put(o, "research", p.research);
  put(o, "verification_gaps", p.verification_gaps);
  return o;
}
json::object encode(const PlanCheckerInput& p) {
  json::object o{{"plans", to_array(p.plans)}, {"requirements", p.requirements}};
  put(o, "user_decisions", p.user_decisions);
  return o;
}
json::object encode(const ExecutorInput& p) {
  json::object o{{"plan_id", p.plan_id}, {"plan_content", p.plan_content}, {"project_state", p.project_state},
                 {"config", p.config}};
  put(o, "continuation", p.continuation);
  return o;
}
json::object encode(const VerifierInput& p) {
  return {{"phase_dir", p.phase_dir}, {"phase_goal", p.phase_goal}, {"must_haves", to_array(p.must_haves)}};
}
json::object encode(const AssignTask& p) {
  return {{"task_id", p.task_id},
          {"attempt", p.attempt},
          {"kind", to_string(kind_of(p.input))},
          {"input", std::visit([](const auto& in) { return encode(in); }, p.input)}};
}
json::object encode(const VerificationResult& p) {
  return {{"verdict", verdict_names[static_cast<std::size_t>(p.verdict)]}, {"feedback", p.feedback}};
}
json::object encode(const DecisionMade& p) {
  json::object o{{"choice", p.choice}};
  put(o, "note", p.note);
  return o;
}
json::object encode(const ActionCompleted& p) { return {{"outcome", p.outcome}}; }
json::object encode(const AbortTask& p) { return {{"reason", p.reason}}; }

// ---- decoders: each fills `out` from reader `r` ----
bool decode(Reader& r, SessionReady& p) { return r.str("adapter", p.adapter) && r.opt_int64("pid", p.pid); }
bool decode(Reader& r, TaskStarted& p) { return r.str("task_id", p.task_id) && r.integer("attempt", p.attempt); }
bool decode(Reader& r, ProgressUpdate& p) {
  return r.str("message", p.message) && r.opt_int("current_task", p.current_task) && r.opt_int("total_tasks", p.total_tasks);
}
bool decode(Reader& r, VerificationNeeded& p) {
  return r.str("what_built", p.what_built) && r.strings("how_to_verify", p.how_to_verify) && r.opt_str("url", p.url);
}
bool decode(Reader& r, DecisionNeeded& p) {
  if (!(r.str("question", p.question) && r.strings("options", p.options) && r.opt_str("context", p.context))) return false;
  return !p.options.empty() || r.fail(r.field("options") + ": expected at least one option");
}
bool decode(Reader& r, ActionNeeded& p) { return r.str("action", p.action) && r.str("reason", p.reason); }
bool decode(Reader& r, TaskCompleted& p) {
  if (!(r.str("summary_path", p.summary_path) && r.strings("commits", p.commits) &&
        r.strings("files_touched", p.files_touched) && r.opt_str("verdict", p.verdict) &&
        r.strings("findings", p.findings, Reader::Need::optional)))
    return false;
  return !p.verdict || *p.verdict == "pass" || *p.verdict == "revise" ||
         r.fail(r.field("verdict") + ": unknown value \"" + *p.verdict + "\" (expected one of pass, revise)");
}
bool decode(Reader& r, TaskFailed& p) {
  return r.str("error", p.error) && r.choice("retry", retry_names, p.retry) && r.opt_str("log_path", p.log_path);
}
bool decode(Reader& r, AwaitingAnswer& p) {
  if (!(r.str("message_id", p.message_id) && r.int64("timeout_ms", p.timeout_ms))) return false;
  return p.timeout_ms >= 0 || r.fail(r.field("timeout_ms") + ": must not be negative");
}
bool decode(Reader& r, ResearcherInput& p) {
  return r.str("phase_number", p.phase_number) && r.str("phase_name", p.phase_name) &&
         r.str("requirements", p.requirements) && r.str("roadmap_context", p.roadmap_context) &&
         r.opt_str("user_decisions", p.user_decisions) && r.str("current_state", p.current_state);
}
bool decode(Reader& r, PlannerInput& p) {
  return r.choice("mode", planner_modes, p.mode) && r.str("phase_number", p.phase_number) &&
         r.str("project_state", p.project_state) && r.str("roadmap", p.roadmap) && r.str("requirements", p.requirements) &&
         r.opt_str("context", p.context) && r.opt_str("research", p.research) &&
         r.opt_str("verification_gaps", p.verification_gaps) &&
         r.strings("revision_issues", p.revision_issues, Reader::Need::optional);
}
bool decode(Reader& r, PlanCheckerInput& p) {
  return r.strings("plans", p.plans) && r.str("requirements", p.requirements) && r.opt_str("user_decisions", p.user_decisions);
}
bool decode(Reader& r, ExecutorInput& p) {
  return r.str("plan_id", p.plan_id) && r.str("plan_content", p.plan_content) && r.str("project_state", p.project_state) &&
         r.str("config", p.config) && r.opt_str("continuation", p.continuation);
}
bool decode(Reader& r, VerifierInput& p) {
  return r.str("phase_dir", p.phase_dir) && r.str("phase_goal", p.phase_goal) && r.strings("must_haves", p.must_haves);
}
template <std::size_t I = 0>
bool decode_input(Reader& r, AgentKind kind, AgentInput& out) {
  if constexpr (I < std::variant_size_v<AgentInput>) {
    if (static_cast<std::size_t>(kind) != I) return decode_input<I + 1>(r, kind, out);
    std::variant_alternative_t<I, AgentInput> in;
    if (!decode(r, in)) return false;
    out = std::move(in);
    return true;
  } else {
    return false;
  }
}
bool decode(Reader& r, AssignTask& p) {
  AgentKind kind{};
  if (!(r.str("task_id", p.task_id) && r.integer("attempt", p.attempt) && r.choice("kind", kind_names, kind)))
    return false;
  const json::object* input = r.object("input");
  if (!input) return false;
  Reader sub(*input, r.field("input"));
  if (!decode_input(sub, kind, p.input)) return r.fail(sub.error());
  return true;
}
bool decode(Reader& r, VerificationResult& p) {
  return r.choice("verdict", verdict_names, p.verdict) && r.str("feedback", p.feedback);
}
bool decode(Reader& r, DecisionMade& p) { return r.str("choice", p.choice) && r.opt_str("note", p.note); }
bool decode(Reader& r, ActionCompleted& p) { return r.str("outcome", p.outcome); }
bool decode(Reader& r, AbortTask& p) { return r.str("reason", p.reason); }

template <std::size_t I = 0>
bool decode_payload(Reader& r, MessageType type, Payload& out) {
  if constexpr (I < std::variant_size_v<Payload>) {
    if (static_cast<std::size_t>(type) != I) return decode_payload<I + 1>(r, type, out);
    std::variant_alternative_t<I, Payload> p;
    if (!decode(r, p)) return false;
    out = std::move(p);
    return true;
  } else {
    return false;
  }
}

}  // namespace

json::value payload_to_json(const Payload& payload) {
  return std::visit([](const auto& p) { return json::value(encode(p)); }, payload);
}

json::value to_json(const Envelope& e) {
  return json::object{{"v", e.v},
                      {"id", e.id},
                      {"session_id", e.session_id},
                      {"type", to_string(e.type())},
                      {"payload", payload_to_json(e.payload)},
                      {"created_at", e.created_at}};
}

std::string serialize(const Envelope& envelope) { return json::serialize(to_json(envelope)); }

std::expected<Payload, std::string> payload_from_json(MessageType type, const json::value& value) {
  if (!value.is_object()) return std::unexpected("payload: expected object");
  Reader r(value.get_object(), "payload");
  Payload out;
  if (!decode_payload(r, type, out)) return std::unexpected(r.error());
  return out;
}

std::expected<Payload, std::string> payload_from_json(std::string_view type, const json::value& value) {
  auto t = parse_message_type(type);
  if (!t) return std::unexpected(fmt::format("type: unknown message type \"{}\"", type));
  return payload_from_json(*t, value);
}

std::expected<Envelope, std::string> envelope_from_json(const json::value& value) {
  if (!value.is_object()) return std::unexpected("message: expected object");
  Reader r(value.get_object(), "");
  Envelope e;
  std::string type;
  if (!(r.integer("v", e.v) && r.str("id", e.id) && r.str("session_id", e.session_id) && r.str("type", type) &&
        r.str("created_at", e.created_at)))
    return std::unexpected(r.error());
  if (e.v != protocol_version)
    return std::unexpected(fmt::format("v: unsupported protocol version {} (this build speaks {})", e.v, protocol_version));
  if (e.id.empty()) return std::unexpected("id: must not be empty");
  const json::value* payload = value.get_object().if_contains("payload");
  if (!payload) return std::unexpected("payload: missing required field");
  auto p = payload_from_json(type, *payload);
  if (!p) return std::unexpected(p.error());
  e.payload = std::move(*p);
  return e;
}

std::expected<Envelope, std::string> parse_envelope(std::string_view text) {
  boost::system::error_code ec;
  json::value v = json::parse(text, ec);
  if (ec) return std::unexpected("message: invalid JSON: " + ec.message());
  return envelope_from_json(v);
}

std::string field_text(const boost::json::object& o, std::string_view key) {
  auto it = o.find(key);
  if (it == o.end()) return {};
  return it->value().is_string() ? std::string(it->value().as_string()) : boost::json::serialize(it->value());
}

std::string string_field(const boost::json::object& o, std::string_view key) {
  auto it = o.find(key);
  return it != o.end() && it->value().is_string() ? std::string(it->value().as_string()) : std::string();
}

std::optional<boost::json::object> read_json_object(const std::filesystem::path& path) {
  auto text = util::read_file(path);
  if (!text) return std::nullopt;
  boost::system::error_code ec;
  auto v = boost::json::parse(*text, ec);
  if (ec || !v.is_object()) return std::nullopt;
  return std::move(v.as_object());
}

}  // namespace harness::protocol
