#include "harness/worker/git_history.hpp"

#include "harness/worker/git.hpp"

#include <fmt/format.h>

namespace harness::worker {

std::expected<HistoryDepth, std::string> history_depth(const std::filesystem::path& root) {
  auto r = run_git(root, {"rev-parse", "--is-shallow-repository"});
  if (r.exit_code != 0) {
    auto said = r.messages();
    while (!said.empty() && (said.back() == '\n' || said.back() == ' ')) said.pop_back();
    return std::unexpected(fmt::format("git cannot read the repository at {} (exit {}): {}", root.string(), r.exit_code,
                                       said.empty() ? "no message" : said));
  }
  return r.out.starts_with("true") ? HistoryDepth::shallow : HistoryDepth::whole;
}

} // namespace harness::worker
