#include "harness/mcp/conformance_fixture.hpp"

namespace harness::mcp {
namespace json = boost::json;
using namespace std::chrono_literals;

namespace {

constexpr std::string_view k_png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";
constexpr std::string_view k_wav = "UklGRjQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YRAAAAAAAAAAAAAAAAAAAAAAAAAA";

json::object no_args() { return json::object{{"type", "object"}, {"properties", json::object{}}}; }

json::object string_args(std::initializer_list<std::string_view> names) {
  json::object props;
  json::array required;
  for (std::string_view n : names) {
    props[n] = json::object{{"type", "string"}};
    required.push_back(json::string(n));
  }
  return json::object{{"type", "object"}, {"properties", std::move(props)}, {"required", std::move(required)}};
}

ToolResult content(json::array blocks) {
  ToolResult r;
  r.content = std::move(blocks);
  return r;
}

void add(Server& s, std::string name, std::string description, json::object schema, ToolHandler handler,
         Execution execution = Execution::inline_call) {
  s.add_tool(Tool{std::move(name), std::move(description), std::move(schema), {}, std::move(handler), execution, {}});
}

ToolResult elicit(CallContext& ctx, json::object params, std::string_view prefix) {
  if (!ctx.client_capabilities().contains("elicitation")) return error_result("Client does not support elicitation");
  auto answer = ctx.request_client("elicitation/create", std::move(params), 60s);
  if (!answer) return error_result("Elicitation failed: " + answer.error());
  const json::object* obj = answer->if_object();
  const json::value* action = obj ? obj->if_contains("action") : nullptr;
  const json::value* data = obj ? obj->if_contains("content") : nullptr;
  return text_result(std::string(prefix) + "action=" + (action ? json::serialize(*action) : "null") +
                     ", content=" + (data ? json::serialize(*data) : "{}"));
}

void add_content_tools(Server& s) {
  add(s, "test_simple_text", "Returns simple text", no_args(),
      [](const json::object&, CallContext&) { return text_result("This is a simple text response for testing."); });
  add(s, "test_image_content", "Returns an image", no_args(), [](const json::object&, CallContext&) {
    return content({json::object{{"type", "image"}, {"data", k_png}, {"mimeType", "image/png"}}});
  });
  add(s, "test_audio_content", "Returns audio", no_args(), [](const json::object&, CallContext&) {
    return content({json::object{{"type", "audio"}, {"data", k_wav}, {"mimeType", "audio/wav"}}});
  });
  add(s, "test_embedded_resource", "Returns an embedded resource", no_args(), [](const json::object&, CallContext&) {
    json::object res{{"uri", "test://embedded-resource"}, {"mimeType", "text/plain"},
                     {"text", "This is an embedded resource content."}};
    return content({json::object{{"type", "resource"}, {"resource", std::move(res)}}});
  });
  add(s, "test_multiple_content_types", "Returns mixed content", no_args(), [](const json::object&, CallContext&) {
    json::object res{{"uri", "test://mixed-content-resource"}, {"mimeType", "application/json"},
                     {"text", R"({"test":"data","value":123})"}};
    return content({json::object{{"type", "text"}, {"text", "Multiple content types test:"}},
                    json::object{{"type", "image"}, {"data", k_png}, {"mimeType", "image/png"}},
                    json::object{{"type", "resource"}, {"resource", std::move(res)}}});
  });
  add(s, "test_error_handling", "Always fails", no_args(), [](const json::object&, CallContext&) {
    return error_result("This tool intentionally returns an error for testing");
  });
  json::object schema2020{
      {"$schema", "https://json-schema.org/draft/2020-12/schema"},
      {"type", "object"},
      {"$defs", json::object{{"address", json::object{{"type", "object"},
                                                      {"properties", json::object{{"street", json::object{{"type", "string"}}},
                                                                                  {"city", json::object{{"type", "string"}}}}}}}}},
      {"properties", json::object{{"name", json::object{{"type", "string"}}},
                                  {"address", json::object{{"$ref", "#/$defs/address"}}}}},
      {"additionalProperties", false}};
  add(s, "json_schema_2020_12_tool", "Tool with JSON Schema 2020-12 features", std::move(schema2020),
      [](const json::object& args, CallContext&) { return text_result("Received: " + json::serialize(args)); });
}

void add_interactive_tools(Server& s) {
  add(s, "test_tool_with_logging", "Logs while running", no_args(), [](const json::object&, CallContext& ctx) {
    ctx.log(LogLevel::info, "fixture", "Tool execution started");
    ctx.wait_cancelled_for(50ms);
    ctx.log(LogLevel::info, "fixture", "Tool processing data");
    ctx.wait_cancelled_for(50ms);
    ctx.log(LogLevel::info, "fixture", "Tool execution completed");
    return text_result("Tool with logging executed successfully");
  }, Execution::own_thread);
  add(s, "test_tool_with_progress", "Reports progress", no_args(), [](const json::object&, CallContext& ctx) {
    for (int step = 0; step <= 2; ++step) {
      if (step > 0 && ctx.wait_cancelled_for(50ms)) return error_result("cancelled");
      ctx.progress(step * 50.0, 100.0, "step " + std::to_string(step));
    }
    return text_result("Tool with progress executed successfully");
  }, Execution::own_thread);
  add(s, "test_sampling", "Asks the client's LLM", string_args({"prompt"}), [](const json::object& args, CallContext& ctx) {
    if (!ctx.client_capabilities().contains("sampling")) return error_result("Client does not support sampling");
    json::object message{{"role", "user"}, {"content", json::object{{"type", "text"}, {"text", args.at("prompt")}}}};
    auto answer = ctx.request_client("sampling/createMessage",
                                     json::object{{"messages", json::array{std::move(message)}}, {"maxTokens", 100}}, 60s);
    if (!answer) return error_result("Sampling failed: " + answer.error());
    std::string text;
    if (const json::object* obj = answer->if_object()) {
      if (const json::value* c = obj->if_contains("content"); c && c->is_object()) {
        if (const json::value* t = c->as_object().if_contains("text"); t && t->is_string()) text = t->as_string();
      }
    }
    return text_result("LLM response: " + text);
  }, Execution::own_thread);
  add(s, "test_elicitation", "Asks the user", string_args({"message"}), [](const json::object& args, CallContext& ctx) {
    json::object props{{"username", json::object{{"type", "string"}, {"description", "User's response"}}},
                       {"email", json::object{{"type", "string"}, {"description", "User's email address"}}}};
    json::object schema{{"type", "object"}, {"properties", std::move(props)}, {"required", json::array{"username", "email"}}};
    return elicit(ctx, json::object{{"message", args.at("message")}, {"requestedSchema", std::move(schema)}}, "User response: ");
  }, Execution::own_thread);
  add(s, "test_elicitation_sep1034_defaults", "Elicitation with defaults", no_args(), [](const json::object&, CallContext& ctx) {
    json::object props{
        {"name", json::object{{"type", "string"}, {"default", "John Doe"}}},
        {"age", json::object{{"type", "integer"}, {"default", 30}}},
        {"score", json::object{{"type", "number"}, {"default", 95.5}}},
        {"status", json::object{{"type", "string"}, {"enum", json::array{"active", "inactive", "pending"}}, {"default", "active"}}},
        {"verified", json::object{{"type", "boolean"}, {"default", true}}}};
    json::object schema{{"type", "object"}, {"properties", std::move(props)}};
    return elicit(ctx, json::object{{"message", "Please review and update the form fields with defaults"}, {"requestedSchema", std::move(schema)}},
                  "Elicitation completed: ");
  }, Execution::own_thread);
  add(s, "test_elicitation_sep1330_enums", "Elicitation with enums", no_args(), [](const json::object&, CallContext& ctx) {
    auto titled = [](std::string_view a, std::string_view b, std::string_view c, std::string_view pa, std::string_view pb,
                     std::string_view pc) {
      return json::array{json::object{{"const", a}, {"title", pa}}, json::object{{"const", b}, {"title", pb}},
                         json::object{{"const", c}, {"title", pc}}};
    };
    json::object props{
        {"untitledSingle", json::object{{"type", "string"}, {"enum", json::array{"option1", "option2", "option3"}}}},
        {"titledSingle", json::object{{"type", "string"}, {"oneOf", titled("value1", "value2", "value3", "First Option", "Second Option", "Third Option")}}},
        {"legacyEnum", json::object{{"type", "string"}, {"enum", json::array{"opt1", "opt2", "opt3"}},
                                    {"enumNames", json::array{"Option One", "Option Two", "Option Three"}}}},
        {"untitledMulti", json::object{{"type", "array"}, {"items", json::object{{"type", "string"}, {"enum", json::array{"option1", "option2", "option3"}}}}}},
        {"titledMulti", json::object{{"type", "array"}, {"items", json::object{{"anyOf", titled("value1", "value2", "value3", "First Choice", "Second Choice", "Third Choice")}}}}}};
    json::object schema{{"type", "object"}, {"properties", std::move(props)}};
    return elicit(ctx, json::object{{"message", "Please select options from the enum fields"}, {"requestedSchema", std::move(schema)}},
                  "Elicitation completed: ");
  }, Execution::own_thread);
  add(s, "test_reconnection", "Answers after a pause (SSE reconnection test)", no_args(), [](const json::object&, CallContext& ctx) {
    ctx.wait_cancelled_for(100ms);
    return text_result("Reconnection test completed");
  }, Execution::own_thread);
}

json::array text_contents(const std::string& uri, std::string_view mime, std::string text) {
  return json::array{json::object{{"uri", uri}, {"mimeType", mime}, {"text", std::move(text)}}};
}

void add_resources(Server& s) {
  s.add_resource({"test://static-text", "static-text", "A static text resource", "text/plain", [](const std::string& uri) {
                    return text_contents(uri, "text/plain", "This is the content of the static text resource.");
                  }});
  s.add_resource({"test://static-binary", "static-binary", "A static binary resource", "image/png", [](const std::string& uri) {
                    return json::array{json::object{{"uri", uri}, {"mimeType", "image/png"}, {"blob", k_png}}};
                  }});
  s.add_resource({"test://watched-resource", "watched-resource", "A resource to subscribe to", "text/plain",
                  [](const std::string& uri) { return text_contents(uri, "text/plain", "Watched resource content"); }});
  s.add_resource_template({"test://template/{id}/data", "template", "A templated resource", "application/json",
                           [](const std::string& uri) {
                             const std::string prefix = "test://template/";
                             const std::string id = uri.substr(prefix.size(), uri.size() - prefix.size() - std::string("/data").size());
                             json::object data{{"id", id}, {"templateTest", true}, {"data", "Data for ID: " + id}};
                             return text_contents(uri, "application/json", json::serialize(data));
                           }});
}

json::object user_text(std::string text) {
  return json::object{{"role", "user"}, {"content", json::object{{"type", "text"}, {"text", std::move(text)}}}};
}

json::array prompt_args(std::initializer_list<std::pair<std::string_view, std::string_view>> args) {
  json::array out;
  for (auto [name, description] : args) out.push_back(json::object{{"name", name}, {"description", description}, {"required", true}});
  return out;
}

std::expected<std::string, std::string> arg(const json::object& args, std::string_view name) {
  const json::value* v = args.if_contains(name);
  if (!v || !v->is_string()) return std::unexpected("missing argument " + std::string(name));
  return std::string(v->as_string());
}

void add_prompts(Server& s) {
  s.add_prompt({"test_simple_prompt", "A simple prompt", {}, [](const json::object&) -> std::expected<json::object, std::string> {
                  return json::object{{"messages", json::array{user_text("This is a simple prompt for testing.")}}};
                }});
  s.add_prompt({"test_prompt_with_arguments", "A prompt with arguments",
                prompt_args({{"arg1", "First test argument"}, {"arg2", "Second test argument"}}),
                [](const json::object& args) -> std::expected<json::object, std::string> {
                  auto a = arg(args, "arg1");
                  auto b = arg(args, "arg2");
                  if (!a || !b) return std::unexpected(!a ? a.error() : b.error());
                  return json::object{{"messages", json::array{user_text("Prompt with arguments: arg1='" + *a + "', arg2='" + *b + "'")}}};
                }});
  s.add_prompt({"test_prompt_with_embedded_resource", "A prompt with an embedded resource",
                prompt_args({{"resourceUri", "URI of the resource to embed"}}),
                [](const json::object& args) -> std::expected<json::object, std::string> {
                  auto uri = arg(args, "resourceUri");
                  if (!uri) return std::unexpected(uri.error());
                  json::object res{{"uri", *uri}, {"mimeType", "text/plain"}, {"text", "Embedded resource content for testing."}};
                  json::object first{{"role", "user"}, {"content", json::object{{"type", "resource"}, {"resource", std::move(res)}}}};
                  return json::object{{"messages", json::array{std::move(first), user_text("Please process the embedded resource above.")}}};
                }});
  s.add_prompt({"test_prompt_with_image", "A prompt with an image", {}, [](const json::object&) -> std::expected<json::object, std::string> {
                  json::object first{{"role", "user"}, {"content", json::object{{"type", "image"}, {"data", k_png}, {"mimeType", "image/png"}}}};
                  return json::object{{"messages", json::array{std::move(first), user_text("Please analyze the image above.")}}};
                }});
}

}  // namespace

void add_conformance_fixture(Server& server) {
  add_content_tools(server);
  add_interactive_tools(server);
  add_resources(server);
  add_prompts(server);
}

}  // namespace harness::mcp
