#include "check_parser.hpp"
#include "near_miss.hpp"

#include "harness/util/shell_words.hpp"

#include <fmt/format.h>

#include <set>

namespace harness::spec::detail {
namespace {

/// The fields each type needs; a missing one is H013.
std::vector<std::string_view> required_fields(CheckType t) {
  switch (t) {
  case CheckType::file_exists: return {"path"};
  case CheckType::file_contains: return {"path"};
  case CheckType::command_output:
  case CheckType::build_succeeds:
  case CheckType::tests_pass: return {"command"};
  case CheckType::api_response: return {"endpoint"};
  case CheckType::ui_element_exists: return {"url", "selector"};
  case CheckType::ui_navigation: return {"url", "steps"};
  case CheckType::visual_quality:
  case CheckType::ux_flow: return {"description"};
  }
  return {};
}

const std::set<std::string, std::less<>> k_known_fields = {
    "id", "type", "path", "pattern", "text", "literal", "count", "command", "shell", "start", "ready_url",
    "env", "endpoint", "url", "method", "headers", "body", "selector", "steps", "description", "expects",
    "timeout", "contains"};
const std::set<std::string, std::less<>> k_expects_keys = {"exit_code", "stdout", "stderr", "status", "url", "text", "body"};

void parse_expects(const YAML::Node& n, Check& c, YamlReader& r) {
  if (!n.IsMap()) {
    r.error(n, "H004", "expects must be a map");
    return;
  }
  for (const auto& kv : n) {
    const std::string key = kv.first.Scalar();
    const YAML::Node& v = kv.second;
    if (key == "exit_code") c.expects.exit_code = r.integer(v, "expects.exit_code");
    else if (key == "stdout") c.expects.stdout_re = r.string(v, "expects.stdout");
    else if (key == "stderr") c.expects.stderr_re = r.string(v, "expects.stderr");
    else if (key == "status") c.expects.status = r.integer(v, "expects.status");
    else if (key == "url") c.expects.url = r.string(v, "expects.url");
    else if (key == "text") c.expects.text = r.string(v, "expects.text");
    else if (key == "body") {
      if (v.IsScalar()) c.expects.body_re = v.Scalar();
      else c.expects.body_json = yaml_to_json(v);
    } else if (auto like = detail::near_miss(key, k_expects_keys))
      r.error(kv.first, "H026", fmt::format("unknown key 'expects.{}': did you mean 'expects.{}'? (as written, the check "
                                            "would not test it)", key, *like));
    else r.warning(kv.first, "H014", fmt::format("unknown key 'expects.{}' is ignored", key));
  }
}

void parse_steps(const YAML::Node& n, Check& c, YamlReader& r) {
  if (!n.IsSequence()) {
    r.error(n, "H004", "steps must be a list");
    return;
  }
  for (const auto& s : n) {
    UiStep step;
    if (s.IsScalar()) { // "click #login", "goto /about", "expect_url /done$", "fill #email a@b.c"
      const std::string text = s.Scalar();
      const auto sp = text.find(' ');
      step.action = text.substr(0, sp);
      const std::string rest = sp == std::string::npos ? std::string() : text.substr(sp + 1);
      if (step.action == "goto" || step.action == "expect_url" || step.action == "expect_text") {
        step.value = rest; // what the driver reads for these: a URL, a pattern, a text
      } else if (step.action == "fill") {
        const auto sp2 = rest.find(' ');
        step.selector = rest.substr(0, sp2);
        if (sp2 != std::string::npos) step.value = rest.substr(sp2 + 1);
      } else {
        step.selector = rest;
      }
    } else if (s.IsMap() && s.size() == 1) { // {click: "#login"} / {goto: "/x"}
      auto kv = *s.begin();
      step.action = kv.first.Scalar();
      if (kv.second.IsScalar()) {
        if (step.action == "goto" || step.action == "expect_url" || step.action == "expect_text")
          step.value = kv.second.Scalar();
        else step.selector = kv.second.Scalar();
      } else if (kv.second.IsMap()) {
        if (kv.second["selector"]) step.selector = kv.second["selector"].as<std::string>("");
        if (kv.second["value"]) step.value = kv.second["value"].as<std::string>("");
        if (kv.second["text"]) step.value = kv.second["text"].as<std::string>("");
      }
    } else if (s.IsMap()) { // {action: click, selector: ...}
      if (s["action"]) step.action = s["action"].as<std::string>("");
      if (s["selector"]) step.selector = s["selector"].as<std::string>("");
      if (s["value"]) step.value = s["value"].as<std::string>("");
      if (s["url"]) step.value = s["url"].as<std::string>("");
      if (s["text"]) step.value = s["text"].as<std::string>("");
    }
    static const std::set<std::string, std::less<>> actions = {"goto", "click", "fill", "wait_for", "expect_text",
                                                               "expect_url"};
    if (!actions.contains(step.action)) {
      r.error(s, "H017", fmt::format("unknown ui step '{}' (goto, click, fill, wait_for, expect_text, expect_url)", step.action));
      continue;
    }
    // An empty pattern matches every URL and an empty text every page: a check that cannot fail.
    const bool needs_value = step.action == "goto" || step.action == "expect_url" || step.action == "expect_text";
    if (needs_value && step.value.empty()) {
      r.error(s, "H017", fmt::format("ui step '{}' needs {}", step.action,
                                     step.action == "goto" ? "a URL" : step.action == "expect_url" ? "a URL pattern" : "a text"));
      continue;
    }
    if ((step.action == "click" || step.action == "wait_for" || step.action == "fill") && step.selector.empty()) {
      // "- click #add" unquoted is "- click" to YAML: the comment took the selector (review NN F6).
      r.error(s, "H017", fmt::format("ui step '{}' needs a selector (quote a step with a CSS '#': '{} #id'; YAML "
                                     "reads an unquoted ' #' as the start of a comment)",
                                     step.action, step.action));
      continue;
    }
    c.steps.push_back(std::move(step));
  }
}

/// An HTTP verb in upper case, or nullopt when it is not one a check can send. Case does not
/// matter to a reader of the plan ("post" is plainly POST); on the wire it must be upper case.
std::optional<std::string> http_method(std::string_view text) {
  static const std::set<std::string, std::less<>> methods = {"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"};
  std::string upper(text);
  for (auto& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  if (!methods.contains(upper)) return std::nullopt;
  return upper;
}

/// Reads `endpoint: "POST /api/x"` or `endpoint: /api/x`; returns the verb it names, if any.
/// The method itself is settled once all keys are read, so that key order does not matter.
std::optional<std::string> parse_endpoint(const YAML::Node& n, Check& c, YamlReader& r) {
  auto text = r.string(n, "endpoint");
  if (!text) return std::nullopt;
  const auto sp = text->find(' ');
  if (sp == std::string::npos) {
    c.endpoint = *text;
    return std::nullopt;
  }
  c.endpoint = text->substr(text->find_first_not_of(' ', sp));
  const std::string verb = text->substr(0, sp);
  auto method = http_method(verb);
  if (!method) r.error(n, "H017", fmt::format("unknown HTTP method '{}' in endpoint", verb));
  return method;
}

/// The method of an api_response check: `method:` and a verb in `endpoint:` must agree, and
/// without either it is GET.
void settle_method(Check& c, const YAML::Node& method_node, const std::optional<std::string>& endpoint_verb,
                   YamlReader& r) {
  if (!method_node) {
    c.method = endpoint_verb.value_or(c.type == CheckType::api_response ? "GET" : "");
    return;
  }
  const auto text = r.string(method_node, "method");
  if (!text) return;
  const auto method = http_method(*text);
  if (!method) {
    r.error(method_node, "H017", fmt::format("unknown HTTP method '{}' (GET POST PUT PATCH DELETE HEAD OPTIONS)", *text));
    return;
  }
  if (endpoint_verb && *endpoint_verb != *method)
    r.error(method_node, "H025", fmt::format("method {} contradicts the {} in endpoint", *method, *endpoint_verb));
  c.method = *method;
}

/// H030: a command string written for a shell (`npm test && npm run lint`, `FOO=1 make`) runs
/// without one, so `&&` or `FOO=1` reaches the program as a word: a puzzling failure, or a check
/// that passes for another reason than the one written.
void warn_shell_syntax(const YAML::Node& node, std::string_view text, std::string_view what, YamlReader& r) {
  const auto syntax = util::find_shell_syntax(text);
  if (!syntax) return;
  const bool is_command = what == "command"; // `env:` reaches a command, not a server's `start`
  if (syntax->kind == util::ShellSyntax::Kind::assignment) {
    r.warning(node, "H030", fmt::format("{} starts with the shell assignment '{}' but runs without a shell, so it would "
                                        "run a program named '{}': {}add `shell: true`", what, syntax->text, syntax->text,
                                        is_command ? "put the variable in the check's `env:` map, or " : ""));
    return;
  }
  if (syntax->kind == util::ShellSyntax::Kind::glob) {
    r.warning(node, "H030", fmt::format("{} has the file pattern '{}', which a shell would expand into file names, but "
                                        "runs without a shell, so the program gets '{}' as it is written: add `shell: true`",
                                        what, syntax->text, syntax->text));
    return;
  }
  // Operators joining commands can become separate checks; an expansion cannot.
  const bool joins = syntax->text == "&&" || syntax->text == "||" || syntax->text == ";";
  r.warning(node, "H030", fmt::format("{} uses the shell's '{}' but runs without a shell, so '{}' reaches the program "
                                      "as it is written: add `shell: true`{}", what, syntax->text, syntax->text,
                                      is_command && joins ? ", or split it into separate checks" : ""));
}

} // namespace

std::optional<Command> parse_command(const YAML::Node& node, bool shell, std::string_view what, YamlReader& r) {
  Command cmd;
  cmd.shell = shell;
  if (node.IsSequence()) {
    auto argv = r.string_list(node, what);
    if (!argv) return std::nullopt;
    if (argv->empty()) {
      r.error(node, "H019", fmt::format("{} is empty", what));
      return std::nullopt;
    }
    for (const auto& a : *argv) cmd.text += (cmd.text.empty() ? "" : " ") + util::quote_shell_word(a);
    cmd.argv = shell ? std::vector<std::string>{"/bin/sh", "-c", cmd.text} : *argv;
    return cmd;
  }
  auto text = r.string(node, what);
  if (!text) return std::nullopt;
  cmd.text = *text;
  if (shell) {
    cmd.argv = {"/bin/sh", "-c", *text};
    return cmd;
  }
  auto words = util::split_shell_words(*text);
  if (!words) {
    r.error(node, "H019", fmt::format("{}: {}", what, words.error()));
    return std::nullopt;
  }
  if (words->empty()) {
    r.error(node, "H019", fmt::format("{} is empty", what));
    return std::nullopt;
  }
  cmd.argv = std::move(*words);
  warn_shell_syntax(node, *text, what, r);
  return cmd;
}

std::optional<Check> parse_check(const YAML::Node& node, size_t index, YamlReader& r) {
  if (!node.IsMap()) {
    r.error(node, "H004", fmt::format("must_pass[{}] must be a map with id and type", index));
    return std::nullopt;
  }
  Check c;
  c.line = r.line_of(node);
  const YAML::Node type_node = node["type"];
  if (!type_node) {
    r.error(node, "H013", fmt::format("must_pass[{}] has no type", index));
    return std::nullopt;
  }
  auto type_name = r.string(type_node, "type");
  if (!type_name) return std::nullopt;
  auto type = parse_check_type(*type_name);
  if (!type) {
    r.error(type_node, "H012", fmt::format("unknown must_pass type '{}'", *type_name));
    return std::nullopt;
  }
  c.type = *type;
  if (const YAML::Node id = node["id"]) {
    if (auto s = r.string(id, "id")) c.id = *s;
  } else {
    r.error(node, "H013", fmt::format("must_pass[{}] ({}) has no id", index, *type_name));
  }
  bool ok = true;
  for (auto field : required_fields(c.type)) {
    if (!node[std::string(field)]) {
      if (c.type == CheckType::api_response && node["url"]) continue; // a full URL is enough
      r.error(node, "H013", fmt::format("{} check '{}' needs '{}'", *type_name, c.id, field));
      ok = false;
    }
  }
  if (c.type == CheckType::file_contains && !node["pattern"] && !node["text"] && !node["contains"]) {
    r.error(node, "H013", fmt::format("file_contains check '{}' needs 'pattern' (regex) or 'text'", c.id));
    ok = false;
  }
  bool shell = false;
  if (node["shell"]) shell = r.boolean(node["shell"], "shell").value_or(false);
  std::optional<std::string> endpoint_verb;
  for (const auto& kv : node) {
    const std::string key = kv.first.Scalar();
    const YAML::Node& v = kv.second;
    if (!k_known_fields.contains(key)) {
      if (auto like = detail::near_miss(key, k_known_fields)) {
        r.error(kv.first, "H026", fmt::format("unknown check field '{}': did you mean '{}'? (as written, it is not "
                                              "part of the check)", key, *like));
        ok = false;
      } else r.warning(kv.first, "H014", fmt::format("unknown check field '{}' is ignored", key));
    }
    else if (key == "path") c.path = r.string(v, "path").value_or("");
    else if (key == "pattern") c.pattern = r.string(v, "pattern").value_or("");
    else if (key == "text" || key == "contains") c.pattern = r.string(v, key).value_or(""), c.literal = true;
    else if (key == "literal") c.literal = r.boolean(v, "literal").value_or(false);
    else if (key == "count") c.count = r.integer(v, "count");
    else if (key == "command") {
      if (auto cmd = parse_command(v, shell, "command", r)) c.command = *cmd; else ok = false;
    } else if (key == "start") {
      if (auto cmd = parse_command(v, shell, "start", r)) c.start = *cmd; else ok = false;
    } else if (key == "ready_url") c.ready_url = r.string(v, "ready_url");
    else if (key == "endpoint") endpoint_verb = parse_endpoint(v, c, r);
    else if (key == "method") continue; // settled after the loop, against endpoint's verb
    else if (key == "url") c.url = r.string(v, "url").value_or("");
    else if (key == "body") c.body = v.IsScalar() ? v.Scalar() : yaml_to_json(v);
    else if (key == "selector") c.selector = r.string(v, "selector").value_or("");
    else if (key == "description") c.description = r.string(v, "description").value_or("");
    else if (key == "expects") parse_expects(v, c, r);
    else if (key == "steps") parse_steps(v, c, r);
    else if (key == "timeout") c.timeout_seconds = r.duration(v, "timeout");
    else if (key == "headers" || key == "env") {
      if (!v.IsMap()) {
        r.error(v, "H004", fmt::format("{} must be a map", key));
        continue;
      }
      auto& target = key == "headers" ? c.headers : c.env;
      for (const auto& h : v) target[h.first.Scalar()] = h.second.IsScalar() ? h.second.Scalar() : yaml_to_json(h.second);
    }
  }
  settle_method(c, node["method"], endpoint_verb, r);
  if (c.start.empty() && uses_port_placeholder(c)) {
    // The port is handed to the server the check starts: without one nothing listens there.
    r.error(node, "H013", fmt::format("{} check '{}' uses {} but has no 'start' to give it to", *type_name, c.id, k_port_placeholder));
    ok = false;
  }
  if (!ok) return std::nullopt;
  return c;
}

} // namespace harness::spec::detail
