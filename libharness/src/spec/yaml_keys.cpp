#include "harness/spec/yaml_keys.hpp"

#include <map>

namespace harness::spec {
namespace {

void walk(const YAML::Node& node, const std::string& prefix, std::vector<RepeatedKey>& out) {
  if (node.IsSequence())
    for (const auto& item : node) walk(item, prefix, out);
  if (!node.IsMap()) return;
  std::map<std::string, YAML::Node, std::less<>> seen;
  for (const auto& kv : node) {
    if (!kv.first.IsScalar()) continue;
    const std::string path = prefix + kv.first.Scalar();
    if (auto [it, inserted] = seen.emplace(kv.first.Scalar(), kv.first); !inserted) out.push_back({kv.first, it->second, path});
    walk(kv.second, path + ".", out);
  }
}

} // namespace

std::vector<RepeatedKey> repeated_keys(const YAML::Node& node) {
  std::vector<RepeatedKey> out;
  walk(node, "", out);
  return out;
}

} // namespace harness::spec
