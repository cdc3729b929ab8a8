// The script worker against a real git repository in a temporary directory.
#include "harness/worker/file_lock.hpp"
#include "harness/worker/script_worker.hpp"
#include "git_hook_util.hpp"
#include "spec_test_util.hpp"

#include <boost/json.hpp>
#include <catch2/catch.hpp>

#include <atomic>
#include <cstdio>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include <fcntl.h>
#include <unistd.h>

using namespace harness;
namespace fs = std::filesystem;

namespace {

using test::sh;

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const char* k_plan = R"(---
plan_id: '01-01'
depends_on: []
files_modified: ['out/**']
---
# 01-01: two tasks

### Task 1: first

```bash
mkdir -p out && echo one >> out/a.txt
```

### Task 2: second

```bash
echo two >> out/b.txt
test -z "$FAIL_TASK_2"
```
)";

struct Repo {
  test::TempDir dir;
  fs::path spec;
  Repo() {
    test::set_git_identity();
    spec = dir.write("docs/specs/SPC-007-demo/SPEC.md", "# demo\n").parent_path();
    dir.write("docs/specs/SPC-007-demo/planning/plans/01-core/01-01-PLAN.md", k_plan);
    sh(dir.path, "git init -q && git add -A && git commit -qm init");
  }
};

} // namespace

TEST_CASE("the script worker commits each task with trailers and writes a SUMMARY and result.json") {
  Repo repo;
  const fs::path session = repo.dir.path / ".orchestration" / "sessions" / "s1";
  auto r = worker::run_script_worker({repo.spec, "01-01", session, "s1", std::nullopt});
  INFO(r.error);
  REQUIRE(r.ok);
  CHECK(r.tasks_run == 2);
  CHECK(r.commits.size() == 3); // two tasks + the summary
  CHECK(read(repo.dir.path / "out/a.txt") == "one\n");
  auto log = sh(repo.dir.path, "git log --format=%B -n 3");
  CHECK(log.find("Plan: 01-01, Task: 1/2\nSpec: SPC-007-demo") != std::string::npos);
  CHECK(log.find("Plan: 01-01, Task: 2/2") != std::string::npos);
  CHECK(sh(repo.dir.path, "git status --porcelain").empty());
  auto summary = read(repo.spec / "execution/phases/01-core/01-01-SUMMARY.md");
  CHECK(summary.find("status: complete") != std::string::npos);
  auto result = boost::json::parse(read(session / "result.json")).as_object();
  CHECK(result.at("status").as_string() == "completed");
  CHECK(result.at("commits").as_array().size() == 3);
  auto status = boost::json::parse(read(session / "status.json")).as_object();
  CHECK(status.at("state").as_string() == "completed");
  CHECK(status.at("totalTasks").as_int64() == 2);
}

TEST_CASE("a retry skips committed tasks and discards what a failed attempt left behind") {
  Repo repo;
  ::setenv("FAIL_TASK_2", "1", 1);
  auto first = worker::run_script_worker({repo.spec, "01-01", {}, "", std::nullopt});
  ::unsetenv("FAIL_TASK_2");
  REQUIRE_FALSE(first.ok);
  CHECK(first.error.find("Task 2/2") != std::string::npos);
  CHECK_FALSE(first.bad_input); // a failed task is a failure, not the caller's mistake
  CHECK(read(repo.dir.path / "out/b.txt") == "two\n"); // the half-done task left a file behind
  auto done = worker::committed_tasks(repo.dir.path, "01-01", test::only_spec("SPC-007-demo"));
  REQUIRE(done.size() == 1);
  CHECK(done[0].first == 1);

  auto second = worker::run_script_worker({repo.spec, "01-01", {}, "", std::nullopt});
  INFO(second.error);
  REQUIRE(second.ok);
  CHECK(second.tasks_skipped == 1);
  CHECK(second.tasks_run == 1);
  CHECK(read(repo.dir.path / "out/a.txt") == "one\n"); // task 1 ran exactly once
  CHECK(read(repo.dir.path / "out/b.txt") == "two\n"); // not "two\ntwo\n"
}

TEST_CASE("a worker told which tasks are done (HARNESS_DONE_TASKS) skips them") {
  Repo repo;
  ::setenv("FAIL_TASK_2", "1", 1);
  auto first = worker::run_script_worker({repo.spec, "01-01", {}, "", std::nullopt});
  ::unsetenv("FAIL_TASK_2");
  REQUIRE_FALSE(first.ok);
  auto done = worker::committed_tasks(repo.dir.path, "01-01", test::only_spec("SPC-007-demo"));
  REQUIRE(done.size() == 1);
  // The orchestrator passes what its trailer index knows instead of the worker reading the log.
  auto told = worker::run_script_worker({repo.spec, "01-01", {}, "", done});
  REQUIRE(told.ok);
  CHECK(told.tasks_skipped == 1);
  CHECK(told.commits.front() == done[0].second);
  CHECK(read(repo.dir.path / "out/a.txt") == "one\n");
}

TEST_CASE("a worker told an out-of-date list of done tasks runs none of them again") {
  // An orphan of a killed run, launched with "nothing done", asks for the plan lock only after
  // the next run's worker committed the plan and released it: it never waited, yet its list is old.
  Repo repo;
  const std::vector<std::pair<int, std::string>> nothing_done;
  auto next_run = worker::run_script_worker({repo.spec, "01-01", {}, "", nothing_done});
  REQUIRE(next_run.ok);
  CHECK(next_run.tasks_run == 2);
  auto orphan = worker::run_script_worker({repo.spec, "01-01", {}, "", nothing_done});
  INFO(orphan.error);
  REQUIRE(orphan.ok);
  CHECK(orphan.tasks_run == 0);
  CHECK(orphan.tasks_skipped == 2);
  CHECK(read(repo.dir.path / "out/a.txt") == "one\n"); // not "one\none\n"
  CHECK(worker::committed_tasks(repo.dir.path, "01-01", test::only_spec("SPC-007-demo")).size() == 2);
}

TEST_CASE("an unknown plan fails with its id") {
  Repo repo;
  auto r = worker::run_script_worker({repo.spec, "09-09", {}, "", std::nullopt});
  REQUIRE_FALSE(r.ok);
  CHECK(r.error.find("09-09") != std::string::npos);
  CHECK(r.bad_input);
  auto missing = worker::run_script_worker({repo.dir.path / "no-such-spec", "01-01", {}, "", std::nullopt});
  REQUIRE_FALSE(missing.ok);
  CHECK(missing.bad_input);
}

TEST_CASE("a retry also discards a new file that a killed attempt had already staged") {
  Repo repo;
  // What an attempt killed between `git add` and `git commit` leaves: task 1's line, staged.
  repo.dir.write("out/a.txt", "one\n");
  sh(repo.dir.path, "git add out/a.txt");
  auto r = worker::run_script_worker({repo.spec, "01-01", {}, "", std::nullopt});
  INFO(r.error);
  REQUIRE(r.ok);
  CHECK(read(repo.dir.path / "out/a.txt") == "one\n"); // not "one\none\n"
  CHECK(sh(repo.dir.path, "git status --porcelain -- out") == "");
}

TEST_CASE("a first attempt keeps a user's uncommitted edit to a declared file; any other run resets it") {
  for (const bool first : {true, false}) {
    INFO("first_attempt " << first);
    Repo repo;
    repo.dir.write("out/a.txt", "base\n");
    sh(repo.dir.path, "git add out/a.txt && git commit -qm base");
    repo.dir.write("out/a.txt", "base\nuser\n"); // uncommitted
    worker::ScriptWorkerRequest req{repo.spec, "01-01", {}, "", std::nullopt};
    req.first_attempt = first;
    auto r = worker::run_script_worker(req);
    INFO(r.error);
    REQUIRE(r.ok);
    CHECK(read(repo.dir.path / "out/a.txt") == (first ? "base\nuser\none\n" : "base\none\n"));
    // What the reset threw away is kept: it may have been the user's work, not an attempt's.
    const auto copies = sh(repo.dir.path, "find .orchestration/discarded -type f 2>/dev/null | sort");
    if (first) CHECK(copies.empty());
    else {
      REQUIRE(copies.find("/out/a.txt\n") != std::string::npos);
      CHECK(read(repo.dir.path / copies.substr(0, copies.size() - 1)) == "base\nuser\n");
    }
  }
}

TEST_CASE("a retry counts a path git lists twice (deletion staged, the file untracked) as one declared file") {
  Repo repo;
  repo.dir.write("out/a.txt", "base\n");
  sh(repo.dir.path, "git add out/a.txt && git commit -qm base");
  sh(repo.dir.path, "git rm -q --cached out/a.txt");
  REQUIRE(sh(repo.dir.path, "git status --porcelain=v1 -uall -- out") == "D  out/a.txt\n?? out/a.txt\n");
  // The reset's line goes to this process's stdout (a worker's session log): read it from a file.
  test::TempDir out;
  const fs::path log = out.path / "stdout";
  std::fflush(stdout);
  const int saved = ::dup(1);
  const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ::dup2(fd, 1);
  ::close(fd);
  auto r = worker::run_script_worker({repo.spec, "01-01", {}, "", std::nullopt});
  std::fflush(stdout);
  ::dup2(saved, 1);
  ::close(saved);
  INFO(r.error);
  REQUIRE(r.ok);
  const std::string printed = read(log);
  INFO(printed);
  CHECK(printed.find("reset 1 declared file an earlier attempt (or you) left changed") != std::string::npos);
  CHECK(read(repo.dir.path / "out/a.txt") == "base\none\n");
}

TEST_CASE("a retry keeps a copy of an untracked declared file before removing it, and resets nothing it cannot copy") {
  Repo repo;
  repo.dir.write("out/notes.txt", "the user's notes\n"); // untracked, matches out/**
  auto r = worker::run_script_worker({repo.spec, "01-01", {}, "", std::nullopt});
  INFO(r.error);
  REQUIRE(r.ok);
  CHECK_FALSE(fs::exists(repo.dir.path / "out/notes.txt"));
  const auto copy = sh(repo.dir.path, "find .orchestration/discarded -name notes.txt");
  REQUIRE_FALSE(copy.empty());
  CHECK(read(repo.dir.path / copy.substr(0, copy.size() - 1)) == "the user's notes\n");
  // A place for copies that cannot be made: the attempt fails and the file stays as it is.
  Repo blocked;
  blocked.dir.write("out/notes.txt", "keep me\n");
  blocked.dir.write(".orchestration/discarded", "a file where a directory must go\n");
  auto f = worker::run_script_worker({blocked.spec, "01-01", {}, "", std::nullopt});
  REQUIRE_FALSE(f.ok);
  CHECK(f.error.find("could not keep a copy of out/notes.txt") != std::string::npos);
  CHECK(read(blocked.dir.path / "out/notes.txt") == "keep me\n");
}

TEST_CASE("another spec's plan with the same id does not count as this plan's done tasks") {
  Repo repo;
  // SPC-006's 01-01 ran earlier in the same repository: its task commits say Plan: 01-01 too.
  sh(repo.dir.path, "git commit -q --allow-empty -m 'feat(01-01): other' -m 'Plan: 01-01, Task: 1/2' -m 'Spec: SPC-006-other'");
  CHECK(worker::committed_tasks(repo.dir.path, "01-01", test::only_spec("SPC-007-demo")).empty());
  CHECK(worker::committed_tasks(repo.dir.path, "01-01", test::only_spec("SPC-006-other")).size() == 1);
  auto r = worker::run_script_worker({repo.spec, "01-01", {}, "", std::nullopt});
  INFO(r.error);
  REQUIRE(r.ok);
  CHECK(r.tasks_skipped == 0);
  CHECK(r.tasks_run == 2);
  CHECK(read(repo.dir.path / "out/a.txt") == "one\n");
}

TEST_CASE("another spec's worker of a plan with the same id is no earlier attempt: a first attempt keeps the user's edit") {
  Repo repo;
  repo.dir.write("out/a.txt", "base\n");
  sh(repo.dir.path, "git add out/a.txt && git commit -qm base");
  repo.dir.write("out/a.txt", "base\nuser\n"); // uncommitted
  // SPC-006's 01-01 is running meanwhile (an orphan of a killed run, say) and holds its plan lock
  // for a moment: this spec's 01-01 neither waits for it nor takes it for an earlier attempt.
  std::atomic<bool> held{false};
  std::thread other([&] {
    worker::FileLock lock(repo.dir.path / ".orchestration/locks/SPC-006-other/01-01.lock");
    held = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  });
  while (!held) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  worker::ScriptWorkerRequest req{repo.spec, "01-01", {}, "", std::nullopt};
  req.first_attempt = true;
  auto r = worker::run_script_worker(req);
  other.join();
  INFO(r.error);
  REQUIRE(r.ok);
  CHECK(read(repo.dir.path / "out/a.txt") == "base\nuser\none\n");
  CHECK_FALSE(fs::exists(repo.dir.path / ".orchestration/discarded")); // nothing was reset
  CHECK(fs::exists(repo.dir.path / ".orchestration/locks/SPC-007-demo/01-01.lock"));
}

TEST_CASE("a retry's copies of what it reset are kept under the spec's name") {
  Repo repo;
  repo.dir.write("out/notes.txt", "the user's notes\n");
  auto r = worker::run_script_worker({repo.spec, "01-01", {}, "", std::nullopt});
  INFO(r.error);
  REQUIRE(r.ok);
  CHECK(sh(repo.dir.path, "find .orchestration/discarded -name notes.txt").starts_with(".orchestration/discarded/SPC-007-demo/01-01-"));
}

TEST_CASE("a directory in files_modified covers the files written below it") {
  Repo repo;
  std::string plan = k_plan;
  plan.replace(plan.find("['out/**']"), 10, "['out']");
  repo.dir.write("docs/specs/SPC-007-demo/planning/plans/01-core/01-01-PLAN.md", plan);
  sh(repo.dir.path, "git commit -qam 'declare a directory'");
  auto r = worker::run_script_worker({repo.spec, "01-01", {}, "", std::nullopt});
  INFO(r.error);
  REQUIRE(r.ok);
  CHECK(r.commits.size() == 3); // both tasks committed their file, then the SUMMARY
  CHECK(sh(repo.dir.path, "git show --name-only --format= HEAD~2") == "out/a.txt\n");
  CHECK(sh(repo.dir.path, "git status --porcelain out").empty());
}

TEST_CASE("a declared file whose name has brackets (a Next.js route) is committed") {
  Repo repo;
  repo.dir.write("docs/specs/SPC-007-demo/planning/plans/01-core/01-01-PLAN.md", R"(---
plan_id: '01-01'
depends_on: []
files_modified: ['app/posts/[id]/page.tsx']
---
# 01-01: a dynamic route

### Task 1: the page

```bash
mkdir -p 'app/posts/[id]' && echo page > 'app/posts/[id]/page.tsx'
```
)");
  sh(repo.dir.path, "git commit -qam 'a dynamic route'");
  auto r = worker::run_script_worker({repo.spec, "01-01", {}, "", std::nullopt});
  INFO(r.error);
  REQUIRE(r.ok);
  CHECK(r.commits.size() == 2); // the task's file, then the SUMMARY
  CHECK(sh(repo.dir.path, "git show --name-only --format= HEAD~1") == "app/posts/[id]/page.tsx\n");
  CHECK(sh(repo.dir.path, "git status --porcelain app").empty());
}

TEST_CASE("a retry puts back a rename a failed attempt staged, and runs the task again") {
  Repo repo;
  repo.dir.write("docs/specs/SPC-007-demo/planning/plans/01-core/01-01-PLAN.md", R"(---
plan_id: '01-01'
depends_on: []
files_modified: ['out/**']
---
# 01-01: a rename

### Task 1: rename a to b

```bash
git mv out/a.txt out/b.txt
test -z "$FAIL_RENAME"
```
)");
  repo.dir.write("out/a.txt", "alpha\n");
  sh(repo.dir.path, "git add -A && git commit -qm 'a rename'");
  ::setenv("FAIL_RENAME", "1", 1);
  auto first = worker::run_script_worker({repo.spec, "01-01", {}, "", std::nullopt});
  ::unsetenv("FAIL_RENAME");
  REQUIRE_FALSE(first.ok);
  REQUIRE(sh(repo.dir.path, "git status --porcelain=v1 -- out") == "R  out/a.txt -> out/b.txt\n");
  // Before: the reset asked git to check out out/b.txt (HEAD has none), git refused it all, and
  // every retry's `git mv` failed on the leftover rename ("bad source").
  auto second = worker::run_script_worker({repo.spec, "01-01", {}, "", std::nullopt});
  INFO(second.error);
  REQUIRE(second.ok);
  CHECK(sh(repo.dir.path, "git show --name-status --format= HEAD~1") == "R100\tout/a.txt\tout/b.txt\n");
  CHECK(sh(repo.dir.path, "git status --porcelain=v1 -- out").empty());
}

TEST_CASE("a retry whose reset git refuses fails saying so, and runs no task on the leftovers") {
  Repo repo;
  repo.dir.write("out/a.txt", "base\n");
  sh(repo.dir.path, "git add out/a.txt && git commit -qm base");
  repo.dir.write("out/a.txt", "base\nleft over\n");
  // A checkout git cannot make: a required smudge filter that fails. (Another git holding the
  // index past run_git_writing_index's patience is the likely cause, and 10 s slower to make.)
  sh(repo.dir.path, "git config filter.broken.clean cat && git config filter.broken.smudge false && "
                    "git config filter.broken.required true && mkdir -p .git/info && "
                    "echo 'out/* filter=broken' > .git/info/attributes");
  auto r = worker::run_script_worker({repo.spec, "01-01", {}, "", std::nullopt});
  REQUIRE_FALSE(r.ok);
  CHECK_THAT(r.error, Catch::StartsWith("Task 1/2: first: could not reset the declared files") &&
                          Catch::Contains("git checkout failed"));
  CHECK(sh(repo.dir.path, "git log --format=%s -n 1") == "base\n"); // no task ran, none committed
  // git wrote the file before its filter failed (it is empty now); the copy kept first is whole.
  const auto copy = sh(repo.dir.path, "find .orchestration/discarded -name a.txt");
  REQUIRE_FALSE(copy.empty());
  CHECK(read(repo.dir.path / copy.substr(0, copy.size() - 1)) == "base\nleft over\n");
}

TEST_CASE("a commit-msg hook that drops the trailers fails the task at once, naming the hook") {
  Repo repo;
  // Keeps the subject only, as some ticket-number hooks do.
  test::write_hook(repo.dir, ".git/hooks/commit-msg", "#!/bin/sh\nhead -1 \"$1\" > \"$1.t\" && mv \"$1.t\" \"$1\"\n");
  const fs::path session = repo.dir.path / ".orchestration" / "sessions" / "s1";
  auto r = worker::run_script_worker({repo.spec, "01-01", session, "s1", std::nullopt});
  REQUIRE_FALSE(r.ok);
  CHECK_THAT(r.error, Catch::Contains("Task 1/2: first: the commit message hook .git/hooks/commit-msg removed"));
  CHECK_THAT(r.error, Catch::Contains("keep the lines starting with 'Plan:' and 'Spec:'"));
  CHECK(r.tasks_run == 1); // task 2 is not done on top of a task harness cannot count as done
  // A retry would run task 1 again (its commit counts as not done) and lose the trailers again.
  CHECK(r.retry == protocol::Retry::forbidden);
  auto result = boost::json::parse(read(session / "result.json")).as_object();
  CHECK(result.at("status").as_string() == "failed");
  CHECK(result.at("retry").as_string() == "forbidden");
}

TEST_CASE("a plan declaring '**' neither commits nor resets a .orchestration that is a symlink") {
  // git lists the link as one untracked file; the .gitignore inside it does not cover the link.
  Repo repo;
  std::string plan = k_plan;
  plan.replace(plan.find("'out/**'"), 8, "'**'");
  repo.dir.write("docs/specs/SPC-007-demo/planning/plans/01-core/01-01-PLAN.md", plan);
  sh(repo.dir.path, "git commit -qam wide");
  test::TempDir elsewhere;
  fs::create_directory_symlink(elsewhere.path, repo.dir.path / ".orchestration");
  REQUIRE(sh(repo.dir.path, "git status --porcelain") == "?? .orchestration\n");
  ::setenv("FAIL_TASK_2", "1", 1);
  auto first = worker::run_script_worker({repo.spec, "01-01", {}, "", std::nullopt});
  ::unsetenv("FAIL_TASK_2");
  REQUIRE_FALSE(first.ok);
  auto second = worker::run_script_worker({repo.spec, "01-01", {}, "", std::nullopt}); // resets, then runs
  INFO(second.error);
  REQUIRE(second.ok);
  CHECK(fs::is_symlink(repo.dir.path / ".orchestration")); // the retry's reset left it
  CHECK(sh(repo.dir.path, "git log --format= --name-only").find(".orchestration") == std::string::npos);
  CHECK(sh(repo.dir.path, "git status --porcelain") == "?? .orchestration\n");
}
