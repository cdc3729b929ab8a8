#pragma once
// `harness-cli graph` output formats.

#include "harness/graph/plan_graph.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace harness::graph {

enum class GraphFormat { text, json, dot, mermaid };
std::optional<GraphFormat> parse_graph_format(std::string_view s);

/// Renders plans, edges, levels, critical path and conflict pairs.
std::string render_graph(const PlanGraph& g, GraphFormat format);

} // namespace harness::graph
