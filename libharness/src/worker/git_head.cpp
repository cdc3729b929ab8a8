#include "harness/worker/git_head.hpp"

#include "harness/util/atomic_file.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace harness::worker {

std::optional<GitHead> parse_head(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) text.remove_suffix(1);
  if (text.starts_with("ref: ")) {
    std::string_view ref = text.substr(5);
    if (ref.starts_with("refs/heads/")) ref.remove_prefix(11);
    if (ref.empty()) return std::nullopt;
    return GitHead{std::string(ref), ""};
  }
  const bool hash = (text.size() == 40 || text.size() == 64) &&
                    std::ranges::all_of(text, [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
  if (!hash) return std::nullopt;
  return GitHead{"", std::string(text)};
}

std::optional<GitHead> read_head(const std::filesystem::path& git_dir) {
  if (git_dir.empty()) return std::nullopt;
  auto text = util::read_file(git_dir / "HEAD");
  if (!text) return std::nullopt;
  return parse_head(*text);
}

std::string describe(const GitHead& head) {
  if (!head.branch.empty()) return head.branch;
  return fmt::format("a detached HEAD (at {})", head.commit.substr(0, 10));
}

} // namespace harness::worker
