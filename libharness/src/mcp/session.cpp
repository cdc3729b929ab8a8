#include "session.hpp"

#include "harness/util/json_text.hpp"

#include <charconv>
#include <thread>

namespace harness::mcp {
namespace json = boost::json;

namespace {

const json::value* find_string(const json::object& params, std::string_view key) {
  const json::value* v = params.if_contains(key);
  return v && v->is_string() ? v : nullptr;
}

/// Matches `uri` against a template with `{name}` segments (level 1 expansion, no '/').
bool matches_template(std::string_view tmpl, std::string_view uri) {
  std::size_t t = 0;
  std::size_t u = 0;
  while (t < tmpl.size()) {
    if (tmpl[t] == '{') {
      const std::size_t close = tmpl.find('}', t);
      if (close == std::string_view::npos) return false;
      const char next = close + 1 < tmpl.size() ? tmpl[close + 1] : '\0';
      const std::size_t start = u;
      while (u < uri.size() && uri[u] != next && uri[u] != '/') ++u;
      if (u == start) return false;
      t = close + 1;
    } else {
      if (u >= uri.size() || uri[u] != tmpl[t]) return false;
      ++t;
      ++u;
    }
  }
  return u == uri.size();
}

}  // namespace

Session::Session(const Server& server, int out_fd, std::size_t page_size)
    : m_server(server), m_page_size(page_size == 0 ? 1 : page_size), m_shared(std::make_shared<SessionShared>()) {
  m_shared->out_fd = out_fd;
}

Session::~Session() { shutdown(); }

void Session::handle_line(std::string_view line) {
  if (line.find_first_not_of(" \t\r") == std::string_view::npos) return;  // blank keep-alive lines
  Incoming incoming = parse_line(line);
  if (auto* request = std::get_if<Request>(&incoming)) {
    handle_request(*request);
  } else if (auto* note = std::get_if<Notification>(&incoming)) {
    handle_notification(*note);
  } else if (auto* response = std::get_if<Response>(&incoming)) {
    handle_response(*response);
  } else if (auto* bad = std::get_if<Malformed>(&incoming)) {
    m_shared->write_line(bad->reply);
  }
}

void Session::reject_long_line(std::string_view start) {
  m_shared->write_line(make_error(request_id_of(start).value_or(nullptr), RpcError::invalid_request,
                                  "Message exceeds the line length limit"));
}

void Session::handle_request(Request& request) {
  std::string reply = dispatch(request);
  if (!reply.empty()) m_shared->write_line(reply);
}

std::string Session::dispatch(Request& request) {
  const std::string& m = request.method;
  if (m == "initialize") return initialize(request);
  if (m == "ping") return make_result(request.id, json::object{});
  if (m == "tools/call") return call_tool(request);
  if (m == "tools/list") {
    json::array all;
    for (const Tool& tool : m_server.tools()) all.push_back(describe_tool(tool));
    return list_page(request, all, "tools");
  }
  if (m == "logging/setLevel") return set_level(request);
  if (!m_server.resources().empty() || !m_server.resource_templates().empty()) {
    if (m == "resources/list") {
      json::array all;
      for (const Resource& r : m_server.resources()) {
        json::object item{{"uri", r.uri}, {"name", r.name}, {"description", r.description}};
        if (!r.mime_type.empty()) item["mimeType"] = r.mime_type;
        all.push_back(std::move(item));
      }
      return list_page(request, all, "resources");
    }
    if (m == "resources/templates/list") {
      json::array all;
      for (const ResourceTemplate& r : m_server.resource_templates()) {
        json::object item{{"uriTemplate", r.uri_template}, {"name", r.name}, {"description", r.description}};
        if (!r.mime_type.empty()) item["mimeType"] = r.mime_type;
        all.push_back(std::move(item));
      }
      return list_page(request, all, "resourceTemplates");
    }
    if (m == "resources/read") return read_resource(request);
    if (m == "resources/subscribe" || m == "resources/unsubscribe") {
      if (!find_string(request.params, "uri")) return make_error(request.id, RpcError::invalid_params, "uri is required");
      return make_result(request.id, json::object{});
    }
  }
  if (!m_server.prompts().empty()) {
    if (m == "prompts/list") {
      json::array all;
      for (const Prompt& p : m_server.prompts()) {
        json::object item{{"name", p.name}, {"description", p.description}};
        if (!p.arguments.empty()) item["arguments"] = p.arguments;
        all.push_back(std::move(item));
      }
      return list_page(request, all, "prompts");
    }
    if (m == "prompts/get") return get_prompt(request);
    if (m == "completion/complete") return complete(request);
  }
  // Includes server/discover (revision 2026-07-28): newer clients fall back to initialize.
  return make_error(request.id, RpcError::method_not_found, "Method not found: " + m);
}

std::string Session::initialize(const Request& request) {
  std::string version(k_latest_protocol);
  if (const json::value* asked = find_string(request.params, "protocolVersion")) {
    if (supported_protocol(asked->as_string())) version = asked->as_string();
  }
  if (const json::value* caps = request.params.if_contains("capabilities"); caps && caps->is_object()) {
    std::lock_guard lock(m_shared->caps_mutex);
    m_shared->client_capabilities = caps->as_object();
  }
  json::object capabilities;
  capabilities["tools"] = json::object{{"listChanged", false}};
  capabilities["logging"] = json::object{};
  if (!m_server.resources().empty() || !m_server.resource_templates().empty()) {
    capabilities["resources"] = json::object{{"subscribe", true}, {"listChanged", false}};
  }
  if (!m_server.prompts().empty()) {
    capabilities["prompts"] = json::object{{"listChanged", false}};
    capabilities["completions"] = json::object{};
  }
  const ServerInfo& info = m_server.info();
  json::object server_info{{"name", info.name}, {"version", info.version}};
  if (!info.title.empty()) server_info["title"] = info.title;
  json::object result{{"protocolVersion", version}, {"capabilities", std::move(capabilities)},
                      {"serverInfo", std::move(server_info)}};
  if (!info.instructions.empty()) result["instructions"] = info.instructions;
  return make_result(request.id, std::move(result));
}

std::string Session::list_page(const Request& request, const json::array& all, std::string_view field) {
  std::size_t offset = 0;
  if (const json::value* cursor = request.params.if_contains("cursor"); cursor && !cursor->is_null()) {
    const auto* text = cursor->if_string();
    auto [ptr, ec] = text ? std::from_chars(text->data(), text->data() + text->size(), offset)
                          : std::from_chars_result{nullptr, std::errc::invalid_argument};
    if (!text || ec != std::errc{} || ptr != text->data() + text->size() || offset > all.size()) {
      return make_error(request.id, RpcError::invalid_params, "Invalid cursor");
    }
  }
  const std::size_t end = std::min(all.size(), offset + m_page_size);
  json::array page(all.begin() + static_cast<std::ptrdiff_t>(offset), all.begin() + static_cast<std::ptrdiff_t>(end));
  json::object result{{field, std::move(page)}};
  if (end < all.size()) result["nextCursor"] = std::to_string(end);
  return make_result(request.id, std::move(result));
}

std::string Session::set_level(const Request& request) {
  const json::value* level = find_string(request.params, "level");
  const auto parsed = level ? parse_log_level(level->as_string()) : std::nullopt;
  if (!parsed) return make_error(request.id, RpcError::invalid_params, "Unknown log level");
  m_shared->log_level = static_cast<int>(*parsed);
  return make_result(request.id, json::object{});
}

std::string Session::read_resource(const Request& request) {
  const json::value* uri = find_string(request.params, "uri");
  if (!uri) return make_error(request.id, RpcError::invalid_params, "uri is required");
  const std::string wanted(uri->as_string());
  for (const Resource& r : m_server.resources()) {
    if (r.uri == wanted) return make_result(request.id, json::object{{"contents", r.read(wanted)}});
  }
  for (const ResourceTemplate& r : m_server.resource_templates()) {
    if (matches_template(r.uri_template, wanted)) {
      return make_result(request.id, json::object{{"contents", r.read(wanted)}});
    }
  }
  // -32002 is MCP's "resource not found".
  json::object err{{"code", -32002}, {"message", "Resource not found"}, {"data", json::object{{"uri", wanted}}}};
  return util::json_text(json::object{{"jsonrpc", "2.0"}, {"id", request.id}, {"error", std::move(err)}});
}

std::string Session::get_prompt(const Request& request) {
  const json::value* name = find_string(request.params, "name");
  if (!name) return make_error(request.id, RpcError::invalid_params, "name is required");
  for (const Prompt& p : m_server.prompts()) {
    if (p.name != name->as_string()) continue;
    json::object args;
    if (const json::value* a = request.params.if_contains("arguments"); a && a->is_object()) args = a->as_object();
    auto result = p.get(args);
    if (!result) return make_error(request.id, RpcError::invalid_params, result.error());
    return make_result(request.id, std::move(*result));
  }
  return make_error(request.id, RpcError::invalid_params, "Unknown prompt: " + std::string(name->as_string()));
}

std::string Session::complete(const Request& request) {
  // Minimal completion: no suggestions, but a well-formed answer for declared prompts.
  json::object completion{{"values", json::array{}}, {"total", 0}, {"hasMore", false}};
  return make_result(request.id, json::object{{"completion", std::move(completion)}});
}

}  // namespace harness::mcp
