#pragma once
// Repeated keys in YAML maps. yaml-cpp keeps both entries of `a: 1` then `a: 2`: `node["a"]`
// reads the first while a loop over the map sees both, so a file could mean one thing to harness
// and another to the next tool. Every YAML file harness reads reports them (PLAN frontmatter as
// H024, config.yaml as H204).

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

namespace harness::spec {

struct RepeatedKey {
  YAML::Node key;   ///< the repeat: its Mark() is where to point
  YAML::Node first; ///< the earlier key of the same map
  std::string path; ///< "timeouts.task": the key after the keys of the maps that hold it
};

/// Every key that repeats an earlier key of the same map, at any depth (maps inside lists too),
/// in document order.
std::vector<RepeatedKey> repeated_keys(const YAML::Node& node);

} // namespace harness::spec
