// harness_worker_commit's library half against a real repository: an agent worker's commit holds
// exactly the files it names, with its plan's trailers, beside what other workers staged.
#include "harness/worker/git.hpp"
#include "harness/worker/worker_commit.hpp"
#include "git_hook_util.hpp"
#include "spec_test_util.hpp"

#include <catch2/catch.hpp>

using namespace harness;
namespace fs = std::filesystem;

namespace {

/// The example spec in a fresh repository; requests for its plan 01-01 (two tasks, files_modified
/// app/__init__.py, app/tasks/__init__.py, app/tasks/model.py).
struct Project {
  test::TempDir dir;
  fs::path root = fs::canonical(dir.path);
  fs::path spec = test::example_project(root);
  const std::string summary = "docs/specs/SPC-001-task-tracker/execution/phases/01-foundation/01-01-SUMMARY.md";

  worker::WorkerCommitRequest request(std::vector<std::string> files, int task, std::string message = "feat(01-01): work") const {
    return {spec, "SPC-001-task-tracker", "execute:01-01", std::move(message), std::move(files), task};
  }
  std::string git(const std::string& args) const { return test::sh(root, "git " + args); }
};

} // namespace

TEST_CASE("a worker's commit holds exactly the named files with its plan's trailers, and leaves what another staged",
          "[worker][commit]") {
  Project p;
  p.dir.write("app/__init__.py", "");
  p.dir.write("app/tasks/model.py", "class Task: pass\n");
  p.dir.write("other.txt", "another worker's, staged\n");
  p.git("add other.txt");
  // Trailers the agent wrote itself (a wrong plan here) give way to the session's.
  auto c = worker::commit_worker_files(p.request({"app/__init__.py", p.root.string() + "/app/tasks/model.py"}, 2,
                                                 "feat(01-01): the Task dataclass\n\nBody line.\nPlan: 09-09, Task: 1/1\n"));
  REQUIRE(c);
  CHECK(c->hash.size() == 40);
  CHECK(c->files == std::vector<std::string>{"app/__init__.py", "app/tasks/model.py"});
  CHECK(c->undeclared.empty());
  CHECK(p.git("log -1 --format=%B") ==
        "feat(01-01): the Task dataclass\n\nBody line.\n\nPlan: 01-01, Task: 2/2\nSpec: SPC-001-task-tracker\n\n");
  CHECK(p.git("show --name-only --format= HEAD") == "app/__init__.py\napp/tasks/model.py\n");
  CHECK(p.git("status --porcelain") == "A  other.txt\n");
}

TEST_CASE("a worker's commit records a deleted file, and the SUMMARY commit carries the plan without a task",
          "[worker][commit]") {
  Project p;
  p.dir.write("app/tasks/__init__.py", "x\n");
  REQUIRE(worker::commit_worker_files(p.request({"app/tasks/__init__.py"}, 1)));
  fs::remove(p.root / "app/tasks/__init__.py");
  auto del = worker::commit_worker_files(p.request({"app/tasks/__init__.py"}, 1));
  REQUIRE(del);
  CHECK(p.git("show --name-status --format= HEAD") == "D\tapp/tasks/__init__.py\n");
  p.dir.write(p.summary, "---\nplan_id: '01-01'\nstatus: complete\n---\n");
  auto sum = worker::commit_worker_files(p.request({p.summary}, 0, ""));
  REQUIRE(sum);
  CHECK(p.git("log -1 --format=%B") == "docs(01-01): summary\n\nPlan: 01-01\nSpec: SPC-001-task-tracker\n\n");
  auto again = worker::commit_worker_files(p.request({p.summary}, 0, "docs"));
  REQUIRE_FALSE(again);
  CHECK(again.error().find("nothing to commit") != std::string::npos);
}

TEST_CASE("a hook's refusal reaches the worker; the SUMMARY alone skips the hooks as harness's documents do",
          "[worker][commit]") {
  Project p;
  test::write_hook(p.dir, ".git/hooks/pre-commit", "#!/bin/sh\necho 'pre-commit: secret found in app/__init__.py' >&2\nexit 1\n");
  p.dir.write("app/__init__.py", "KEY=AKIA\n");
  auto refused = worker::commit_worker_files(p.request({"app/__init__.py"}, 1));
  REQUIRE_FALSE(refused);
  CHECK(refused.error().find("pre-commit: secret found in app/__init__.py") != std::string::npos);
  CHECK(p.git("status --porcelain") == "?? app/\n"); // nothing left staged or intent-to-add
  p.dir.write(p.summary, "---\nplan_id: '01-01'\nstatus: complete\n---\n");
  CHECK(worker::commit_worker_files(p.request({p.summary}, 0, "docs(01-01): summary")));
}

TEST_CASE("a worker's commit refuses paths outside the project, harness's documents and state, and other tasks",
          "[worker][commit]") {
  Project p;
  p.dir.write("app/__init__.py", "");
  fs::create_directory_symlink("/tmp", p.root / "out");
  auto refused = [&](std::vector<std::string> files, std::string_view why, int task = 1) {
    CAPTURE(files, task);
    auto r = worker::commit_worker_files(p.request(std::move(files), task));
    REQUIRE_FALSE(r);
    CHECK_THAT(r.error(), Catch::Contains(std::string(why)));
  };
  refused({"../elsewhere.txt"}, "is outside the project");
  refused({"/etc/passwd"}, "is outside the project");
  refused({"out/x.txt"}, "is outside the project"); // through a symbolic link
  refused({"."}, "the whole project");
  refused({".git/config"}, "inside .git");
  refused({".orchestration/harness.db"}, "harness's run state");
  refused({"docs/specs/SPC-001-task-tracker/STATUS.md"}, "only this plan's SUMMARY");
  refused({"app/__init__.py", "docs/specs/SPC-001-task-tracker"}, "only this plan's SUMMARY");
  // A directory above it would take the spec's documents and the other plans' SUMMARYs along.
  refused({"docs"}, "docs holds the spec directory (docs/specs/SPC-001-task-tracker)");
  refused({"app/__init__.py", "docs/specs/"}, "docs/specs holds the spec directory");
  refused({}, "no files named");
  refused({"app/__init__.py"}, "plan 01-01 has 2 tasks", 3);
  auto other_kind = p.request({"app/__init__.py"}, 1);
  other_kind.task_id = "plan:01";
  auto r = worker::commit_worker_files(other_kind);
  REQUIRE_FALSE(r);
  CHECK_THAT(r.error(), Catch::Contains("no plan's execution"));
  auto other_spec = p.request({"app/__init__.py"}, 1);
  other_spec.spec_name = "SPC-002-x";
  CHECK_FALSE(worker::commit_worker_files(other_spec));
  CHECK(p.git("log --format=%s") == "init\n"); // nothing was committed
}

TEST_CASE("files a worker commits outside its plan's files_modified are committed and named", "[worker][commit]") {
  Project p;
  p.dir.write("app/__init__.py", "");
  p.dir.write("requirements.txt", "pytest\n");
  auto c = worker::commit_worker_files(p.request({"app/__init__.py", "requirements.txt"}, 1));
  REQUIRE(c);
  CHECK(c->undeclared == std::vector<std::string>{"requirements.txt"});
}

TEST_CASE("a worker's message keeps its own lines and gets the plan's trailers", "[worker][commit]") {
  CHECK(worker::message_with_trailers("feat(x): y\n\nSpec: other\n", "Plan: 01-01\n", "f") == "feat(x): y\n\nPlan: 01-01\n");
  CHECK(worker::message_with_trailers("Plan: 01-01, Task: 1/2\n", "Plan: 01-01\n", "fallback") == "fallback\n\nPlan: 01-01\n");
  // Control characters become blanks: the log harness reads separates records with some.
  CHECK(worker::message_with_trailers("feat(x): y\x1e\x1f\x1d\r\n", "Plan: 01-01\n", "f") == "feat(x): y\n\nPlan: 01-01\n");
  CHECK(worker::message_with_trailers("feat(x):\x1b[2Jy\n", "Plan: 01-01\n", "f") == "feat(x): [2Jy\n\nPlan: 01-01\n");
}

TEST_CASE("a worker's message cannot carry a redo marker for another plan", "[worker][commit]") {
  // The trailer index reads `Redo:` lines anywhere in a message: 01-02's worker would undo 01-01.
  CHECK(worker::message_with_trailers("feat(01-02): b\n\nRedo: 01-01\n", "Plan: 01-02, Task: 1/1\n", "f") ==
        "feat(01-02): b\n\nPlan: 01-02, Task: 1/1\n");
  Project p;
  p.dir.write("app/__init__.py", "x\n");
  auto req = p.request({"app/__init__.py"}, 1);
  req.message = "feat(01-01): init\n\nRedo: 01-02, Task: 1";
  auto c = worker::commit_worker_files(req);
  REQUIRE(c);
  const auto log = p.git("log -1 --format=%B");
  CHECK(log.find("Redo:") == std::string::npos);
}

TEST_CASE("a worker's commit whose trailers a commit-msg hook dropped is an error naming the hook", "[worker][commit]") {
  Project p;
  test::write_hook(p.dir, ".git/hooks/commit-msg", "#!/bin/sh\nhead -1 \"$1\" > \"$1.t\" && mv \"$1.t\" \"$1\"\n");
  p.dir.write("app/__init__.py", "");
  auto c = worker::commit_worker_files(p.request({"app/__init__.py"}, 1));
  REQUIRE_FALSE(c);
  CHECK_THAT(c.error(), Catch::Contains("the commit message hook .git/hooks/commit-msg removed or changed the Plan:/Spec: trailers"));
  CHECK_THAT(c.error(), Catch::Contains("(plan 01-01, task 1, spec SPC-001-task-tracker)"));
  // The agent learns that no retry helps, as the script worker's result says.
  CHECK_THAT(c.error(), Catch::Contains("Report task_failed with retry \"forbidden\""));
}

TEST_CASE("a worker's commit a formatting hook changed leaves the index as the commit, not as its revert",
          "[worker][commit]") {
  Project p;
  test::write_hook(p.dir, ".git/hooks/pre-commit",
                   "#!/bin/sh\nfor f in $(git diff --cached --name-only --diff-filter=AM -- '*.py'); do\n"
                   "  echo '# formatted' >> \"$f\"; git add \"$f\"\ndone\n");
  p.dir.write("app/__init__.py", "x = 1\n");
  REQUIRE(worker::commit_worker_files(p.request({"app"}, 1)));
  CHECK(p.git("show HEAD:app/__init__.py") == "x = 1\n# formatted\n");
  CHECK(p.git("status --porcelain").empty());
}

TEST_CASE("a file inside a git submodule is refused naming the submodule, not as a path git does not know",
          "[worker][commit]") {
  Project p;
  test::TempDir lib;
  test::sh(lib.path, "git init -q -b main && echo x > x && git add x && git -c user.name=t -c user.email=t@example.com "
                     "commit -qm x");
  p.git("-c protocol.file.allow=always submodule add -q '" + lib.path.string() + "' app/vendor");
  p.dir.write("app/vendor/new.py", "");
  auto c = worker::commit_worker_files(p.request({"app/vendor/new.py"}, 1));
  REQUIRE_FALSE(c);
  CHECK_THAT(c.error(), Catch::Contains("app/vendor/new.py is inside the git submodule app/vendor, another repository: "
                                        "harness commits only this repository's files"));
  CHECK(p.git("log -1 --format=%s").find("feat(01-01)") == std::string::npos); // nothing committed
}
