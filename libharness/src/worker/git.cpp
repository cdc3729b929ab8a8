#include "harness/worker/git.hpp"

#include "harness/util/atomic_file.hpp"
#include "harness/worker/merged_pipe.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/readable_pipe.hpp>
#include <boost/process/v2/environment.hpp>
#include <boost/process/v2/process.hpp>
#include <boost/process/v2/start_dir.hpp>
#include <boost/process/v2/stdio.hpp>
#include <fmt/format.h>

#include <cerrno>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

namespace harness::worker {
namespace asio = boost::asio;
namespace bp = boost::process::v2;
namespace fs = std::filesystem;

namespace {

/// An exclusive flock held for the object's lifetime. The lock's directory ignores itself in git.
class LockFile {
public:
  explicit LockFile(const fs::path& file) {
    std::error_code ec;
    fs::create_directories(file.parent_path(), ec);
    if (!fs::exists(file.parent_path() / ".gitignore", ec))
      (void)util::write_file_atomic(file.parent_path() / ".gitignore", "*\n");
    m_fd = ::open(file.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644);
    if (m_fd >= 0)
      while (::flock(m_fd, LOCK_EX) != 0 && errno == EINTR) {
      }
  }
  ~LockFile() {
    if (m_fd >= 0) ::close(m_fd);
  }
  LockFile(const LockFile&) = delete;
  LockFile& operator=(const LockFile&) = delete;

private:
  int m_fd = -1;
};

} // namespace

GitResult run_git(const fs::path& root, std::vector<std::string> args) {
  GitResult r;
  static const auto git = bp::environment::find_executable("git");
  if (git.empty()) {
    r.out = "git: not found on PATH";
    return r;
  }
  asio::io_context ctx;
  auto pipe = make_merged_pipe(ctx);
  if (!pipe) {
    r.out = pipe.error();
    return r;
  }
  boost::system::error_code ec;
  bp::process proc(ctx, git, args, bp::process_stdio{nullptr, (*pipe)->write_end, (*pipe)->write_end},
                   bp::process_start_dir(root.string()));
  (*pipe)->close_write_end();
  asio::read((*pipe)->read_end, asio::dynamic_buffer(r.out), ec);
  r.exit_code = proc.wait();
  return r;
}

std::vector<GitChange> changed_paths(const fs::path& root) {
  auto r = run_git(root, {"--no-optional-locks", "status", "--porcelain=v1", "-z", "--untracked-files=all"});
  std::vector<GitChange> out;
  size_t pos = 0;
  while (pos + 3 < r.out.size()) {
    size_t end = r.out.find('\0', pos);
    if (end == std::string::npos) end = r.out.size();
    const std::string entry = r.out.substr(pos, end - pos);
    pos = end + 1;
    if (entry.size() < 4) continue;
    out.push_back({entry[0] == '?', entry.substr(3)});
    if (entry[0] == 'R' || entry[0] == 'C') pos = r.out.find('\0', pos) + 1; // skip the rename source
  }
  return out;
}

std::expected<std::string, std::string> commit_paths(const fs::path& root, const fs::path& lock_file,
                                                     const std::vector<std::string>& paths, const std::string& message) {
  if (paths.empty()) return std::string();
  LockFile lock(lock_file);
  std::vector<std::string> add = {"add", "-A", "--"};
  add.insert(add.end(), paths.begin(), paths.end());
  if (auto r = run_git(root, add); r.exit_code != 0)
    return std::unexpected(fmt::format("git add failed (exit {}): {}", r.exit_code, r.out));
  // Commit only these paths: other workers may have staged their own files meanwhile.
  std::vector<std::string> commit = {"commit", "-q", "--no-verify", "-m", message, "--"};
  commit.insert(commit.end(), paths.begin(), paths.end());
  if (auto r = run_git(root, commit); r.exit_code != 0) {
    if (r.out.find("nothing to commit") != std::string::npos || r.out.find("no changes added") != std::string::npos)
      return std::string();
    return std::unexpected(fmt::format("git commit failed (exit {}); is user.name/user.email configured? {}", r.exit_code, r.out));
  }
  auto head = run_git(root, {"rev-parse", "HEAD"}).out;
  while (!head.empty() && head.back() == '\n') head.pop_back();
  return head;
}

void with_git_lock(const fs::path& lock_file, const std::function<void()>& fn) {
  LockFile lock(lock_file);
  fn();
}

std::string find_commit(const fs::path& root, const std::string& needle) {
  auto r = run_git(root, {"log", "-n", "1", "--format=%H", "--fixed-strings", "--grep", needle});
  while (!r.out.empty() && r.out.back() == '\n') r.out.pop_back();
  return r.exit_code == 0 ? r.out : std::string();
}

} // namespace harness::worker
