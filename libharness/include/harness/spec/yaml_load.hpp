#pragma once
// Every YAML text harness reads (frontmatter, config.yaml) is loaded here. yaml-cpp's own
// YAML::Load takes the first document and resolves aliases into shared nodes: a key after a
// `...` line was dropped without a word (a plan lost its checks), and an alias of its own
// container (`x: &a [*a]`) or nested aliases ("billion laughs") made every later walk of the
// nodes overflow the stack or run for hours (review FF F1, F2, F6). harness's files need neither.

#include <yaml-cpp/yaml.h>

#include <string>

namespace harness::spec {

/// YAML::Load of `text`, refusing aliases (`*name`), a second document (a `...` or `---` line
/// inside the text) and a double-quoted value that never closes (yaml-cpp takes the rest of the
/// text into it) with a YAML::ParserException at the place, as for a syntax error.
YAML::Node load_yaml(const std::string& text);

} // namespace harness::spec
