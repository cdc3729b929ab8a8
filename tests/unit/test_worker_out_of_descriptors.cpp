// Out of descriptors (EMFILE: `ulimit -n` too low for the slots), a git call and a command return
// the reason like any other failure. They used to throw out of their own io_context (whose epoll
// instance and eventfd need descriptors too), and the exception ended the orchestrator's run.
#include "harness/worker/git.hpp"
#include "harness/worker/run_command.hpp"
#include "spec_test_util.hpp"

#include <catch2/catch.hpp>

#include <boost/system/system_error.hpp>
#include <boost/throw_exception.hpp>

#include <algorithm>
#include <fcntl.h>
#include <string>
#include <sys/resource.h>
#include <unistd.h>
#include <vector>

using namespace harness;

namespace {

/// Every descriptor this process may open is taken, but `free` of them; all given back (and the
/// limit restored) when it goes. The soft limit is lowered first so that "every" is a few hundred.
class DescriptorsTaken {
public:
  explicit DescriptorsTaken(int free) {
    ::getrlimit(RLIMIT_NOFILE, &m_saved);
    rlimit low = m_saved;
    low.rlim_cur = std::min<rlim_t>(m_saved.rlim_cur, 256);
    ::setrlimit(RLIMIT_NOFILE, &low);
    for (int fd; (fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0;) m_held.push_back(fd);
    for (int i = 0; i < free && !m_held.empty(); ++i) {
      ::close(m_held.back());
      m_held.pop_back();
    }
  }
  ~DescriptorsTaken() {
    for (int fd : m_held) ::close(fd);
    ::setrlimit(RLIMIT_NOFILE, &m_saved);
  }
  DescriptorsTaken(const DescriptorsTaken&) = delete;
  DescriptorsTaken& operator=(const DescriptorsTaken&) = delete;

private:
  rlimit m_saved{};
  std::vector<int> m_held;
};

/// A sanitizer build checks an object's type with a pipe the first time it sees the type, and
/// reports a false error when that pipe cannot be made: the types are seen once beforehand.
void warm_up(const test::TempDir& dir) {
  (void)worker::run_git(dir.path, {"--version"});
  worker::CommandRequest req;
  req.argv = {"true"};
  req.cwd = dir.path;
  (void)worker::run_command(req);
  try {
    // As Asio throws it (boost::throw_exception wraps it in boost::wrapexcept).
    boost::throw_exception(boost::system::system_error(boost::system::error_code(EMFILE, boost::system::system_category()), "warm-up"));
  } catch (const boost::system::system_error&) {
  }
}

bool says_out_of_descriptors(const std::string& text) { return text.find("Too many open files") != std::string::npos; }

} // namespace

TEST_CASE("a git call out of descriptors returns the reason instead of throwing", "[worker][git][descriptors]") {
  test::TempDir dir;
  warm_up(dir);
  // 0: no pipe; 2: a pipe but no epoll instance for the loop; 7: all but the pidfd (polled then).
  for (int free = 0; free <= 12; ++free) {
    CAPTURE(free);
    worker::GitResult r;
    std::string thrown; // no assertion while the descriptors are taken: Catch's own need some
    {
      DescriptorsTaken taken(free);
      try {
        r = worker::run_git(dir.path, {"--version"});
      } catch (...) { // not e.what(): a sanitizer build could not check its type now
        thrown = "an exception";
      }
    }
    REQUIRE(thrown.empty());
    if (r.exit_code == 0) CHECK(r.out.starts_with("git version"));
    else CHECK(says_out_of_descriptors(r.err));
  }
  int exit_code = -1;
  {
    DescriptorsTaken taken(20);
    exit_code = worker::run_git(dir.path, {"--version"}).exit_code;
  }
  CHECK(exit_code == 0);
}

TEST_CASE("a command out of descriptors returns the reason instead of throwing", "[worker][run_command][descriptors]") {
  test::TempDir dir;
  warm_up(dir);
  for (int free = 0; free <= 10; ++free) {
    CAPTURE(free);
    worker::CommandRequest req;
    req.argv = {"echo", "ran"};
    req.cwd = dir.path;
    worker::CommandResult r;
    std::string thrown;
    {
      DescriptorsTaken taken(free);
      try {
        r = worker::run_command(req);
      } catch (...) { // not e.what(): a sanitizer build could not check its type now
        thrown = "an exception";
      }
    }
    REQUIRE(thrown.empty());
    if (r.ok()) CHECK(r.output == "ran\n");
    else CHECK(says_out_of_descriptors(r.error));
  }
}
