// The start checks: what would stop a run part-way (no git repository, no identity to commit
// with, a worker program that is not there, a command worker without a template) is found before
// the run starts, all of it, each with its fix. The decision is tested on given facts; the probe
// that gathers them is tested on a real directory.
#include "harness/orchestrator/preflight.hpp"
#include "spec_test_util.hpp"

#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <cstdlib>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

using namespace harness;
namespace fs = std::filesystem;
using orchestrator::StartFacts;
using orchestrator::StartProblem;
using sched::TaskKind;
using worker::AdapterKind;

namespace {

spec::Layout layout_at(const fs::path& root) {
  spec::Layout l;
  l.project_root = root;
  l.spec_dir = root / "docs/specs/SPC-001-x";
  l.spec_name = "SPC-001-x";
  return l;
}

orchestrator::RunOptions options(AdapterKind adapter) {
  orchestrator::RunOptions o;
  o.spec_dir = "/p/docs/specs/SPC-001-x";
  o.adapter = adapter;
  o.harness_cli = "/opt/harness/bin/harness-cli";
  o.harness_mcp = "/opt/harness/bin/harness-mcp";
  return o;
}

/// Facts of a machine where everything is in place; `missing` programs do not resolve, and every
/// name asked about is recorded.
struct FakeMachine {
  StartFacts facts;
  std::set<std::string> missing;
  std::vector<std::string> asked;
  FakeMachine() {
    facts.resolve_program = [this](const std::string& name) -> fs::path {
      asked.push_back(name);
      return missing.contains(name) ? fs::path() : fs::path("/usr/bin") / fs::path(name).filename();
    };
  }
};

std::string all_text(const std::vector<StartProblem>& problems) {
  std::string out;
  for (const auto& p : problems) out += p.problem + " | " + p.fix + "\n";
  return out;
}

} // namespace

TEST_CASE("a run with a git repository, an identity and its worker's program has nothing to fix", "[orchestrator][preflight]") {
  FakeMachine m;
  for (auto a : {AdapterKind::claude, AdapterKind::codex, AdapterKind::script}) {
    auto problems = orchestrator::start_problems(options(a), layout_at("/p"), m.facts);
    INFO(all_text(problems));
    CHECK(problems.empty());
  }
}

TEST_CASE("every start problem is reported at once, each with its fix", "[orchestrator][preflight]") {
  FakeMachine m;
  m.facts.git_repository = false;
  m.facts.author_identity_error = "unable to auto-detect email address (got 'root@vm.(none)')";
  m.facts.committer_identity_error = m.facts.author_identity_error;
  m.missing = {"claude"};
  auto problems = orchestrator::start_problems(options(AdapterKind::claude), layout_at("/p"), m.facts);
  INFO(all_text(problems));
  REQUIRE(problems.size() == 3);
  CHECK(problems[0].problem == "/p is not a git repository, and the orchestrator and its workers commit every task they finish");
  CHECK(problems[0].fix.find("git init") != std::string::npos);
  // one problem for both identities, in git's own words
  CHECK(problems[1].problem == "git has no identity to commit with (unable to auto-detect email address (got 'root@vm.(none)'))");
  CHECK(problems[1].fix.find("git config --global user.email") != std::string::npos);
  CHECK(problems[1].fix.find("GIT_COMMITTER_EMAIL") != std::string::npos);
  CHECK(problems[2].problem == "the claude worker (for every task) cannot start: `claude` is not on PATH");
  CHECK(problems[2].fix.find("npm install -g @anthropic-ai/claude-code") != std::string::npos);
  CHECK(problems[2].fix.find("--worker codex | command | script") != std::string::npos);
  for (const auto& p : problems) {
    CHECK(p.problem.find('\n') == std::string::npos);
    CHECK(p.fix.find('\n') == std::string::npos);
  }
  const auto text = orchestrator::render_start_problems(problems);
  CHECK(text.starts_with("the run cannot start; 3 problems to fix first (nothing was started or written):\n  - /p is"));
  CHECK(text.find("\n    fix: install Claude Code") != std::string::npos);
}

TEST_CASE("an identity only the committer lacks says so and names the committer's variables", "[orchestrator][preflight]") {
  FakeMachine m;
  m.facts.committer_identity_error = "empty ident name not allowed";
  auto problems = orchestrator::start_problems(options(AdapterKind::script), layout_at("/p"), m.facts);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].problem == "git has no committer identity to commit with (empty ident name not allowed)");
  CHECK(problems[0].fix.find("GIT_COMMITTER_NAME and GIT_COMMITTER_EMAIL") != std::string::npos);
  m.facts.committer_identity_error.clear();
  m.facts.author_identity_error = "empty ident name not allowed";
  problems = orchestrator::start_problems(options(AdapterKind::script), layout_at("/p"), m.facts);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].problem == "git has no author identity to commit with (empty ident name not allowed)");
  CHECK(problems[0].fix.find("GIT_AUTHOR_NAME and GIT_AUTHOR_EMAIL)") != std::string::npos);
}

TEST_CASE("without git the run asks for git, not for a repository or an identity", "[orchestrator][preflight]") {
  FakeMachine m;
  m.facts.git_found = false;
  m.facts.git_repository = false;
  m.facts.author_identity_error = "whatever";
  auto problems = orchestrator::start_problems(options(AdapterKind::script), layout_at("/p"), m.facts);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].problem.starts_with("git is not installed"));
}

TEST_CASE("the program checked is the one the launch runs: a configured binary, per task kind", "[orchestrator][preflight]") {
  FakeMachine m;
  auto o = options(AdapterKind::script);
  o.adapter_by_kind[TaskKind::plan] = AdapterKind::claude;
  o.adapter_by_kind[TaskKind::plan_gaps] = AdapterKind::claude;
  o.adapter_by_kind[TaskKind::verify_plan] = AdapterKind::codex; // verification starts no worker
  o.adapter_settings.claude_binary = "/opt/claude/bin/claude";
  m.missing = {"/opt/claude/bin/claude"};
  auto problems = orchestrator::start_problems(o, layout_at("/p"), m.facts);
  INFO(all_text(problems));
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].problem ==
        "the claude worker (for plan and plan-gaps tasks) cannot start: /opt/claude/bin/claude does not exist or is not executable");
  CHECK(problems[0].fix.starts_with("correct `workers: {claude: {binary: ...}}` in .orchestration/config.yaml"));
  // the script worker (harness-cli) for execute, claude for planning and harness-mcp for it to
  // report through; nothing for codex
  CHECK(std::set<std::string>(m.asked.begin(), m.asked.end()) ==
        std::set<std::string>{"/opt/harness/bin/harness-cli", "/opt/claude/bin/claude", "/opt/harness/bin/harness-mcp"});
}

TEST_CASE("the command worker needs a template whose program is there and whose placeholders exist", "[orchestrator][preflight]") {
  FakeMachine m;
  auto o = options(AdapterKind::command);
  auto problems = orchestrator::start_problems(o, layout_at("/p"), m.facts);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].problem == "the command worker (for every task) has no command template");
  CHECK(problems[0].fix.starts_with("pass --command 'my-agent {prompt_file}', or set `workers: {command: ...}` in .orchestration/config.yaml"));

  o.adapter_settings.command_template = "my-agent --prompt {prompt}";
  problems = orchestrator::start_problems(o, layout_at("/p"), m.facts);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].problem == "the command worker (for every task) cannot be launched: command template: unknown placeholder {prompt}");

  o.adapter_settings.command_template = "{harness_cli} script-worker";
  m.missing = {"/opt/harness/bin/harness-cli"};
  problems = orchestrator::start_problems(o, layout_at("/p"), m.facts);
  REQUIRE(problems.size() == 1); // the placeholder is expanded as the launch expands it
  CHECK(problems[0].problem.ends_with("cannot start: /opt/harness/bin/harness-cli does not exist or is not executable"));

  o.adapter_settings.command_template = "my-agent {prompt_file}";
  m.missing = {"my-agent"};
  problems = orchestrator::start_problems(o, layout_at("/p"), m.facts);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].problem == "the command worker (for every task) cannot start: `my-agent` is not on PATH");
}

TEST_CASE("the probe asks git whether the project is a repository and resolves programs like the launch", "[orchestrator][preflight]") {
  test::TempDir dir;
  auto facts = orchestrator::probe_start_facts(layout_at(dir.path));
  CHECK(facts.git_found);
  CHECK_FALSE(facts.git_repository);
  test::sh(dir.path, "git init -q");
  CHECK(orchestrator::probe_start_facts(layout_at(dir.path)).git_repository);

  CHECK(facts.resolve_program("sh").filename() == "sh");                 // on PATH
  CHECK(facts.resolve_program("no-such-program-harness").empty());
  CHECK(facts.resolve_program((dir.path / "missing").string()).empty()); // a path that is not there
  const auto plain = dir.write("not-executable", "#!/bin/sh\n");
  CHECK(facts.resolve_program(plain.string()).empty());
  ::chmod(plain.c_str(), 0755);
  CHECK(facts.resolve_program(plain.string()) == plain);
  CHECK(facts.resolve_program(dir.path.string()).empty()); // a directory is not a program
}

TEST_CASE("agent workers need harness-mcp where the run will start it; the script worker does not", "[orchestrator][preflight]") {
  const auto layout = layout_at("/p");
  FakeMachine m;
  m.missing = {"/opt/harness/bin/harness-mcp"};
  const auto claude = orchestrator::start_problems(options(AdapterKind::claude), layout, m.facts);
  REQUIRE(claude.size() == 1);
  CHECK(claude[0].problem == "harness-mcp, through which claude and codex workers report, is not at /opt/harness/bin/harness-mcp");
  CHECK(claude[0].fix.find("next to harness-cli") != std::string::npos);
  CHECK(orchestrator::start_problems(options(AdapterKind::codex), layout, m.facts).size() == 1);
  CHECK(orchestrator::start_problems(options(AdapterKind::script), layout, m.facts).empty());
}

TEST_CASE("the probe finds a merge in progress, ignored spec documents and state it cannot write", "[orchestrator][preflight]") {
  test::TempDir dir;
  test::sh(dir.path, "git init -q -b main && git config user.name t && git config user.email t@example.com");
  fs::create_directories(dir.path / "docs/specs/SPC-001-x/planning/plans");
  const auto layout = spec::discover_layout(dir.path / "docs/specs/SPC-001-x", dir.path).value();
  auto clean = orchestrator::probe_start_facts(layout);
  CHECK(clean.git_operation.empty());
  CHECK(clean.ignored_documents.empty());
  CHECK(clean.unwritable_state.empty());
  // A conflicting merge stops half-way and waits for the user.
  test::sh(dir.path, "echo a > f && git add f && git commit -qm a && git checkout -qb other && echo b > f && git commit -qam b"
                     " && git checkout -q main && echo c > f && git commit -qam c && (git merge -q other >/dev/null 2>&1 || true)");
  CHECK(orchestrator::probe_start_facts(layout).git_operation == "merge");
  test::sh(dir.path, "git merge --abort");
  CHECK(orchestrator::probe_start_facts(layout).git_operation.empty());
  // A rule that hides the spec's execution/ directory hides every SUMMARY.
  dir.write(".gitignore", "docs/specs/*/execution/\n");
  const auto ignored = orchestrator::probe_start_facts(layout).ignored_documents;
  INFO(ignored.size());
  REQUIRE(ignored.size() == 3); // commits.log, FINAL-VERIFICATION.md and a SUMMARY; not STATUS.md or ROADMAP.md
  for (const auto& d : ignored) CHECK(d.starts_with("docs/specs/SPC-001-x/execution/"));
  fs::remove(dir.path / ".gitignore");
  // Permission bits do not stop root, the immutable flag does (where the file system has it).
  fs::create_directories(dir.path / ".orchestration");
  const auto db = dir.write(".orchestration/harness.db", "");
  if (::geteuid() != 0) {
    ::chmod(db.c_str(), 0444);
    CHECK(orchestrator::probe_start_facts(layout).unwritable_state == std::vector<orchestrator::UnwritableState>{{".orchestration/harness.db"}});
    ::chmod(db.c_str(), 0644);
  } else if (std::system(("chattr +i '" + db.string() + "' 2>/dev/null").c_str()) == 0) {
    const auto unwritable = orchestrator::probe_start_facts(layout).unwritable_state;
    (void)std::system(("chattr -i '" + db.string() + "'").c_str());
    CHECK(unwritable == std::vector<orchestrator::UnwritableState>{{".orchestration/harness.db"}});
  }
  CHECK(orchestrator::probe_start_facts(layout).unwritable_state.empty());
}

TEST_CASE("an operation in progress, a spec outside the project, ignored documents and unwritable state are problems", "[orchestrator][preflight]") {
  FakeMachine m;
  m.facts.git_operation = "rebase";
  m.facts.ignored_documents = {"docs/specs/SPC-001-x/execution/FINAL-VERIFICATION.md"};
  m.facts.unwritable_state = {{".orchestration/harness.db"}};
  auto outside = layout_at("/p");
  outside.spec_dir = "/elsewhere/SPC-001-x";
  const auto problems = orchestrator::start_problems(options(AdapterKind::script), outside, m.facts);
  const auto text = all_text(problems);
  INFO(text);
  REQUIRE(problems.size() == 4);
  CHECK(text.find("a git rebase is in progress") != std::string::npos);
  CHECK(text.find("git rebase --continue") != std::string::npos);
  CHECK(text.find("the spec directory /elsewhere/SPC-001-x is outside the project /p") != std::string::npos);
  CHECK(text.find("git ignores docs/specs/SPC-001-x/execution/FINAL-VERIFICATION.md") != std::string::npos);
  CHECK(text.find("git check-ignore -v docs/specs/SPC-001-x/execution/FINAL-VERIFICATION.md") != std::string::npos);
  CHECK(text.find(".orchestration/harness.db cannot be written") != std::string::npos);
  m.facts.git_operation = "merge";
  CHECK(all_text(orchestrator::start_problems(options(AdapterKind::script), layout_at("/p"), m.facts)).find("git merge --abort") !=
        std::string::npos);
}

TEST_CASE("a read-only file system and a project path too long for SQLite are problems before the start",
          "[orchestrator][preflight]") {
  // Review II F4, F5: a read-only mount without .orchestration/ failed after the start on its lock
  // file; a path SQLite cannot open failed after the state files were written.
  FakeMachine m;
  m.facts.unwritable_state = {{"the project directory /p (where .orchestration/ goes)", true}};
  auto text = all_text(orchestrator::start_problems(options(AdapterKind::script), layout_at("/p"), m.facts));
  CHECK(text.find("the project directory /p (where .orchestration/ goes) cannot be written: it lies on a read-only file system") !=
        std::string::npos);
  CHECK(text.find("chmod") == std::string::npos); // no chmod helps there
  m.facts.unwritable_state.clear();
  const std::string deep = "/p/" + std::string(240, 'a') + "/" + std::string(240, 'b');
  text = all_text(orchestrator::start_problems(options(AdapterKind::script), layout_at(deep), m.facts));
  CHECK(text.find("SQLite opens no database at a path longer than 504 bytes") != std::string::npos);
  CHECK(all_text(orchestrator::start_problems(options(AdapterKind::script), layout_at("/p/" + std::string(240, 'a')), m.facts))
            .find("SQLite") == std::string::npos);
}

TEST_CASE("a full disk is a problem before the start", "[orchestrator][preflight]") {
  // Review II F10: a run on a full disk wrote its lock file and failed on orchestrator.json.
  FakeMachine m;
  m.facts.free_bytes = 12 * 1024;
  const auto text = all_text(orchestrator::start_problems(options(AdapterKind::script), layout_at("/p"), m.facts));
  CHECK(text.find("the file system holding /p has 12 KB free") != std::string::npos);
  CHECK(text.find("df -h /p") != std::string::npos);
  // The state's file system when .orchestration/ leads to a fuller one (review LL F3).
  m.facts.free_bytes_at = "/p/.orchestration";
  CHECK(all_text(orchestrator::start_problems(options(AdapterKind::script), layout_at("/p"), m.facts))
            .find("the file system holding /p/.orchestration has 12 KB free") != std::string::npos);
  m.facts.free_bytes = std::uint64_t{5} << 30;
  CHECK(orchestrator::start_problems(options(AdapterKind::script), layout_at("/p"), m.facts).empty());
  test::TempDir dir;
  fs::create_directories(dir.path / "docs/specs/SPC-001-x/planning/plans");
  const auto probed = orchestrator::probe_start_facts(spec::discover_layout(dir.path / "docs/specs/SPC-001-x", dir.path).value());
  REQUIRE(probed.free_bytes);
  CHECK(*probed.free_bytes > 0);
}

TEST_CASE("the probe finds a project directory that cannot take .orchestration/", "[orchestrator][preflight]") {
  test::TempDir dir;
  test::sh(dir.path, "git init -q -b main && git config user.name t && git config user.email t@example.com");
  fs::create_directories(dir.path / "docs/specs/SPC-001-x/planning/plans");
  const auto layout = spec::discover_layout(dir.path / "docs/specs/SPC-001-x", dir.path).value();
  CHECK(orchestrator::probe_start_facts(layout).unwritable_state.empty());
  // A file where the state goes (review LL F8: the run failed on its lock file, exit 1).
  dir.write(".orchestration", "not a directory\n");
  const auto file = orchestrator::probe_start_facts(layout).unwritable_state;
  REQUIRE(file.size() == 1);
  CHECK(file[0].not_a_directory);
  FakeMachine m;
  m.facts.unwritable_state = file;
  CHECK(all_text(orchestrator::start_problems(options(AdapterKind::script), layout_at("/p"), m.facts))
            .find(".orchestration is not a directory, and the run keeps its state there") != std::string::npos);
  fs::remove(dir.path / ".orchestration");
  if (::geteuid() != 0) {
    ::chmod(dir.path.c_str(), 0555);
    const auto unwritable = orchestrator::probe_start_facts(layout).unwritable_state;
    ::chmod(dir.path.c_str(), 0755);
    REQUIRE(unwritable.size() == 1);
    CHECK(unwritable[0].path.find("where .orchestration/ goes") != std::string::npos);
    CHECK_FALSE(unwritable[0].read_only_file_system);
  } else if (std::system(("chattr +i '" + dir.path.string() + "' 2>/dev/null").c_str()) == 0) {
    const auto unwritable = orchestrator::probe_start_facts(layout).unwritable_state;
    (void)std::system(("chattr -i '" + dir.path.string() + "'").c_str());
    REQUIRE(unwritable.size() == 1);
    CHECK(unwritable[0].path.find("where .orchestration/ goes") != std::string::npos);
  }
}

TEST_CASE("the probe finds git's lock files no git process holds", "[orchestrator][preflight]") {
  test::TempDir dir;
  test::sh(dir.path, "git init -q -b main");
  fs::create_directories(dir.path / "docs/specs/SPC-001-x/planning/plans");
  const auto layout = spec::discover_layout(dir.path / "docs/specs/SPC-001-x", dir.path).value();
  CHECK(orchestrator::probe_start_facts(layout).orphaned_git_locks.empty());
  dir.write(".git/index.lock", ""); // a crashed editor's commit
  dir.write(".git/refs/heads/main.lock", "");
  dir.write(".git/packed-refs.lock", ""); // a killed `git pack-refs`
  CHECK(orchestrator::probe_start_facts(layout).orphaned_git_locks ==
        std::vector<std::string>{".git/index.lock", ".git/packed-refs.lock", ".git/refs/heads/main.lock"});
  // A run that stopped workers and was killed before it looked for their locks: the run's recovery
  // removes them, the preflight does not refuse.
  dir.write(".orchestration/locks-unchecked", "workers stopped\n");
  CHECK(orchestrator::probe_start_facts(layout).orphaned_git_locks.empty());
}

TEST_CASE("a git lock nobody holds is a problem whose fix removes it", "[orchestrator][preflight]") {
  FakeMachine m;
  m.facts.orphaned_git_locks = {".git/index.lock"};
  const auto problems = orchestrator::start_problems(options(AdapterKind::script), layout_at("/p"), m.facts);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].problem == ".git/index.lock exists and no git process works in this repository: a git that crashed "
                               "or was killed (an editor's, a terminal's) left it, and every commit of the run would "
                               "fail on it");
  CHECK(problems[0].fix.ends_with("then remove it: rm .git/index.lock"));
}

TEST_CASE("commits git is set to sign and cannot are a problem before any task runs", "[orchestrator][preflight]") {
  FakeMachine m;
  m.facts.signing_error = "gpg failed to sign the data; failed to write commit object";
  const auto problems = orchestrator::start_problems(options(AdapterKind::script), layout_at("/p"), m.facts);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].problem ==
        "git is set to sign every commit here (commit.gpgsign) and cannot sign (gpg failed to sign the data; failed to "
        "write commit object): every task would do its work and then fail to commit");
  CHECK(problems[0].fix.ends_with("git config commit.gpgsign false"));
}

TEST_CASE("the probe signs a test commit only when commit.gpgsign is on, and keeps git's reason", "[orchestrator][preflight]") {
  test::TempDir dir;
  test::sh(dir.path, "git init -q -b main && git config user.name t && git config user.email t@example.com"
                     " && git config gpg.program /bin/false");
  const auto layout = layout_at(dir.path);
  CHECK(orchestrator::probe_start_facts(layout).signing_error.empty()); // signing off: gpg.program is never asked
  test::sh(dir.path, "git config commit.gpgsign true");
  const auto error = orchestrator::probe_start_facts(layout).signing_error;
  INFO(error);
  CHECK(error.find("gpg failed to sign the data") != std::string::npos);
  CHECK(error.find("error: ") == std::string::npos);
  // A signer that works passes: a fake gpg that answers with a signature, as git expects it.
  const auto gpg = dir.write("fake-gpg", "#!/bin/sh\ncat >/dev/null\n"
                                         "printf '[GNUPG:] KEY_CONSIDERED x\\n[GNUPG:] SIG_CREATED D 1 8 00 1 x\\n' >&2\n"
                                         "printf -- '-----BEGIN PGP SIGNATURE-----\\n\\nx\\n-----END PGP SIGNATURE-----\\n'\n");
  ::chmod(gpg.c_str(), 0755);
  test::sh(dir.path, "git config gpg.program '" + gpg.string() + "'");
  CHECK(orchestrator::probe_start_facts(layout).signing_error.empty());
  test::sh(dir.path, "git config commit.gpgsign false");
  CHECK(orchestrator::probe_start_facts(layout).signing_error.empty());
}

namespace {

/// A spec of plans that write `files` each (plan id -> files_modified), none of them run yet.
spec::Spec plans_writing(const std::vector<std::pair<std::string, std::vector<std::string>>>& files) {
  spec::Spec s;
  s.layout = layout_at("/p");
  for (const auto& [id, modified] : files) {
    spec::Plan p;
    p.id = id;
    p.files_modified = modified;
    s.plans.push_back(std::move(p));
  }
  return s;
}

} // namespace

TEST_CASE("plans that write outside a cone-mode sparse checkout are refused, with the directories to add",
          "[orchestrator][preflight]") {
  auto s = plans_writing({{"01-01", {"out/01-01/**", "README.md"}},
                          {"01-02", {"out/01-02/a.txt", "docs/guide.md"}},
                          {"01-03", {"**/*.ts", "src/app/main.cpp", "src/top.cpp", "lib/x/y.c"}}});
  StartFacts facts;
  CHECK(orchestrator::declared_path_problems(s, facts).empty()); // not sparse
  facts.sparse_cone = std::vector<std::string>{"docs", "src/app"};
  auto problems = orchestrator::declared_path_problems(s, facts);
  REQUIRE(problems.size() == 1);
  const auto text = all_text(problems);
  INFO(text);
  // Root files, files below a cone directory and files directly above one are checked out.
  CHECK(problems[0].problem.find("01-01 (out/01-01/**), 01-02 (out/01-02/a.txt), 01-03 (lib/x/y.c)") != std::string::npos);
  CHECK(problems[0].problem.find("README") == std::string::npos);
  CHECK(problems[0].problem.find("src/top.cpp") == std::string::npos);
  CHECK(problems[0].problem.find("main.cpp") == std::string::npos);
  CHECK(problems[0].problem.find("*.ts") == std::string::npos);
  CHECK(problems[0].fix.find("git sparse-checkout add lib/x out/01-01 out/01-02") != std::string::npos);
  CHECK(problems[0].fix.find("git sparse-checkout disable") != std::string::npos);
  // A plan that has run is not asked about again.
  s.summaries["01-01"] = {};
  s.summaries["01-02"] = {};
  s.summaries["01-03"] = {};
  CHECK(orchestrator::declared_path_problems(s, facts).empty());
}

TEST_CASE("the probe reads the cone of a sparse checkout, and nothing of a full one", "[orchestrator][preflight]") {
  test::TempDir dir;
  test::sh(dir.path, "git init -q -b main origin && cd origin && mkdir -p docs out && echo d > docs/d && echo o > out/o"
                     " && git add -A && git -c user.name=t -c user.email=t@example.com commit -qm init");
  test::sh(dir.path, "git clone -q origin clone");
  CHECK_FALSE(orchestrator::sparse_cone_directories(dir.path / "clone").has_value());
  test::sh(dir.path / "clone", "git sparse-checkout set docs");
  CHECK(orchestrator::sparse_cone_directories(dir.path / "clone") == std::vector<std::string>{"docs"});
  // Non-cone patterns are gitignore rules git 2.39 cannot match a path against for us: not checked.
  test::sh(dir.path / "clone", "git sparse-checkout set --no-cone '/docs/'");
  CHECK_FALSE(orchestrator::sparse_cone_directories(dir.path / "clone").has_value());
  test::sh(dir.path / "clone", "git sparse-checkout disable");
  CHECK_FALSE(orchestrator::sparse_cone_directories(dir.path / "clone").has_value());
}

TEST_CASE("plans that write inside a submodule are refused, naming the submodule", "[orchestrator][preflight]") {
  auto s = plans_writing({{"01-01", {"vendor/lib/src/a.c", "src/main.c"}},
                          {"01-02", {"vendor/lib/**", "vendor/libx/b.c"}},
                          {"01-03", {"vendor/lib", "**/*.c"}}}); // the gitlink itself is this repository's
  StartFacts facts;
  CHECK(orchestrator::declared_path_problems(s, facts).empty());
  facts.submodules = {"vendor/lib"};
  const auto problems = orchestrator::declared_path_problems(s, facts);
  REQUIRE(problems.size() == 1);
  INFO(all_text(problems));
  CHECK(problems[0].problem.starts_with("vendor/lib is a git submodule"));
  CHECK(problems[0].problem.ends_with("commit nothing: 01-01 (vendor/lib/src/a.c), 01-02 (vendor/lib/**)"));
  CHECK(problems[0].fix.find("submodule's own project") != std::string::npos);
  s.summaries["01-01"] = {};
  s.summaries["01-02"] = {};
  CHECK(orchestrator::declared_path_problems(s, facts).empty());
}


TEST_CASE("a shallow clone without the commits of executed plans is refused, with git fetch --unshallow",
          "[orchestrator][preflight]") {
  auto s = plans_writing({{"01-01", {"out/a"}}, {"01-02", {"out/b"}}, {"02-01", {"out/c"}}});
  s.summaries["01-01"] = {};
  s.summaries["01-02"] = {};
  StartFacts facts;
  CHECK(orchestrator::shallow_history_problems(s, facts).empty()); // the whole history
  facts.shallow_plans_with_commits = std::set<std::string>{"01-02"};
  const auto problems = orchestrator::shallow_history_problems(s, facts);
  REQUIRE(problems.size() == 1);
  INFO(all_text(problems));
  // 02-01 has not run: its commits are this run's. 01-02's are in the clone.
  CHECK(problems[0].problem.starts_with("the clone is shallow and holds no commit of 1 executed plan (01-01): "));
  CHECK(problems[0].fix == "git fetch --unshallow, or fetch-depth: 0 in CI, then run again");
  facts.shallow_plans_with_commits = std::set<std::string>{"01-01", "01-02"};
  CHECK(orchestrator::shallow_history_problems(s, facts).empty()); // deep enough
}

TEST_CASE("in a GSD project the plans with commits include those GSD executed, named by subject", "[orchestrator][preflight]") {
  // Review T, finding 5: CI's shallow clone of a GSD-executed project was refused although it
  // held GSD's commits.
  test::set_git_identity();
  test::TempDir dir;
  dir.write(".planning/ROADMAP.md", "# Roadmap\n\n## Phase 1: Core\n");
  for (const char* id : {"01", "02", "03"})
    dir.write(fmt::format(".planning/phases/01-core/01-{}-PLAN.md", id), "---\ndepends_on: []\nfiles_modified: [a]\n---\n# x\n");
  test::sh(dir.path, "git init -q && git add -A && git commit -qm 'docs: plans' && "
                     "git commit -q --allow-empty -m 'feat(01-01): by GSD' && "
                     "git commit -q --allow-empty -m 'feat(01-02): by harness' -m 'Plan: 01-02, Task: 1/1' -m 'Spec: .planning' && "
                     "git commit -q --allow-empty -m 'feat(01-03): another spec' -m 'Plan: 01-03, Task: 1/1' -m 'Spec: x'");
  const auto layout = spec::discover_layout(dir.path, dir.path);
  REQUIRE(layout);
  CHECK(orchestrator::plans_with_commits(*layout) == std::set<std::string>{"01-01", "01-02"});
}

TEST_CASE("a limit on open files too low for the slots is a start problem that names ulimit -n and the slots that fit",
          "[orchestrator][preflight][descriptors]") {
  FakeMachine m;
  auto o = options(AdapterKind::script);
  o.sched.slots = 8;
  const auto needed = orchestrator::open_files_needed(8, o.verify_threads);
  // Each slot holds descriptors of its own: more slots need more.
  CHECK(orchestrator::open_files_needed(16, o.verify_threads) > needed);
  m.facts.open_file_limit = needed;
  CHECK(orchestrator::start_problems(o, layout_at("/p"), m.facts).empty());
  m.facts.open_file_limit = std::nullopt; // unlimited
  CHECK(orchestrator::start_problems(o, layout_at("/p"), m.facts).empty());

  m.facts.open_file_limit = orchestrator::open_files_needed(3, o.verify_threads);
  auto problems = orchestrator::start_problems(o, layout_at("/p"), m.facts);
  REQUIRE(problems.size() == 1);
  CHECK_THAT(problems[0].problem, Catch::Contains("--slots 8 needs about " + std::to_string(needed) + " open files"));
  CHECK_THAT(problems[0].fix, Catch::Contains("`ulimit -n " + std::to_string(needed) + "`"));
  CHECK_THAT(problems[0].fix, Catch::Contains("--slots 3"));

  m.facts.open_file_limit = 20; // not even one slot: raising the limit is the only fix
  problems = orchestrator::start_problems(o, layout_at("/p"), m.facts);
  REQUIRE(problems.size() == 1);
  CHECK_THAT(problems[0].problem, Catch::Contains("may open 20"));
  CHECK_THAT(problems[0].fix, !Catch::Contains("--slots"));
}
