#pragma once
// Internal: one `must_pass` entry from YAML into a spec::Check.

#include "harness/spec/check.hpp"
#include "yaml_reader.hpp"

#include <optional>

namespace harness::spec::detail {

/// Parses a check; diagnostics go to the reader. nullopt when the entry is unusable.
std::optional<Check> parse_check(const YAML::Node& node, size_t index, YamlReader& r);

/// Parses `command:` (argv list or shell-like string; `shell: true` wraps the string in sh -c).
std::optional<Command> parse_command(const YAML::Node& node, bool shell, std::string_view what, YamlReader& r);

} // namespace harness::spec::detail
