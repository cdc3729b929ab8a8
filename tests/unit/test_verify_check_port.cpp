// `{port}` in a check that starts a server: every run of the check gets a port free at that
// moment, so two checks written alike (two plans, two clones) never talk to each other's server.
#include "harness/verify/engine.hpp"
#include "spec_test_util.hpp"
#include "../../libharness/src/verify/check_port.hpp"

#include <catch2/catch.hpp>

#include <future>
#include <string>

using namespace harness;

namespace {

// Answers every GET with the name it was started with.
const char* k_named_server = R"(import sys
from http.server import BaseHTTPRequestHandler, HTTPServer
class Named(BaseHTTPRequestHandler):
    def do_GET(self):
        out = sys.argv[2].encode()
        self.send_response(200)
        self.send_header('Content-Length', str(len(out)))
        self.end_headers()
        self.wfile.write(out)
    def log_message(self, *args):
        pass
HTTPServer(('127.0.0.1', int(sys.argv[1])), Named).serve_forever()
)";

spec::Check named_check(const std::string& name) {
  spec::Check c;
  c.type = spec::CheckType::api_response;
  c.id = name;
  c.start.argv = {"python3", "named.py", "{port}", name};
  c.url = "http://127.0.0.1:{port}";
  c.endpoint = "/who";
  c.expects.body_re = "^" + name + "$";
  c.timeout_seconds = 20;
  return c;
}

} // namespace

TEST_CASE("every {port} of a check is replaced, in the server command, URLs, endpoint and steps") {
  spec::Check c = named_check("a");
  c.ready_url = "http://127.0.0.1:{port}/ready";
  c.endpoint = "http://127.0.0.1:{port}/who";
  c.start.text = "python3 named.py {port} a";
  c.steps = {{"goto", "", "http://127.0.0.1:{port}/{port}"}};
  c.expects.url = "127\\.0\\.0\\.1:{port}/done$";
  REQUIRE(spec::uses_port_placeholder(c));
  const auto p = verify::detail::with_port(c, 40123);
  CHECK(p.start.argv == std::vector<std::string>{"python3", "named.py", "40123", "a"});
  CHECK(p.start.text == "python3 named.py 40123 a");
  CHECK(p.url == "http://127.0.0.1:40123");
  CHECK(p.ready_url == "http://127.0.0.1:40123/ready");
  CHECK(p.endpoint == "http://127.0.0.1:40123/who");
  CHECK(p.steps[0].value == "http://127.0.0.1:40123/40123");
  CHECK(p.expects.url == "127\\.0\\.0\\.1:40123/done$");
  CHECK_FALSE(spec::uses_port_placeholder(p));
  spec::Check fixed;
  fixed.url = "http://127.0.0.1:8080";
  CHECK_FALSE(spec::uses_port_placeholder(fixed));
}

TEST_CASE("a free local port is one a server can bind") {
  auto port = verify::detail::free_local_port();
  REQUIRE(port);
  CHECK(*port > 0);
  CHECK(*port < 65536);
}

TEST_CASE("two checks written with the same {port} run side by side, each against its own server") {
  test::TempDir dir;
  dir.write("named.py", k_named_server);
  auto run = [&](const std::string& name) { return verify::run_check(named_check(name), dir.path, {}); };
  auto first = std::async(std::launch::async, run, "first");
  auto second = std::async(std::launch::async, run, "second");
  for (auto* f : {&first, &second}) {
    const auto r = f->get();
    INFO(r.id << ": " << r.message << " " << r.evidence);
    CHECK(r.status == verify::CheckStatus::passed);
    CHECK(r.evidence.find("{port}") == std::string::npos); // the evidence names the real URL
  }
}
