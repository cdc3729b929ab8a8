#include "harness/worker/script_plan.hpp"

#include <catch2/catch.hpp>

using namespace harness;
using namespace harness::worker;

namespace {

spec::Plan sample_plan() {
  spec::Plan p;
  p.id = "02-01";
  p.title = "add and list";
  p.type = "execute";
  p.tasks = {{"Package layout", 10}, {"Commands", 20}, {"Docs only", 30}};
  p.code_blocks = {{"bash", "echo setup", 5},
                   {"bash", "mkdir -p a", 12},
                   {"python", "print(1)", 14},
                   {"sh title=x", "touch a/b", 16},
                   {"bash", "echo two", 22}};
  return p;
}

} // namespace

TEST_CASE("script_tasks groups shell blocks under the preceding task and skips other languages") {
  auto tasks = script_tasks(sample_plan());
  REQUIRE(tasks.size() == 4);
  CHECK(tasks[0].name == "setup");
  CHECK(tasks[0].scripts == std::vector<std::string>{"echo setup"});
  CHECK(tasks[1].name == "Package layout");
  CHECK(tasks[1].scripts == std::vector<std::string>{"mkdir -p a", "touch a/b"});
  CHECK(tasks[2].scripts == std::vector<std::string>{"echo two"});
  CHECK(tasks[3].scripts.empty());
  CHECK(tasks[3].index == 4);
}

TEST_CASE("task commit messages carry the Plan, Task and Spec trailers of seed 000") {
  auto plan = sample_plan();
  auto tasks = script_tasks(plan);
  auto msg = task_commit_message(plan, tasks[2], 4, "SPC-001-task-tracker");
  CHECK(msg == "feat(02-01): Commands\n\nPlan: 02-01, Task: 3/4\nSpec: SPC-001-task-tracker\n");
}

TEST_CASE("the script summary has parseable frontmatter and says a script did the work") {
  ScriptRunRecord run;
  run.commits = {"abc123"};
  run.files_touched = {"app/x.py"};
  run.deviations = {"it's a 'quoted' note"};
  run.tasks_run = 2;
  run.task_count = 2;
  auto text = script_summary(sample_plan(), run);
  CHECK(text.starts_with("---\nplan_id: '02-01'\nstatus: complete\n"));
  CHECK(text.find("commits:\n  - 'abc123'\n") != std::string::npos);
  CHECK(text.find("- 'it''s a ''quoted'' note'") != std::string::npos);
  CHECK(text.find("The `script` worker") != std::string::npos);
  run.tasks_run = 1;
  CHECK(script_summary(sample_plan(), run).find("status: partial") != std::string::npos);
}
