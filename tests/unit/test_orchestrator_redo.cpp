// `harness-cli redo` in the library: targets parsed and checked, the SUMMARY removed and one marker
// commit made in a real git repository, after which the marked tasks no longer count as done.
#include "harness/orchestrator/planning.hpp"
#include "harness/orchestrator/redo.hpp"
#include "harness/orchestrator/writeback.hpp"
#include "harness/spec/spec.hpp"
#include "harness/store/checkpoint_files.hpp"
#include "harness/store/run_lock.hpp"
#include "harness/store/store.hpp"
#include "harness/util/atomic_file.hpp"
#include "harness/worker/git.hpp"
#include "harness/worker/script_worker.hpp"
#include "spec_test_util.hpp"

#include <catch2/catch.hpp>

using namespace harness;
namespace fs = std::filesystem;

namespace {

struct Project {
  test::TempDir dir;
  fs::path spec_dir;
  std::string t1, t2;
  Project() : spec_dir(dir.path / "docs/specs/SPC-007-redo") {
    test::set_git_identity();
    dir.write("docs/specs/SPC-007-redo/SPEC.md", "# Redo\n");
    dir.write("docs/specs/SPC-007-redo/planning/plans/01-core/01-01-PLAN.md",
              "---\nplan_id: '01-01'\ndepends_on: []\nfiles_modified: ['out/**']\n---\n# 01-01\n\n"
              "### Task 1: one\n\n```bash\nmkdir -p out && echo 1 > out/1.txt\n```\n\n"
              "### Task 2: two\n\n```bash\necho 2 > out/2.txt\n```\n");
    test::sh(dir.path, "git init -q && git add -A && git commit -qm init");
    const fs::path lock = dir.path / ".orchestration/git.lock";
    dir.write("out/1.txt", "1\n");
    t1 = *worker::commit_paths(dir.path, lock, {"out/1.txt"}, "feat(01-01): one\n\nPlan: 01-01, Task: 1/2\nSpec: SPC-007-redo");
    dir.write("out/2.txt", "2\n");
    t2 = *worker::commit_paths(dir.path, lock, {"out/2.txt"}, "feat(01-01): two\n\nPlan: 01-01, Task: 2/2\nSpec: SPC-007-redo");
    const auto spec = load();
    summary = spec.layout.summary_file(*spec.layout.find_phase(spec.plans.at(0).phase), "01-01");
    dir.write(fs::relative(summary, dir.path).string(), "---\nplan_id: '01-01'\nstatus: complete\n---\n# done\n");
    REQUIRE(*worker::commit_paths(dir.path, lock, {fs::relative(summary, dir.path).string()},
                                  "docs(01-01): summary\n\nPlan: 01-01\nSpec: SPC-007-redo") != "");
  }
  spec::Spec load() const {
    auto s = spec::load_spec(spec_dir);
    REQUIRE(s);
    REQUIRE(s->valid());
    return std::move(*s);
  }
  std::string head() const { return test::sh(dir.path, "git rev-parse HEAD"); }
  fs::path summary;
};

orchestrator::RedoTarget target(std::string_view text) {
  auto t = orchestrator::parse_redo_target(text);
  REQUIRE(t);
  return *t;
}

} // namespace

TEST_CASE("redo targets: a plan, or some of its tasks", "[orchestrator][redo]") {
  CHECK(target("01-02").plan == "01-02");
  CHECK(target("01-02").tasks.empty());
  CHECK(target("01-02:3,1,3").tasks == std::vector<int>{1, 3});
  for (const char* bad : {"", ":2", "01-02:", "01-02:0", "01-02:x", "01-02:2,", "01-02:1-3"}) {
    INFO(bad);
    CHECK_FALSE(orchestrator::parse_redo_target(bad).has_value());
  }
}

TEST_CASE("redo of a task removes the SUMMARY, records a marker, and the task no longer counts as done",
          "[orchestrator][redo]") {
  Project p;
  using Done = std::vector<std::pair<int, std::string>>;
  REQUIRE(worker::committed_tasks(p.dir.path, "01-01", test::only_spec("SPC-007-redo")) == Done{{1, p.t1}, {2, p.t2}});
  auto r = orchestrator::redo(p.load(), {target("01-01:2")}, "the block wrote the wrong value");
  REQUIRE(r);
  REQUIRE(r->plans.size() == 1);
  CHECK(r->plans[0].undone == Done{{2, p.t2}});
  CHECK(r->plans[0].later_changes.empty()); // its own SUMMARY commit came after: no other plan's work
  CHECK(r->plans[0].summary == fs::relative(p.summary, p.dir.path).generic_string());
  CHECK(r->commit.size() == 40);
  CHECK_FALSE(fs::exists(p.summary));
  CHECK(worker::committed_tasks(p.dir.path, "01-01", test::only_spec("SPC-007-redo")) == Done{{1, p.t1}});
  const auto msg = test::sh(p.dir.path, "git log -1 --format=%B");
  CHECK(msg.find("Redo: 01-01, Task: 2\n") != std::string::npos);
  CHECK(msg.find("Spec: SPC-007-redo") != std::string::npos);
  CHECK(msg.find("the block wrote the wrong value") != std::string::npos);
  CHECK(test::sh(p.dir.path, "git status --porcelain").empty()); // the removal is committed
  const auto text = orchestrator::redo_text(*r, "docs/specs/SPC-007-redo");
  CHECK(text.find("01-01: task 2 runs again") != std::string::npos);
  CHECK(text.find("harness-cli orchestrate docs/specs/SPC-007-redo") != std::string::npos);

  // Asked again before the next run: nothing left to undo, nothing committed.
  const auto before = p.head();
  auto again = orchestrator::redo(p.load(), {target("01-01:2")}, "");
  REQUIRE(again);
  CHECK(again->plans.at(0).nothing_to_do());
  CHECK(again->commit.empty());
  CHECK(p.head() == before);
  CHECK(orchestrator::redo_text(*again, "x").find("nothing to redo") != std::string::npos);

  // The whole plan: task 1 too.
  auto all = orchestrator::redo(p.load(), {target("01-01")}, "");
  REQUIRE(all);
  CHECK(all->plans.at(0).undone == Done{{1, p.t1}});
  CHECK(worker::committed_tasks(p.dir.path, "01-01", test::only_spec("SPC-007-redo")).empty());
  CHECK(orchestrator::redo_json(*all).find("\"tasks\":\"all\"") != std::string::npos);
}

TEST_CASE("redo of a plan whose SUMMARY is a symbolic link removes the link, not what it leads to", "[orchestrator][redo]") {
  // Review JJ: the path was resolved, and the file the link led to was removed and committed so.
  Project p;
  const auto rel = fs::relative(p.summary, p.dir.path).generic_string();
  p.dir.write("store/S.md", "---\nplan_id: '01-01'\nstatus: complete\n---\n# kept elsewhere\n");
  fs::remove(p.summary);
  fs::create_symlink(fs::relative(p.dir.path / "store/S.md", p.summary.parent_path()), p.summary);
  test::sh(p.dir.path, "git add -A && git commit -qm 'summary kept in store/'");
  auto r = orchestrator::redo(p.load(), {target("01-01")}, "");
  REQUIRE(r);
  CHECK(r->plans.at(0).summary == rel);
  CHECK_FALSE(fs::exists(fs::symlink_status(p.summary)));
  CHECK(fs::exists(p.dir.path / "store/S.md"));
  CHECK(test::sh(p.dir.path, "git show --name-only --format= HEAD") == rel + "\n");
}

TEST_CASE("redo keeps a person's refusal of the undone work and its note in the marker, for the next worker",
          "[orchestrator][redo]") {
  Project p;
  p.dir.write(fs::relative(p.summary, p.dir.path).string(),
              "---\nplan_id: '01-01'\nstatus: complete\nrefused_by: \"alice (harness-cli respond)\"\n"
              "refused_at: \"2026-11-25T09:00:00.000Z\"\nrefusal_note: \"2.txt must say two\"\n---\n# done\n");
  test::sh(p.dir.path, "git commit -qam refused");
  auto r = orchestrator::redo(p.load(), {target("01-01:2")}, "write the word, not the digit");
  REQUIRE(r);
  const auto msg = test::sh(p.dir.path, "git log -1 --format=%B");
  CHECK(orchestrator::redo_note_of(msg, "01-01") ==
        "write the word, not the digit\n\n01-01 was refused by alice (harness-cli respond) at 2026-11-25T09:00:00.000Z: "
        "2.txt must say two");
  CHECK(orchestrator::redo_note_of("chore(SPC-1): run 01-01 again\n\nRedo: 01-01\nSpec: SPC-1\n", "01-01").empty());
  // Several plans in one marker: each plan's worker gets the note, and its own refusal only.
  const std::string two = "chore(SPC-1): run 01-01, 01-03 again\n\nboth wrong\n\n01-01 was refused by a: x\n\n"
                          "01-03 was refused by b: y\n\nRedo: 01-01\nRedo: 01-03\nSpec: SPC-1\n";
  CHECK(orchestrator::redo_note_of(two, "01-03") == "both wrong\n\n01-03 was refused by b: y");
  CHECK(orchestrator::redo_note_of(two, "01-01") == "both wrong\n\n01-01 was refused by a: x");
}

TEST_CASE("redo rewrites STATUS.md in the marker commit: the plan is not executed, its blockers are gone",
          "[orchestrator][redo]") {
  Project p;
  const std::string status = "docs/specs/SPC-007-redo/STATUS.md";
  p.dir.write(status, "---\nrun: \"blocked\"\nblocked:\n  - task: \"verify-plan:01-01\"\n    reason: \"check failed\"\n"
                      "  - task: \"execute:01-09\"\n    reason: \"another plan's\"\n---\n# Status\n");
  test::sh(p.dir.path, "git add -A && git commit -qm status");
  auto r = orchestrator::redo(p.load(), {target("01-01:2")}, "");
  REQUIRE(r);
  CHECK(r->documents == std::vector<std::string>{status});
  CHECK(r->documents_uncommitted.empty());
  const auto text = *util::read_file(p.dir.path / status);
  CHECK(text.find("run: \"redo\"") != std::string::npos);
  CHECK(text.find("verify-plan:01-01") == std::string::npos); // it runs again
  CHECK(text.find("execute:01-09") != std::string::npos);     // not redone: still blocked
  CHECK(text.find("0/1 plans verified") != std::string::npos);
  CHECK(test::sh(p.dir.path, "git status --porcelain").empty());
  CHECK(test::sh(p.dir.path, "git show --name-only --format= HEAD").find(status) != std::string::npos);
  CHECK(orchestrator::redo_json(*r).find("\"documents_updated\":[\"" + status + "\"]") != std::string::npos);
}

TEST_CASE("redo refuses an unknown plan or task before touching anything, and while an orchestrate runs",
          "[orchestrator][redo]") {
  Project p;
  const auto before = p.head();
  auto unknown = orchestrator::redo(p.load(), {target("01-01:1"), target("01-09")}, "");
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().exit_code == 2);
  CHECK(unknown.error().message.find("no plan 01-09 in SPC-007-redo (its plans: 01-01)") != std::string::npos);
  auto task = orchestrator::redo(p.load(), {target("01-01:3")}, "");
  REQUIRE_FALSE(task);
  CHECK(task.error().exit_code == 2);
  CHECK(task.error().message == "plan 01-01 has 2 tasks: there is no task 3");
  CHECK(p.head() == before);
  CHECK(fs::exists(p.summary));
  {
    auto lock = store::RunLock::acquire(p.dir.path / ".orchestration", {0, "docs/specs/SPC-007-redo", "", "r1"});
    REQUIRE(lock);
    auto running = orchestrator::redo(p.load(), {target("01-01")}, "");
    REQUIRE_FALSE(running);
    CHECK(running.error().exit_code == 1);
    CHECK(running.error().message.find("an orchestrate is running") != std::string::npos);
  }
  CHECK(p.head() == before);
  CHECK(fs::exists(p.summary));
}

TEST_CASE("redo expires the plan's open checkpoints: an answer about the old work approves nothing new",
          "[orchestrator][redo]") {
  Project p;
  const fs::path state = p.dir.path / ".orchestration";
  auto open = [&](std::string id, std::string task, std::string spec) {
    store::CheckpointRecord r;
    r.id = std::move(id);
    r.task = std::move(task);
    r.spec = std::move(spec);
    r.question = "look at it";
    r.run = "r0";
    REQUIRE(store::write_open_checkpoint(state, r));
  };
  open("cp-a", "verify-plan:01-01", "SPC-007-redo");
  open("cp-b", "verify-plan:01-01", "SPC-008-other"); // another spec's 01-01
  open("cp-c", "verify-plan:01-02", "SPC-007-redo");  // another plan
  REQUIRE(store::answer_checkpoint(state, "cp-a", {true, "looked at the old one", "t", ""}));
  SECTION("a marker commit git refuses (a merge in progress) expires nothing: the redo changed nothing") {
    test::sh(p.dir.path, "git rev-parse HEAD > .git/MERGE_HEAD && echo merge > .git/MERGE_MSG");
    auto refused = orchestrator::redo(p.load(), {target("01-01")}, "");
    REQUIRE_FALSE(refused);
    CHECK_THAT(refused.error().message, Catch::Contains("nothing changed"));
    CHECK(store::read_checkpoint(state, "cp-a")->state == store::CheckpointState::open); // its answer not taken yet
    CHECK(fs::exists(p.summary));
    test::sh(p.dir.path, "rm .git/MERGE_HEAD .git/MERGE_MSG");
  }
  auto r = orchestrator::redo(p.load(), {target("01-01")}, "");
  REQUIRE(r);
  CHECK(r->expired == std::vector<std::string>{"cp-a"});
  CHECK(store::read_checkpoint(state, "cp-a")->state == store::CheckpointState::expired);
  CHECK(store::read_checkpoint(state, "cp-b")->state == store::CheckpointState::open);
  CHECK(store::read_checkpoint(state, "cp-c")->state == store::CheckpointState::open);
  CHECK(orchestrator::redo_text(*r, "s").find("expired checkpoint cp-a") != std::string::npos);
}

TEST_CASE("redo of some tasks of a plan GSD executed says that every task runs again", "[orchestrator][redo]") {
  // Review T: GSD's commits name no task, so with the SUMMARY gone none of the plan's tasks counts
  // as done; "task 2 runs again" was not what the next run did.
  orchestrator::RedoResult r;
  r.plans.push_back({"01-02", {2}, {}, ".planning/phases/01-core/01-02-SUMMARY.md", true, "", {}});
  const auto text = orchestrator::redo_text(r, ".");
  CHECK(text == "01-02: every task runs again at the next orchestrate (not only task 2: no commit of 01-02 carries a "
                "Task: trailer, as GSD's own commits do not, so none of its tasks counts as done); removed "
                ".planning/phases/01-core/01-02-SUMMARY.md\n");
  r.plans.back().no_task_commits = false;
  CHECK(orchestrator::redo_text(r, ".").starts_with("01-02: task 2 runs again at the next orchestrate; removed"));
  // The fixed PLAN not committed (review PP F5): said, with the command that commits it.
  r.plans.back().plan_file_uncommitted = ".planning/phases/01-core/01-02-PLAN.md";
  CHECK(orchestrator::redo_text(r, ".").find("01-02: its PLAN file has changes no commit holds "
                                             "(.planning/phases/01-core/01-02-PLAN.md): the next run executes it as it is now; "
                                             "commit it (git add .planning/phases/01-core/01-02-PLAN.md && git commit)") != std::string::npos);
}

TEST_CASE("redo names what other plans changed in the plan's files since its commits", "[orchestrator][redo]") {
  // Review PP F6: a task run again on a file a later plan had changed broke that plan's work, and
  // nothing had said the file was no longer the plan's alone.
  Project p;
  p.dir.write("out/1.txt", "1 and 03-01's line\n");
  const auto later = *worker::commit_paths(p.dir.path, p.dir.path / ".orchestration/git.lock", {"out/1.txt"},
                                           "feat(03-01): cli\n\nPlan: 03-01, Task: 1/1\nSpec: SPC-007-redo");
  auto r = orchestrator::redo(p.load(), {target("01-01:1")}, "");
  REQUIRE(r);
  REQUIRE(r->plans.at(0).later_changes == std::vector<std::string>{"plan 03-01 " + later.substr(0, 7) + " (out/1.txt)"});
  const auto text = orchestrator::redo_text(*r, "s");
  CHECK(text.find("01-01: its files changed after its commits, by plan 03-01 " + later.substr(0, 7) +
                  " (out/1.txt): the tasks run on them as they are now") != std::string::npos);
  CHECK(orchestrator::redo_json(*r).find("\"later_changes\":[\"plan 03-01 ") != std::string::npos);
}

TEST_CASE("redo forgets that the plan's executor asked a person, and changes nothing when the store cannot",
          "[orchestrator][redo]") {
  // A plan whose executor asked a person is approved at its verification without asking again.
  // After a redo the new work was asked about by nobody: the store must forget the old question,
  // and a store that cannot must fail the redo before the marker (review RR F2).
  Project p;
  const fs::path state = p.dir.path / ".orchestration";
  const auto key = orchestrator::executor_asked_key("SPC-007-redo");
  {
    auto db = store::Store::open_project(p.dir.path);
    REQUIRE(db);
    REQUIRE(db->set_value(key, orchestrator::encode_paths({"01-01", "01-02"})));
  }
  SECTION("the redone plan is forgotten, the other plan kept; its phase's gap rounds start again") {
    {
      auto db = store::Store::open_project(p.dir.path);
      REQUIRE(db);
      REQUIRE(db->set_value(orchestrator::loop_rounds_key("SPC-007-redo", "01"), "[0,2]"));
    }
    REQUIRE(orchestrator::redo(p.load(), {target("01-01")}, ""));
    auto db = store::Store::open_project(p.dir.path);
    REQUIRE(db);
    auto values = db->values();
    REQUIRE(values);
    const auto it = std::ranges::find(*values, key, &std::pair<std::string, std::string>::first);
    REQUIRE(it != values->end());
    CHECK(orchestrator::decode_paths(it->second) == std::set<std::string>{"01-02"});
    CHECK(std::ranges::find(*values, orchestrator::loop_rounds_key("SPC-007-redo", "01"),
                            &std::pair<std::string, std::string>::first) == values->end());
  }
  SECTION("a marker commit git refuses leaves the store as it was: nothing changed (review TT M3)") {
    test::sh(p.dir.path, "git rev-parse HEAD > .git/MERGE_HEAD && echo merge > .git/MERGE_MSG");
    auto r = orchestrator::redo(p.load(), {target("01-01")}, "");
    REQUIRE_FALSE(r);
    CHECK_THAT(r.error().message, Catch::Contains("nothing changed"));
    auto db = store::Store::open_project(p.dir.path);
    REQUIRE(db);
    auto values = db->values();
    REQUIRE(values);
    const auto it = std::ranges::find(*values, key, &std::pair<std::string, std::string>::first);
    REQUIRE(it != values->end());
    CHECK(orchestrator::decode_paths(it->second) == std::set<std::string>{"01-01", "01-02"});
    test::sh(p.dir.path, "rm .git/MERGE_HEAD .git/MERGE_MSG");
  }
  SECTION("a store that cannot be read fails the redo, nothing committed") {
    const auto before = p.head();
    for (const char* f : {"harness.db-wal", "harness.db-shm"}) fs::remove(state / f);
    util::write_file_atomic(state / "harness.db", "not a database, whatever it was\n").value();
    auto r = orchestrator::redo(p.load(), {target("01-01")}, "");
    REQUIRE_FALSE(r);
    CHECK(r.error().exit_code == 1);
    CHECK_THAT(r.error().message, Catch::Contains("could not record that the redone plans' new work is not approved") &&
                                      Catch::Contains("nothing changed"));
    CHECK(p.head() == before);
    CHECK(fs::exists(p.summary));
  }
}
