#include "harness/store/session_index.hpp"

#include "harness/util/private_directory.hpp"

#include <fmt/format.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace harness::store {
namespace fs = std::filesystem;

namespace {

fs::path index_dir(const fs::path& state_dir, const SessionIndex& index) { return state_dir / "index" / index.name; }

std::vector<std::string> walk(const fs::path& state_dir, const SessionIndex& index) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(state_dir / "sessions", ec))
    if (index.holds(e.path())) out.push_back(e.path().filename().string());
  std::ranges::sort(out);
  return out;
}

/// An entry is its name: made again, it stays as it was (no O_TRUNC, no error).
bool touch(const fs::path& file) {
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  ::close(fd);
  return true;
}

/// The index of a project that has none, from one walk of sessions/. Its entries are made in a
/// directory of their own that is renamed into place in one step: a reader sees no index or a
/// whole one. A rename never replaces a directory that has entries, so an index another process
/// built (and maybe added to) meanwhile stands; replacing an empty one loses nothing, both came
/// from walks and entries are added only once an index stands.
std::vector<std::string> build(const fs::path& state_dir, const SessionIndex& index) {
  auto ids = walk(state_dir, index);
  const fs::path dir = index_dir(state_dir, index);
  const fs::path tmp = dir.parent_path() / fmt::format(".{}.tmp-{}", index.name, ::getpid());
  std::error_code ec;
  fs::remove_all(tmp, ec);
  if (util::create_private_directories(tmp)) return ids; // not ours to write: the walk is the answer
  const bool whole = std::ranges::all_of(ids, [&](const std::string& id) { return touch(tmp / id); });
  if (whole) fs::rename(tmp, dir, ec);
  fs::remove_all(tmp, ec); // left when not renamed
  return ids;
}

} // namespace

std::vector<std::string> indexed_sessions(const fs::path& state_dir, const SessionIndex& index) {
  std::error_code ec;
  fs::directory_iterator it(index_dir(state_dir, index), ec);
  if (ec == std::errc::no_such_file_or_directory) {
    // No sessions/ either: nothing to list, and a reader (status) creates nothing in a project.
    if (!fs::is_directory(state_dir / "sessions", ec)) return {};
    return build(state_dir, index);
  }
  if (ec) return walk(state_dir, index);
  std::vector<std::string> ids;
  for (; it != fs::directory_iterator(); it.increment(ec)) ids.push_back(it->path().filename().string());
  std::ranges::sort(ids);
  return ids;
}

std::expected<void, std::string> add_to_index(const fs::path& state_dir, const SessionIndex& index, const std::string& id) {
  const fs::path dir = index_dir(state_dir, index);
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    if (fs::is_directory(state_dir / "sessions", ec)) (void)build(state_dir, index); // an older harness's files first
    else (void)util::create_private_directories(dir);
  }
  if (!touch(dir / id)) return std::unexpected(fmt::format("cannot write {}: {}", (dir / id).string(), std::strerror(errno)));
  return {};
}

void remove_from_index(const fs::path& state_dir, const SessionIndex& index, const std::string& id) {
  std::error_code ec;
  fs::remove(index_dir(state_dir, index) / id, ec);
}

void remove_from_every_index(const fs::path& state_dir, const std::string& id) {
  std::error_code ec;
  for (const auto& dir : fs::directory_iterator(state_dir / "index", ec)) {
    std::error_code remove_ec;
    fs::remove(dir.path() / id, remove_ec);
  }
}

} // namespace harness::store
