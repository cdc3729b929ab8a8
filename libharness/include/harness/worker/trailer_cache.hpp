#pragma once
// The trailer commits of a history as a run read them, kept between runs in
// `.orchestration/trailer-index.json`: the next run reads only the commits made since, instead of
// walking the whole history again (a `git log` of every commit costs about 10 us each: 0.2 s at
// 20,000 commits, seconds at a million, on every start and resume).
//
// The file is harness's own state, as trusted as harness.db beside it. It is used only when the
// commit it was made at is still in HEAD's history (proven from the commits read since, see
// TrailerIndex) by a straight line of commits, the repository's shallow boundary is the one it was
// made with, and no graft or replace ref alters the history; anything else, or a file that does
// not parse, means the whole history is read again.

#include "harness/worker/trailers.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace harness::worker {

struct TrailerCache {
  std::string head;    ///< the newest commit read: the commits below are HEAD's history up to it
  std::string shallow; ///< shallow_fingerprint() when it was made
  std::vector<TrailerCommit> newest_first; ///< commits with a `Plan:` or `Redo:` trailer
};

/// The file's text (JSON; paths are not kept: commits of an earlier run are asked for theirs).
std::string render_trailer_cache(const TrailerCache& cache);

/// nullopt for anything but a file render_trailer_cache wrote, of this version, whose head is a
/// commit hash (it becomes part of a git argument).
std::optional<TrailerCache> parse_trailer_cache(std::string_view text);

/// What tells one shallow boundary from another (the common git directory's `shallow` file, which
/// `git fetch --deepen` or `--unshallow` rewrites): empty for a complete history. A history
/// deepened since the cache was made holds older commits the cache never saw.
std::string shallow_fingerprint(const std::filesystem::path& git_dir);

/// Whether grafts (`info/grafts`) or replace refs (`refs/replace/`) may make git show another
/// history than the commits hold: the cache is then neither used nor kept.
bool history_replaced(const std::filesystem::path& git_dir);

} // namespace harness::worker
