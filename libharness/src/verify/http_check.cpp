#include "http_check.hpp"

#include "harness/util/text.hpp"
#include "harness/worker/spawn.hpp"
#include "line_search.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/json.hpp>
#include <sys/wait.h>

#include <fmt/format.h>

#include <algorithm>
#include <csignal>
#include <fcntl.h>
#include <thread>
#include <unistd.h>

namespace harness::verify::detail {
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace json = boost::json;

namespace {

struct Url {
  std::string host;
  std::string port = "80";
  std::string target = "/";
};

std::optional<Url> parse_url(std::string_view url) {
  if (!url.starts_with("http://")) return std::nullopt; // https needs TLS, out of scope for local checks
  url.remove_prefix(7);
  Url u;
  const auto slash = url.find('/');
  std::string_view hostport = url.substr(0, slash);
  if (slash != std::string_view::npos) u.target = std::string(url.substr(slash));
  const auto colon = hostport.rfind(':');
  u.host = std::string(hostport.substr(0, colon));
  if (colon != std::string_view::npos) u.port = std::string(hostport.substr(colon + 1));
  return u;
}

struct Response {
  int status = 0;
  std::string body;
  std::string error;
};

/// One request, all of it (connect, write, read) within `timeout`. Asynchronous because Beast's
/// stream timeouts apply only to asynchronous operations: a synchronous read from a server that
/// accepts and never answers would wait forever.
Response request(const Url& u, const std::string& method, const std::map<std::string, std::string>& headers,
                 const std::string& body, std::chrono::milliseconds timeout) {
  Response r;
  try {
    asio::io_context ctx;
    asio::ip::tcp::resolver resolver(ctx);
    beast::tcp_stream stream(ctx);
    http::request<http::string_body> req{http::string_to_verb(method), u.target, 11};
    req.set(http::field::host, u.host);
    req.set(http::field::user_agent, "harness-verify");
    for (const auto& [k, v] : headers) req.set(k, v);
    if (!body.empty()) {
      req.body() = body;
      // Header names are case-insensitive: a plan's `content-type:` is the Content-Type.
      const bool has_type = std::ranges::any_of(headers, [](const auto& h) { return beast::iequals(h.first, "Content-Type"); });
      if (!has_type) req.set(http::field::content_type, "application/json");
      req.prepare_payload();
    }
    beast::flat_buffer buffer;
    http::response<http::string_body> res;
    auto failed = [&](beast::error_code ec, std::string_view what) {
      if (ec) r.error = fmt::format("{}: {}", what, ec == beast::error::timeout ? "timed out" : ec.message());
      return static_cast<bool>(ec);
    };
    stream.expires_after(timeout); // one deadline for connect, write and read together
    resolver.async_resolve(u.host, u.port, [&](beast::error_code ec, const asio::ip::tcp::resolver::results_type& endpoints) {
      if (failed(ec, "resolve")) return;
      stream.async_connect(endpoints, [&](beast::error_code ec_connect, const asio::ip::tcp::endpoint&) {
        if (failed(ec_connect, "connect")) return;
        http::async_write(stream, req, [&](beast::error_code ec_write, size_t) {
          if (failed(ec_write, "write")) return;
          http::async_read(stream, buffer, res, [&](beast::error_code ec_read, size_t) {
            if (failed(ec_read, "read")) return;
            r.status = static_cast<int>(res.result_int());
            r.body = res.body();
          });
        });
      });
    });
    ctx.run();
    beast::error_code ec;
    stream.socket().shutdown(asio::ip::tcp::socket::shutdown_both, ec);
  } catch (const std::exception& e) {
    r.error = e.what();
  }
  return r;
}

bool subset(const json::value& p, const json::value& a) {
  if (p.is_object()) {
    if (!a.is_object()) return false;
    for (const auto& [k, v] : p.as_object()) {
      auto it = a.as_object().find(k);
      if (it == a.as_object().end() || !subset(v, it->value())) return false;
    }
    return true;
  }
  if (p.is_array()) {
    if (!a.is_array() || a.as_array().size() < p.as_array().size()) return false;
    for (size_t i = 0; i < p.as_array().size(); ++i)
      if (!subset(p.as_array()[i], a.as_array()[i])) return false;
    return true;
  }
  if (p.is_number() && a.is_number()) return p.to_number<double>() == a.to_number<double>();
  return p == a;
}

} // namespace

/// A server the check starts; its process group is killed when this goes away, also when the
/// command itself already exited (a wrapper that left the server running in the background).
/// Plain waitpid, not Boost.Process: its running() throws once the child has been reaped.
class Server {
public:
  Server(const spec::Command& cmd, const std::filesystem::path& root) {
    const auto exe = worker::find_program(cmd.argv[0]);
    if (exe.empty()) {
      error = cmd.argv[0] + ": not found on PATH";
      return;
    }
    // Output to /dev/null; a group of its own so that stopping it stops what it started.
    const int devnull = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
    auto pid = worker::spawn_process({exe, cmd.argv, std::nullopt, root, devnull, devnull, true});
    if (devnull >= 0) ::close(devnull);
    if (!pid) {
      error = pid.error().message;
      return;
    }
    m_pid = *pid;
  }
  ~Server() {
    if (m_pid <= 0) return;
    ::kill(-m_pid, SIGTERM);
    for (int i = 0; i < 50 && (reap(), ::kill(-m_pid, 0) == 0); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ::kill(-m_pid, SIGKILL);
    if (!m_reaped) {
      int status = 0;
      ::waitpid(m_pid, &status, 0);
    }
  }
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;
  /// Something of its group still runs (the command itself or what it left in the background).
  bool running() {
    reap();
    return m_pid > 0 && ::kill(-m_pid, 0) == 0;
  }
  std::string error;

private:
  void reap() {
    int status = 0;
    if (!m_reaped && m_pid > 0 && ::waitpid(m_pid, &status, WNOHANG) == m_pid) m_reaped = true;
  }
  int m_pid = -1;
  bool m_reaped = false;
};

bool json_subset(std::string_view pattern, std::string_view actual) {
  boost::system::error_code ec1, ec2;
  auto p = json::parse(pattern, ec1);
  auto a = json::parse(actual, ec2);
  return !ec1 && !ec2 && subset(p, a);
}

std::expected<std::shared_ptr<Server>, std::string> serve_and_wait(const spec::Check& c, const std::filesystem::path& root,
                                                                   const std::string& full, std::chrono::milliseconds timeout) {
  std::shared_ptr<Server> server;
  if (!c.start.empty()) {
    server = std::make_shared<Server>(c.start, root);
    if (!server->error.empty()) return std::unexpected("start: " + server->error);
  } else if (!c.ready_url) {
    return server; // nothing started, nothing to wait for
  }
  auto ready = parse_url(c.ready_url.value_or(full));
  if (!ready) return std::unexpected(fmt::format("'{}' is not an http:// URL", c.ready_url.value_or(full)));
  const auto until = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    auto res = request(*ready, "GET", {}, "", std::min<std::chrono::milliseconds>(timeout, std::chrono::seconds(2)));
    if (res.error.empty()) return server;
    if (std::chrono::steady_clock::now() > until) return std::unexpected(fmt::format("no answer from {}: {}", full, res.error));
    if (server && !server->running()) return std::unexpected("the server started by `start` exited before answering");
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

CheckResult run_api_response(const spec::Check& c, const std::filesystem::path& root, const VerifyOptions& opt) {
  CheckResult r;
  std::string full = c.url;
  if (!c.endpoint.empty() && !c.endpoint.starts_with("http")) full += c.endpoint;
  else if (!c.endpoint.empty()) full = c.endpoint;
  auto url = parse_url(full);
  if (!url) {
    r.status = CheckStatus::error;
    r.message = fmt::format("'{}' is not an http:// URL (set url: and endpoint:)", full);
    return r;
  }
  const auto timeout = check_timeout(c, opt);
  auto server = serve_and_wait(c, root, full, timeout);
  if (!server) {
    r.status = server.error().starts_with("no answer") ? CheckStatus::failed : CheckStatus::error;
    r.message = server.error();
    return r;
  }
  Response res;
  res = request(*url, c.method.empty() ? "GET" : c.method, c.headers, c.body, timeout);
  r.evidence = fmt::format("{} {} -> {} {}", c.method, full, res.status, util::utf8_prefix(res.body, 300));
  if (!res.error.empty()) {
    r.status = CheckStatus::failed;
    r.message = res.error;
    return r;
  }
  const int want = c.expects.status.value_or(200);
  if (res.status != want) {
    r.status = CheckStatus::failed;
    r.message = fmt::format("status {} (expected {})", res.status, want);
    return r;
  }
  if (c.expects.body_json && !json_subset(*c.expects.body_json, res.body)) {
    r.status = CheckStatus::failed;
    r.message = fmt::format("body does not contain {}", *c.expects.body_json);
    return r;
  }
  if (c.expects.body_re) {
    const auto m = count_line_matches(res.body, *c.expects.body_re);
    if (!m.error.empty()) {
      r.status = CheckStatus::error;
      r.message = m.error;
      return r;
    }
    if (m.count == 0) {
      r.status = CheckStatus::failed;
      r.message = m.unsearched_line ? unsearched_message(m, "the response body", *c.expects.body_re)
                                    : fmt::format("body does not match /{}/", *c.expects.body_re);
      return r;
    }
  }
  r.message = fmt::format("status {}", res.status);
  return r;
}

} // namespace harness::verify::detail
