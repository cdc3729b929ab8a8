#pragma once
// Whether the repository has a hook that can change what a commit holds or what its message
// says. Reading a commit back after it is made (its index entries, its trailers) costs git
// processes on every commit; without such a hook the commit is what harness asked for.
#include <filesystem>
#include <string>
#include <vector>

namespace harness::worker {

/// True when an executable pre-commit, prepare-commit-msg or commit-msg hook is installed in
/// the hooks directory git uses for `root` (core.hooksPath included). The directory is asked of
/// git once per process and repository; the hook files are looked at on every call, so a hook
/// installed during a run counts from then on. True when git cannot say (assume the worst).
bool commit_hooks_installed(const std::filesystem::path& root);

/// The installed executable hooks that can rewrite a commit's message (prepare-commit-msg,
/// commit-msg), each relative to `root` when it lies inside it (".githooks/commit-msg"), else
/// absolute: what a message about lost trailers names, so the user knows which file to fix.
/// Empty when there is none or git cannot say.
std::vector<std::string> message_hooks(const std::filesystem::path& root);

} // namespace harness::worker
