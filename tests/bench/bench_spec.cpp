// Benchmarks for issue 2 (run on a Release build):
//   1. parse + validate a generated 2,000-plan spec (target <= 200 ms)
//   2. `harness-cli status` on the example spec, as a process, median wall (target <= 5 ms)
// Usage: bench_spec [path/to/harness-cli]   (default: ../bin/harness-cli beside this binary)
#include "harness/graph/plan_graph.hpp"
#include "harness/spec/spec.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char** environ;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(p * static_cast<double>(v.size() - 1))];
}

/// 20 phases x 100 plans; each plan depends on up to 3 earlier plans, writes 2 files, has 2 checks.
fs::path generate_spec(const fs::path& root, int phases, int per_phase) {
  std::mt19937 rng(42);
  const fs::path spec = root / "SPC-900-bench";
  fs::create_directories(spec);
  std::ofstream(spec / "SPEC.md") << "# bench\n";
  std::vector<std::string> ids;
  for (int ph = 1; ph <= phases; ++ph) {
    const fs::path dir = spec / "planning" / "plans" / fmt::format("{:02}-phase", ph);
    fs::create_directories(dir);
    for (int n = 1; n <= per_phase; ++n) {
      const std::string id = fmt::format("{:02}-{:02}", ph, n);
      std::string deps;
      for (int k = 0; k < 3 && !ids.empty(); ++k)
        deps += (deps.empty() ? "'" : ", '") + ids[std::uniform_int_distribution<size_t>(0, ids.size() - 1)(rng)] + "'";
      std::ofstream(dir / (id + "-PLAN.md"))
          << fmt::format("---\nplan_id: '{0}'\ndepends_on: [{1}]\nfiles_modified:\n  - 'src/m{0}/a.ts'\n  - 'src/m{0}/b.ts'\n"
                         "files_read: ['src/shared/util.ts']\nautonomous: true\nestimate: {2}\nmust_pass:\n"
                         "  - id: exists\n    type: file_exists\n    path: src/m{0}/a.ts\n"
                         "  - id: tests\n    type: tests_pass\n    command: npm test -- m{0}\n---\n"
                         "# {0}: generated plan\n\n### Task 1: write a\n\n```bash\necho a > src/m{0}/a.ts\n```\n\n"
                         "### Task 2: write b\n\n```bash\necho b > src/m{0}/b.ts\n```\n",
                         id, deps, 1 + n % 7);
      ids.push_back(id);
    }
  }
  return spec;
}

double run_process(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  const auto t0 = Clock::now();
  pid_t pid = 0;
  if (posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ) != 0) return -1;
  int status = 0;
  waitpid(pid, &status, 0);
  const double ms = ms_since(t0);
  posix_spawn_file_actions_destroy(&fa);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? ms : -1;
}

} // namespace

int main(int argc, char** argv) {
  const fs::path tmp = fs::temp_directory_path() / fmt::format("harness-bench-spec-{}", ::getpid());
  const fs::path spec_dir = generate_spec(tmp, 20, 100);
  std::vector<double> load_ms, graph_ms;
  size_t plans = 0;
  for (int i = 0; i < 7; ++i) {
    auto t0 = Clock::now();
    auto spec = harness::spec::load_spec(spec_dir);
    load_ms.push_back(ms_since(t0));
    if (!spec || !spec->valid()) {
      fmt::print(stderr, "generated spec did not validate\n");
      return 1;
    }
    plans = spec->plans.size();
    t0 = Clock::now();
    auto g = harness::graph::build_plan_graph(spec->plans);
    graph_ms.push_back(ms_since(t0));
  }
  fmt::print("parse+validate {} plans: median {:.1f} ms, min {:.1f} ms (target <= 200 ms)\n", plans,
             percentile(load_ms, 0.5), percentile(load_ms, 0.0));
  fmt::print("plan graph (order, cycles, critical path, conflicts) {} plans: median {:.1f} ms\n", plans,
             percentile(graph_ms, 0.5));
  fs::remove_all(tmp);

  const fs::path cli = argc > 1 ? fs::path(argv[1]) : fs::canonical("/proc/self/exe").parent_path().parent_path() / "bin" / "harness-cli";
  const std::string example = HARNESS_SOURCE_DIR "/examples/specs/SPC-001-task-tracker";
  std::vector<double> wall;
  for (int i = 0; i < 220; ++i) {
    double ms = run_process({cli.string(), "status", example});
    if (ms < 0) {
      fmt::print(stderr, "{} status failed\n", cli.string());
      return 1;
    }
    if (i >= 20) wall.push_back(ms); // the first runs warm the page cache
  }
  fmt::print("harness-cli status on the example spec (12 plans), {} runs: median {:.2f} ms, p95 {:.2f} ms (target median <= 5 ms)\n",
             wall.size(), percentile(wall, 0.5), percentile(wall, 0.95));
  return 0;
}
