#include "harness/worker/git_head.hpp"

#include "harness/util/atomic_file.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace harness::worker {

namespace {

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) text.remove_suffix(1);
  return text;
}

/// `ref`'s commit in a packed-refs file: lines "<hash> <ref>", with '#' headers and '^' peeled
/// tags between them.
std::optional<std::string> packed_ref(std::string_view packed, std::string_view ref) {
  while (!packed.empty()) {
    const auto end = packed.find('\n');
    const auto line = trimmed(packed.substr(0, end));
    packed = end == std::string_view::npos ? std::string_view() : packed.substr(end + 1);
    const auto blank = line.find(' ');
    if (blank == std::string_view::npos || line.substr(blank + 1) != ref) continue;
    if (is_object_name(line.substr(0, blank))) return std::string(line.substr(0, blank));
  }
  return std::nullopt;
}

} // namespace

bool is_object_name(std::string_view text) {
  return (text.size() == 40 || text.size() == 64) &&
         std::ranges::all_of(text, [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

std::filesystem::path common_dir(const std::filesystem::path& git_dir) {
  auto text = util::read_file(git_dir / "commondir");
  if (!text) return git_dir;
  const std::filesystem::path named{std::string(trimmed(*text))};
  // Normal: commondir says "../..", and a removed lock's path is shown to the user.
  return (named.is_absolute() ? named : git_dir / named).lexically_normal();
}

std::optional<GitHead> parse_head(std::string_view text) {
  text = trimmed(text);
  if (text.starts_with("ref: ")) {
    std::string_view ref = text.substr(5);
    if (ref.starts_with("refs/heads/")) ref.remove_prefix(11);
    if (ref.empty()) return std::nullopt;
    return GitHead{std::string(ref), ""};
  }
  if (!is_object_name(text)) return std::nullopt;
  return GitHead{"", std::string(text)};
}

std::optional<GitHead> read_head(const std::filesystem::path& git_dir) {
  if (git_dir.empty()) return std::nullopt;
  auto text = util::read_file(git_dir / "HEAD");
  if (!text) return std::nullopt;
  return parse_head(*text);
}

std::optional<std::string> read_head_commit(const std::filesystem::path& git_dir, const GitHead& head) {
  if (git_dir.empty()) return std::nullopt;
  if (head.branch.empty()) return head.commit.empty() ? std::nullopt : std::optional(head.commit);
  const auto common = common_dir(git_dir);
  const std::string ref = "refs/heads/" + head.branch;
  // git writes a loose ref through a lock file renamed over it, and packs refs into packed-refs
  // before it removes the loose ones: a read never sees half a hash, nor a branch in neither.
  if (auto loose = util::read_file(common / ref)) {
    if (is_object_name(trimmed(*loose))) return std::string(trimmed(*loose));
    return std::nullopt;
  }
  auto packed = util::read_file(common / "packed-refs");
  return packed ? packed_ref(*packed, ref) : std::nullopt;
}

std::string describe(const GitHead& head) {
  if (!head.branch.empty()) return head.branch;
  return fmt::format("a detached HEAD (at {})", head.commit.substr(0, 10));
}

} // namespace harness::worker
