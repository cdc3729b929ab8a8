#pragma once
// Durable whole-file writes: a reader sees the old content or the new, never a torn mix.

#include "harness/util/system_error.hpp"

#include <expected>
#include <filesystem>
#include <string>
#include <string_view>

namespace harness::util {

/// Writes `content` to `path` through a temporary file in the same directory that is fsynced and
/// then renamed over `path`; the directory is fsynced too so the rename survives a power loss.
/// Parent directories are created. On failure `path` is untouched and the error reads
/// "<path>: <step>: <cause>" ("/p/STATUS.md: write: No space left on device"): the temporary
/// file, removed by then, is not named.
/// A symbolic link at `path` stays a link: the file it points to is replaced. An existing file
/// keeps its permission bits; a new one gets 0666 less the umask (0644 with the usual 022, 0600
/// with 077: review II F10 found every new document 0644 whatever the umask).
std::expected<void, std::string> write_file_atomic(const std::filesystem::path& path,
                                                   std::string_view content);

/// write_file_atomic, with the errno of the step that failed beside its words.
std::expected<void, SystemError> write_file_atomic_or_errno(const std::filesystem::path& path,
                                                            std::string_view content);

/// Removes the temporary files (`.<name>.tmp-XXXXXX`) that a process killed inside
/// write_file_atomic left under `dir`, recursively. Returns how many were removed.
int remove_stale_temp_files(const std::filesystem::path& dir);

/// A second name for the file (or link) at `path`: a hard link `.<name>.tmp-XXXXXX` beside it,
/// so that what it holds now survives its removal or a rewrite by write_file_atomic, and a rename
/// puts it back; neither needs free space (a copy written back failed on the full disk that had
/// failed what was being undone). remove_stale_temp_files removes one a killed process left. The
/// error when the file system has no hard links, or the name cannot be made.
std::expected<std::filesystem::path, std::string> keep_aside(const std::filesystem::path& path);

/// Reads a whole file; the error says why it could not be read.
std::expected<std::string, std::string> read_file(const std::filesystem::path& path);

} // namespace harness::util
