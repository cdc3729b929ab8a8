#pragma once
// Whether the installed skills will find this harness-cli: the /harness:* commands, the agents
// and the worker prompt call a bare `harness-cli`, found on PATH.

#include <filesystem>
#include <string>
#include <string_view>

namespace harness::setup {

/// The first executable `harness-cli` in the colon-separated `path_env` (an empty entry is the
/// working directory, as the shell reads it), or empty when there is none.
std::filesystem::path cli_on_path(std::string_view path_env);

/// A warning for install-skills when the `harness-cli` that `path_env` finds is not `self` (this
/// program): none at all, or another one first. Empty when the skills will run `self`.
std::string cli_path_warning(const std::filesystem::path& self, std::string_view path_env);

} // namespace harness::setup
