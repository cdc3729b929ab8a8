// Orchestrator throughput (issue 7), Release build:
//   1,000 plans of 0-second `script` tasks (each writes one file) through 16 slots, including
//   worker process spawn, per-task git commits, SUMMARY, and plan verification; tasks/s.
//   The same with 64 slots, reporting the orchestrator's peak RSS.
// Usage: bench_orchestrate [plans] [harness-cli]
#include "harness/orchestrator/display.hpp"
#include "harness/orchestrator/engine_verifier.hpp"
#include "harness/orchestrator/orchestrator.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <sys/resource.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace {

class Quiet final : public harness::orchestrator::Observer {
public:
  void on_event(const harness::orchestrator::RunEvent& e, const harness::orchestrator::RunView& v) override {
    if (e.kind == harness::orchestrator::RunEventKind::task_blocked) fmt::print(stderr, "blocked: {} {}\n", e.task_id, e.message);
    int busy = 0;
    for (const auto& s : v.slots) busy += !s.task_id.empty();
    peak = std::max(peak, busy);
  }
  int peak = 0;
};

fs::path make_project(const fs::path& root, int plans) {
  const fs::path spec = root / "docs/specs/SPC-900-bench";
  fs::create_directories(spec);
  std::ofstream(spec / "SPEC.md") << "# bench\n";
  const int per_phase = 100;
  for (int i = 0; i < plans; ++i) {
    const int ph = i / per_phase + 1, n = i % per_phase + 1;
    const std::string id = fmt::format("{:02}-{:02}", ph, n);
    const fs::path dir = spec / "planning/plans" / fmt::format("{:02}-p", ph);
    fs::create_directories(dir);
    std::ofstream(dir / (id + "-PLAN.md"))
        << fmt::format("---\nplan_id: '{0}'\ndepends_on: []\nfiles_modified: ['out/{0}.txt']\nmust_pass:\n"
                       "  - id: written\n    type: file_exists\n    path: out/{0}.txt\n---\n# {0}\n\n### Task 1: write\n\n"
                       "```bash\nmkdir -p out && echo {0} > out/{0}.txt\n```\n",
                       id);
  }
  const std::string cmd = fmt::format("cd '{}' && git init -q && git add -A && git -c user.name=b -c user.email=b@b commit -qm init", root.string());
  if (std::system(cmd.c_str()) != 0) std::exit(1);
  return spec;
}

/// Peak RSS of this process since the last reset_peak_rss(). getrusage's ru_maxrss is the peak of
/// the process's whole life: the 64-slot run reported the 1,000-plan run's peak before it.
void reset_peak_rss() {
  // "5" resets VmHWM to the current RSS (Linux >= 4.0, proc(5) clear_refs).
  std::ofstream("/proc/self/clear_refs") << "5";
}

double peak_rss_mb() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmHWM:", 0) == 0) return std::atof(line.c_str() + 6) / 1024.0; // "VmHWM:   12345 kB"
  return 0;
}

/// git's own auto maintenance (a background gc after about 2,000 commits' loose objects) may
/// still be writing into .git/objects when the run ends: retry instead of dying before the next
/// figure (remove_all threw "cannot remove all").
void remove_project(const fs::path& root) {
  std::error_code ec;
  for (int i = 0; i < 50; ++i) {
    fs::remove_all(root, ec);
    if (!ec) return;
    ::usleep(200000);
  }
  fmt::print(stderr, "could not remove {}: {}\n", root.string(), ec.message());
}

void run(int plans, int slots, const fs::path& cli_arg) {
  const fs::path cli = fs::absolute(cli_arg);
  const fs::path root = fs::temp_directory_path() / fmt::format("harness-bench-orch-{}-{}", ::getpid(), slots);
  fs::remove_all(root);
  const fs::path spec = make_project(root, plans);
  harness::orchestrator::RunOptions o;
  o.spec_dir = spec;
  o.sched.slots = slots;
  o.sched.gate_lookahead = std::nullopt; // throughput, not gating
  o.adapter = harness::worker::AdapterKind::script;
  o.harness_cli = cli;
  o.auto_yes = true;
  Quiet quiet;
  auto verifier = harness::orchestrator::make_engine_verifier();
  harness::orchestrator::Orchestrator orch(o, *verifier, quiet);
  reset_peak_rss();
  rusage before{};
  getrusage(RUSAGE_SELF, &before);
  const auto t0 = std::chrono::steady_clock::now();
  auto r = orch.run();
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  rusage self{};
  getrusage(RUSAGE_SELF, &self);
  // The orchestrator's own CPU (this process; workers and git are children): where the time goes.
  auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
  const double cpu = seconds(self.ru_utime) + seconds(self.ru_stime) - seconds(before.ru_utime) - seconds(before.ru_stime);
  if (!r) {
    fmt::print(stderr, "run failed: {}\n", r.error().message);
    std::exit(1);
  }
  fmt::print("{} plans, {} slots: {} in {:.1f} s = {:.1f} plans/s (execute + verify-plan each), peak busy slots {}, "
             "orchestrator peak RSS {:.1f} MB, orchestrator CPU {:.1f} ms per plan\n",
             plans, slots, r->outcome, s, plans / s, quiet.peak, peak_rss_mb(), 1000 * cpu / plans);
  remove_project(root);
}

} // namespace

int main(int argc, char** argv) {
  const int plans = argc > 1 ? std::atoi(argv[1]) : 1000;
  const fs::path cli = argc > 2 ? fs::path(argv[2]) : fs::canonical("/proc/self/exe").parent_path().parent_path() / "bin" / "harness-cli";
  ::setenv("GIT_AUTHOR_NAME", "bench", 1);
  ::setenv("GIT_AUTHOR_EMAIL", "bench@example.com", 1);
  ::setenv("GIT_COMMITTER_NAME", "bench", 1);
  ::setenv("GIT_COMMITTER_EMAIL", "bench@example.com", 1);
  run(plans, 16, cli); // target: >= 100 tasks/s
  run(std::min(plans, 256), 64, cli); // target: orchestrator RSS <= 50 MB with 64 concurrent sessions
  return 0;
}
