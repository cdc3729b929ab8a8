#pragma once
// Which session directories hold a file that `status` or a run's start must read: an open
// checkpoint, a worker record. sessions/ keeps every session a project ever had (until
// `harness-cli prune`), and a walk of it made them cost what the project's history costs (60-70 ms
// for `status` with 5,000 old directories) instead of what is open now. An index is a directory
// of empty files, one per session directory that holds such a file:
//   .orchestration/index/<name>/<session id>
// Its writers add an entry before they write the file it stands for and remove it after that file
// is gone (closed, renamed), so every such file has an entry; an entry whose file is gone (a crash
// between the two steps, a directory removed by hand) costs a reader one failed open. A project an
// older harness wrote has no index yet: the first reader or writer walks sessions/ once and writes
// it (a reader that may not write, walks each time).

#include <expected>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace harness::store {

struct SessionIndex {
  std::string name; ///< the index's directory under .orchestration/index/
  /// Whether a session directory holds what the index lists: for the one walk of a project
  /// written before the index existed.
  std::function<bool(const std::filesystem::path& session_dir)> holds;
};

/// The session ids `index` lists under `state_dir`, in id order; builds the index first when the
/// project has none. The files they stand for may be gone: the caller reads each.
std::vector<std::string> indexed_sessions(const std::filesystem::path& state_dir, const SessionIndex& index);
/// Adds `id` to `index` (built first when the project has none), before its file is written.
std::expected<void, std::string> add_to_index(const std::filesystem::path& state_dir, const SessionIndex& index,
                                              const std::string& id);
/// Removes `id` from `index` (nothing when it is not there), once its file is gone.
void remove_from_index(const std::filesystem::path& state_dir, const SessionIndex& index, const std::string& id);
/// Removes `id` from every index: its session directory is gone (`harness-cli prune`).
void remove_from_every_index(const std::filesystem::path& state_dir, const std::string& id);

} // namespace harness::store
