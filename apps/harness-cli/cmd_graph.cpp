// harness-cli graph SPEC_DIR [--format text|json|dot|mermaid] [--json]
#include "commands.hpp"
#include "load_valid_spec.hpp"

#include "harness/graph/plan_graph.hpp"
#include "harness/graph/render.hpp"
#include "harness/spec/report.hpp"
#include "harness/spec/spec.hpp"

#include <iostream>
#include <memory>

namespace harness::cli {

void add_graph(CLI::App& app, ExitCode& exit) {
  struct Options {
    std::string spec_dir;
    std::string format = "text";
    bool json = false;
  };
  auto opt = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("graph", "Show the plan graph: edges, levels, critical path, file conflicts");
  cmd->add_option("SPEC_DIR", opt->spec_dir, "spec directory")->required();
  auto* format = cmd->add_option("--format", opt->format, "text, json, dot or mermaid")
                     ->check(CLI::IsMember({"text", "json", "dot", "mermaid"}));
  cmd->add_flag("--json", opt->json, "same as --format json")->excludes(format);
  cmd->callback([opt, &exit] {
    auto spec = load_valid_spec(opt->spec_dir, exit, opt->json || opt->format == "json" ? Output::json : Output::text);
    if (!spec) return;
    const auto graph = graph::build_plan_graph(spec->plans, spec->roadmap ? &*spec->roadmap : nullptr);
    std::cout << graph::render_graph(graph, *graph::parse_graph_format(opt->json ? "json" : opt->format));
    exit.value = 0;
  });
}

} // namespace harness::cli
