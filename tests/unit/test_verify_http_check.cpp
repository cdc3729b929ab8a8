// The api_response check against a local server that echoes what it was sent.
#include "harness/verify/engine.hpp"
#include "spec_test_util.hpp"
#include "../../libharness/src/verify/ui_check.hpp"

#include <catch2/catch.hpp>

#include <csignal>
#include <string>
#include <unistd.h>

using namespace harness;

namespace {

// Answers every request with "<method> <content-type> <body>".
const char* k_echo_server = R"(import sys
from http.server import BaseHTTPRequestHandler, HTTPServer
class Echo(BaseHTTPRequestHandler):
    def reply(self):
        body = self.rfile.read(int(self.headers.get('Content-Length') or 0)).decode()
        out = ('%s %s %s' % (self.command, self.headers.get('Content-Type'), body)).encode()
        self.send_response(200)
        self.send_header('Content-Length', str(len(out)))
        self.end_headers()
        self.wfile.write(out)
    do_GET = do_POST = do_PUT = reply
    def log_message(self, *args):
        pass
HTTPServer(('127.0.0.1', int(sys.argv[1])), Echo).serve_forever()
)";

/// Keyed by pid like the engine tests' port, above it so that they never meet.
std::string echo_port(int offset) { return std::to_string(20001 + offset + (::getpid() % 20000)); }

/// An api_response check that starts the echo server in `dir` on a port of its own.
spec::Check echo_check(const test::TempDir& dir) {
  dir.write("echo.py", k_echo_server);
  const auto port = echo_port(0);
  spec::Check c;
  c.type = spec::CheckType::api_response;
  c.id = "echo";
  c.start.argv = {"python3", "echo.py", port};
  c.url = "http://127.0.0.1:" + port;
  c.endpoint = "/api/tasks";
  c.timeout_seconds = 20;
  return c;
}

} // namespace

TEST_CASE("a plan's content-type header is kept whatever its case; a body without one is sent as JSON") {
  test::TempDir dir;
  auto c = echo_check(dir);
  c.method = "POST";
  c.body = "hello";
  c.headers = {{"content-type", "text/plain"}};
  c.expects.body_re = "^POST text/plain hello$";
  auto r = verify::run_check(c, dir.path, {});
  INFO(r.message << " " << r.evidence);
  CHECK(r.status == verify::CheckStatus::passed);
  c.headers.clear();
  c.expects.body_re = "^POST application/json hello$";
  r = verify::run_check(c, dir.path, {});
  INFO(r.message << " " << r.evidence);
  CHECK(r.status == verify::CheckStatus::passed);
}

TEST_CASE("a fractional timeout is kept in milliseconds, not cut to whole seconds") {
  verify::VerifyOptions opt;
  spec::Check c;
  CHECK(verify::check_timeout(c, opt) == std::chrono::minutes(10));
  c.timeout_seconds = 0.5;
  CHECK(verify::check_timeout(c, opt) == std::chrono::milliseconds(500));
  CHECK(verify::detail::ui_driver_input(c, verify::check_timeout(c, opt)).find(R"("timeout_ms":500)") != std::string::npos);
  c.timeout_seconds = 1.9;
  CHECK(verify::check_timeout(c, opt) == std::chrono::milliseconds(1900));
  c.timeout_seconds = 0.0004; // rounded up: never zero, which the browser driver reads as "default"
  CHECK(verify::check_timeout(c, opt) == std::chrono::milliseconds(1));
}

TEST_CASE("an api check with a sub-second timeout gets its answer instead of timing out at once") {
  test::TempDir dir;
  auto c = echo_check(dir);
  const auto port = echo_port(1);
  c.url = "http://127.0.0.1:" + port;
  // Started by the test, not by the check, so that the check's short timeout is the request's alone.
  const int pid = std::stoi(test::sh(dir.path, "python3 echo.py " + port + " >/dev/null 2>&1 & echo $!"));
  struct Stop {
    int pid;
    ~Stop() { ::kill(pid, SIGTERM); }
  } stop{pid};
  c.start = {};
  c.ready_url = c.url;
  auto r = verify::run_check(c, dir.path, {});
  INFO(r.message << " " << r.evidence);
  REQUIRE(r.status == verify::CheckStatus::passed);
  c.ready_url.reset();
  c.timeout_seconds = 0.9;
  r = verify::run_check(c, dir.path, {});
  INFO(r.message << " " << r.evidence);
  CHECK(r.status == verify::CheckStatus::passed);
}

TEST_CASE("a server that accepts and never answers fails the check when its timeout is up") {
  test::TempDir dir;
  // Gone after 30 s in any case, so that a check without a working timeout fails, not hangs.
  dir.write("hang.py", "import signal, socket, sys\n"
                       "signal.alarm(30)\n"
                       "s = socket.socket()\n"
                       "s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)\n"
                       "s.bind(('127.0.0.1', int(sys.argv[1])))\n"
                       "s.listen()\n"
                       "conns = []\n"
                       "while True:\n"
                       "    conns.append(s.accept())\n");
  const auto port = echo_port(2);
  spec::Check c;
  c.type = spec::CheckType::api_response;
  c.id = "hang";
  c.start.argv = {"python3", "hang.py", port};
  c.url = "http://127.0.0.1:" + port;
  c.endpoint = "/api/tasks";
  // The timeout covers the server's start too: 1 s was less than python3 took to listen under
  // load 12 ("connection refused" instead of "timed out").
  c.timeout_seconds = 4;
  const auto t0 = std::chrono::steady_clock::now();
  auto r = verify::run_check(c, dir.path, {});
  const auto took = std::chrono::steady_clock::now() - t0;
  INFO(r.message);
  CHECK(r.status == verify::CheckStatus::failed);
  CHECK(r.message.find("timed out") != std::string::npos);
  CHECK(took < std::chrono::seconds(20));
}
