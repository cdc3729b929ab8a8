#include "harness/mcp/options.hpp"

#include <charconv>

namespace harness::mcp {

namespace {

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    // "a, b": the blank after a comma is the list's, not the name's.
    const auto first = text.find_first_not_of(' ', start), last = text.find_last_not_of(' ', comma - 1);
    if (comma > start && first < comma && last != std::string::npos && last >= first)
      out.push_back(text.substr(first, last - first + 1));
    start = comma + 1;
  }
  return out;
}

}  // namespace

std::expected<McpOptions, std::string> parse_options(const std::vector<std::string>& args) {
  McpOptions options;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&](std::string_view flag) -> std::expected<std::string, std::string> {
      const std::string prefix = std::string(flag) + "=";
      if (a.starts_with(prefix)) return a.substr(prefix.size());
      if (i + 1 >= args.size()) return std::unexpected(std::string(flag) + " needs a value");
      return args[++i];
    };
    if (a == "--worker") {
      options.role = Role::worker;
    } else if (a == "--conformance-fixture") {
      options.role = Role::conformance_fixture;
    } else if (a == "--project" || a.starts_with("--project=")) {
      auto v = value("--project");
      if (!v) return std::unexpected(v.error());
      options.project = *v;
    } else if (a == "--tools" || a.starts_with("--tools=")) {
      auto v = value("--tools");
      if (!v) return std::unexpected(v.error());
      options.tools = split_commas(*v);
    } else if (a == "--page-size" || a.starts_with("--page-size=")) {
      auto v = value("--page-size");
      if (!v) return std::unexpected(v.error());
      auto [ptr, ec] = std::from_chars(v->data(), v->data() + v->size(), options.page_size);
      if (ec != std::errc{} || ptr != v->data() + v->size() || options.page_size == 0) {
        return std::unexpected("--page-size needs a positive integer");
      }
    } else {
      return std::unexpected("unknown option: " + a);
    }
  }
  return options;
}

std::string usage() {
  return "usage: harness-mcp [--worker] [--project DIR] [--tools a,b] [--page-size N] [--conformance-fixture]\n"
         "MCP server on stdio (JSON-RPC lines on stdin/stdout, logs on stderr).\n"
         "  (no flags)             orchestrator tools for the project the current directory lies in\n"
         "  --worker               worker tools; needs HARNESS_SESSION_ID and HARNESS_TOKEN\n"
         "  --project DIR          project root (state in DIR/.orchestration/; default: the nearest\n"
         "                         directory up holding .git, as git finds it, else the current one)\n"
         "  --tools a,b            expose only these tools\n"
         "  --page-size N          items per tools/list page (default 100)\n"
         "  --conformance-fixture  the fixture tools for @modelcontextprotocol/conformance\n";
}

}  // namespace harness::mcp
