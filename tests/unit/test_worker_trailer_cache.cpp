// The trailer index kept between runs (trailer_cache.hpp): what it keeps, and when a run may start
// from it rather than read the whole history; and a resumed script worker that reads on from the
// commit its task list was made at.
#include "harness/util/atomic_file.hpp"
#include "harness/worker/git.hpp"
#include "harness/worker/script_worker.hpp"
#include "harness/worker/trailer_cache.hpp"
#include "harness/worker/trailers.hpp"
#include "git_repo_util.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>

using namespace harness;
namespace fs = std::filesystem;

namespace {

const std::string k_a = std::string(40, 'a');
const std::string k_b = std::string(40, 'b');

struct Repo : test::GitRepo {
  fs::path cache = dir.path / ".orchestration/trailer-index.json";
  worker::TrailerIndex index() const { return worker::TrailerIndex(dir.path, dir.path / ".git", cache); }
  /// The cache as kept, with one commit it never read added: a run that used the cache reports it.
  void plant(const std::string& hash, const std::string& plan) {
    auto kept = worker::parse_trailer_cache(util::read_file(cache).value_or(""));
    REQUIRE(kept);
    worker::TrailerCommit c;
    c.hash = hash;
    c.plan = plan;
    c.task = 1;
    c.spec = "SPC-001-a";
    c.subject = "planted";
    kept->newest_first.push_back(c);
    REQUIRE(util::write_file_atomic(cache, worker::render_trailer_cache(*kept)));
  }
  /// What GIT_TRACE wrote: each git the index ran, with its arguments.
  static std::string traced(const fs::path& trace) { return util::read_file(trace).value_or(""); }
};

} // namespace

TEST_CASE("The trailer cache keeps every field a run reads back", "[worker][git][trailer_cache]") {
  worker::TrailerCommit task;
  task.hash = k_a;
  task.parents = {k_b};
  task.plan = "01-02";
  task.task = 2;
  task.spec = "SPC-001-a";
  task.subject = "feat(01-02): \"quoted\" \x01 text";
  worker::TrailerCommit marker;
  marker.hash = k_b;
  marker.spec = "SPC-001-a";
  marker.subject = "redo";
  marker.redo = {{"01-02", 0}, {"01-03", 2}};
  marker.squashed = true;
  const worker::TrailerCache cache{k_a, "12 00ff", {task, marker}};
  const auto back = worker::parse_trailer_cache(worker::render_trailer_cache(cache));
  REQUIRE(back);
  CHECK(back->head == k_a);
  CHECK(back->shallow == "12 00ff");
  REQUIRE(back->newest_first.size() == 2);
  CHECK(back->newest_first[0].hash == k_a);
  CHECK(back->newest_first[0].parents == std::vector<std::string>{k_b});
  CHECK(back->newest_first[0].plan == "01-02");
  CHECK(back->newest_first[0].task == 2);
  CHECK(back->newest_first[0].spec == "SPC-001-a");
  CHECK(back->newest_first[0].subject == task.subject);
  CHECK_FALSE(back->newest_first[0].files_known);
  CHECK(back->newest_first[1].redo == marker.redo);
  CHECK_FALSE(back->newest_first[0].squashed);
  CHECK(back->newest_first[1].squashed);
}

TEST_CASE("A trailer cache not written by this version, or naming no commit hash, is not used", "[worker][git][trailer_cache]") {
  const std::string good = worker::render_trailer_cache({k_a, "", {}});
  REQUIRE(worker::parse_trailer_cache(good));
  CHECK_FALSE(worker::parse_trailer_cache(""));
  CHECK_FALSE(worker::parse_trailer_cache(good.substr(0, good.size() / 2))); // cut short
  auto with = [&](std::string from, std::string to) {
    std::string s = good;
    REQUIRE(s.find(from) != std::string::npos);
    return s.replace(s.find(from), from.size(), to);
  };
  CHECK_FALSE(worker::parse_trailer_cache(with("\"version\":2", "\"version\":1"))); // read before squashes were
  CHECK_FALSE(worker::parse_trailer_cache(with("\"version\":2", "\"version\":3")));
  CHECK_FALSE(worker::parse_trailer_cache(with("harness-trailer-index", "something-else")));
  // The head becomes part of a git argument: an option there would be read as one.
  CHECK_FALSE(worker::parse_trailer_cache(with(k_a, "--output=/tmp/x")));
  CHECK_FALSE(worker::parse_trailer_cache(with(k_a, std::string(40, 'A'))));
  // A commit entry without what the index needs, or with neither a plan nor a redo.
  worker::TrailerCommit c;
  c.hash = k_b;
  c.subject = "nothing";
  CHECK_FALSE(worker::parse_trailer_cache(worker::render_trailer_cache({k_a, "", {c}})));
  c.plan = "01-01";
  CHECK(worker::parse_trailer_cache(worker::render_trailer_cache({k_a, "", {c}})));
  const std::string one = worker::render_trailer_cache({k_a, "", {c}});
  CHECK_FALSE(worker::parse_trailer_cache(one.substr(0, one.find("\"task\"")) + one.substr(one.find("\"spec\""))));
}

TEST_CASE("A run starts from the trailer cache and reads only the commits made since", "[worker][git][trailer_cache]") {
  Repo repo;
  const auto h1 = repo.commit("a.txt", "a\n\nPlan: 01-01, Task: 1/1\nSpec: SPC-001-a");
  repo.commit("x.txt", "no trailers");
  {
    auto first = repo.index();
    first.refresh();
    REQUIRE(first.commits_for("01-01").size() == 1);
  }
  REQUIRE(fs::exists(repo.cache));
  const auto kept = worker::parse_trailer_cache(util::read_file(repo.cache).value_or(""));
  REQUIRE(kept);
  CHECK(kept->newest_first.size() == 1); // trailer commits only
  repo.plant(h1, "09-09"); // a commit the history does not show as 09-09: only the cache says so
  const auto h2 = repo.commit("b.txt", "b\n\nPlan: 01-02, Task: 1/1\nSpec: SPC-001-a");
  const fs::path trace = repo.dir.path / "trace.log";
  ::setenv("GIT_TRACE", trace.c_str(), 1);
  auto second = repo.index();
  second.refresh();
  ::unsetenv("GIT_TRACE");
  CHECK(second.commits_for("09-09").size() == 1); // from the cache
  CHECK(second.commits_for("01-01").at(0).hash == h1);
  CHECK(second.commits_for("01-02").at(0).hash == h2);
  CHECK(Repo::traced(trace).find(".." ) != std::string::npos); // a range, not the whole history
  CHECK(second.error().empty());
  // The cache now reaches the new commit, and keeps what it held.
  const auto now = worker::parse_trailer_cache(util::read_file(repo.cache).value_or(""));
  REQUIRE(now);
  CHECK(now->head == h2);
  CHECK(now->newest_first.size() == 3);
  // Nothing new since: still from the cache, no history read at all beyond the empty range.
  auto third = repo.index();
  third.refresh();
  CHECK(third.commits_for("09-09").size() == 1);
}

TEST_CASE("The trailer cache is not used once its commit left HEAD's history, or the shallow boundary moved",
          "[worker][git][trailer_cache]") {
  Repo repo;
  const auto h1 = repo.commit("a.txt", "a\n\nPlan: 01-01, Task: 1/1\nSpec: SPC-001-a");
  const auto h2 = repo.commit("b.txt", "b\n\nPlan: 01-02, Task: 1/1\nSpec: SPC-001-a");
  repo.index().refresh();
  auto planted = [&] {
    repo.index().refresh(); // rewrite the cache at the current HEAD
    repo.plant(h1, "09-09");
  };
  SECTION("the branch was reset back: nothing new, yet the cache holds a commit HEAD lost") {
    repo.plant(h1, "09-09");
    test::sh(repo.dir.path, "git reset -q --hard HEAD~1");
    auto index = repo.index();
    index.refresh();
    CHECK(index.commits_for("09-09").empty());
    CHECK(index.commits_for("01-02").empty());
    CHECK(index.commits_for("01-01").size() == 1);
  }
  SECTION("rewritten: the cached commit is on another line of history") {
    repo.plant(h1, "09-09");
    test::sh(repo.dir.path, "git reset -q --hard HEAD~1 && git commit -q --allow-empty -m c -m 'Plan: 01-03, Task: 1/1'");
    auto index = repo.index();
    index.refresh();
    CHECK(index.commits_for("09-09").empty());
    CHECK(index.commits_for("01-02").empty());
    CHECK(index.commits_for("01-03").size() == 1);
  }
  SECTION("the cached commit no longer exists at all") {
    repo.plant(h1, "09-09");
    test::sh(repo.dir.path, "git reset -q --hard HEAD~1 && git commit -q --allow-empty -m c");
    test::sh(repo.dir.path, "git reflog expire --expire=now --all && git gc -q --prune=now");
    auto index = repo.index();
    index.refresh();
    CHECK(index.error().empty());
    CHECK(index.commits_for("09-09").empty());
    CHECK(index.commits_for("01-01").size() == 1);
  }
  SECTION("a merge brings the cached commit in through its second parent") {
    test::sh(repo.dir.path, "git checkout -q -b side HEAD~1 && git commit -q --allow-empty -m s -m 'Plan: 02-01' && "
                            "git checkout -q - && git merge -q --no-edit side");
    planted();
    test::sh(repo.dir.path, "git checkout -q side");
    auto on_side = repo.index(); // side does not hold the merge the cache was made at
    on_side.refresh();
    CHECK(on_side.commits_for("09-09").empty());
    CHECK(on_side.commits_for("02-01").size() == 1);
  }
  SECTION("a merge came in since: a side line's commits are listed by date among older ones") {
    repo.plant(h1, "09-09");
    test::sh(repo.dir.path, "git checkout -q -b side HEAD~1 && git commit -q --allow-empty -m s -m 'Plan: 02-01' && "
                            "git checkout -q - && git merge -q --no-edit side");
    auto index = repo.index();
    index.refresh();
    CHECK(index.commits_for("09-09").empty());
    CHECK(index.commits_for("02-01").size() == 1);
  }
  SECTION("a graft or a replace ref shows another history than the commits hold") {
    repo.plant(h1, "09-09");
    test::sh(repo.dir.path, "git replace --graft HEAD"); // HEAD shown as a root: h1 leaves the history
    auto index = repo.index();
    index.refresh();
    CHECK(index.commits_for("09-09").empty());
    CHECK(index.commits_for("01-01").empty());
    CHECK(index.commits_for("01-02").size() == 1);
    // Nor is the index kept while they exist: the file still holds the planted entry.
    CHECK(worker::parse_trailer_cache(util::read_file(repo.cache).value_or(""))->newest_first.size() == 3);
    test::sh(repo.dir.path, "git replace -d " + h2);
    repo.dir.write(".git/info/grafts", h2 + "\n");
    auto grafted = repo.index();
    grafted.refresh();
    CHECK(grafted.commits_for("09-09").empty());
  }
  SECTION("the history was deepened (or cut) since") {
    repo.plant(h1, "09-09");
    repo.dir.write(".git/shallow", h2 + "\n"); // what a shallow clone's boundary file holds
    auto index = repo.index();
    index.refresh();
    CHECK(index.commits_for("09-09").empty());
    CHECK(index.commits_for("01-02").size() == 1);
  }
  SECTION("a cache that does not parse") {
    repo.dir.write(".orchestration/trailer-index.json", "{\"format\": ");
    auto index = repo.index();
    index.refresh();
    CHECK(index.commits_for("01-02").size() == 1);
    CHECK(worker::parse_trailer_cache(util::read_file(repo.cache).value_or(""))); // written anew
  }
}

TEST_CASE("A resumed script worker reads on from the commit its task list was made at", "[worker][git][trailer_cache]") {
  using Done = std::vector<std::pair<int, std::string>>;
  Repo repo;
  const auto ours = test::only_spec("SPC-001-a");
  repo.commit("old.txt", "history before the plan");
  const auto t1 = repo.commit("a.txt", "a\n\nPlan: 01-01, Task: 1/3\nSpec: SPC-001-a");
  const Done listed = {{1, t1}}; // what the orchestrator told the worker, made at t1
  // A worker of the killed run went on and committed task 2 after the list was made.
  const auto t2 = repo.commit("b.txt", "b\n\nPlan: 01-01, Task: 2/3\nSpec: SPC-001-a");
  const fs::path trace = repo.dir.path / "trace.log";
  ::setenv("GIT_TRACE", trace.c_str(), 1);
  const auto since = worker::committed_tasks_since(repo.dir.path, "01-01", ours, listed, t1, "SPC-001-a");
  ::unsetenv("GIT_TRACE");
  REQUIRE(since);
  CHECK(*since == Done{{1, t1}, {2, t2}});
  CHECK(*since == worker::committed_tasks(repo.dir.path, "01-01", ours)); // what the whole history says
  CHECK(Repo::traced(trace).find(t1 + "..HEAD") != std::string::npos);
  // A list made from a little further than the commit named: nothing counted twice.
  CHECK(worker::committed_tasks_since(repo.dir.path, "01-01", ours, Done{{1, t1}, {2, t2}}, t1, "SPC-001-a") ==
        Done{{1, t1}, {2, t2}});
  // A redo marker since takes a listed task back, as it does in the whole history.
  test::sh(repo.dir.path, "git commit -q --allow-empty -m redo -m 'Redo: 01-01, Task: 1' -m 'Spec: SPC-001-a'");
  const auto after_redo = worker::committed_tasks_since(repo.dir.path, "01-01", ours, listed, t1, "SPC-001-a");
  REQUIRE(after_redo);
  CHECK(*after_redo == Done{{2, t2}});
  CHECK(*after_redo == worker::committed_tasks(repo.dir.path, "01-01", ours));
  // No longer in HEAD's history, or not a commit hash at all: the whole history is read instead.
  test::sh(repo.dir.path, "git checkout -q -b other HEAD~3");
  CHECK_FALSE(worker::committed_tasks_since(repo.dir.path, "01-01", ours, listed, t2, "SPC-001-a"));
  CHECK_FALSE(worker::committed_tasks_since(repo.dir.path, "01-01", ours, listed, "--output=x", "SPC-001-a"));
  CHECK_FALSE(worker::committed_tasks_since(repo.dir.path, "01-01", ours, listed, "", "SPC-001-a"));
}
