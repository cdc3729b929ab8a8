#pragma once
// harness's run state lives in `.orchestration/` at the project root; no plan's work is there.

#include <string_view>

namespace harness::util {

/// Whether the project-relative `path` is harness's state: `.orchestration` itself or a path
/// under it. The bare name matters: where `.orchestration` is a symlink to a state directory
/// elsewhere, git lists the link as one untracked file (`?? .orchestration`; the `.gitignore`
/// inside the link does not cover the link itself), and a worker whose files_modified reach it
/// (`**`) must neither commit it nor remove it on a retry's reset.
constexpr bool in_state_directory(std::string_view path) {
  constexpr std::string_view name = ".orchestration";
  return path.starts_with(name) && (path.size() == name.size() || path[name.size()] == '/');
}

} // namespace harness::util
