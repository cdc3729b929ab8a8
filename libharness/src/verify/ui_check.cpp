// Browser checks: the engine starts the check's server (if any), then `node ui_driver.cjs '<json>'`
// in the project root, in a process group of its own that the timeout kills with the browser,
// and reads the driver's one-line JSON verdict.
#include "ui_check.hpp"

#include "http_check.hpp"

#include "harness/util/text.hpp"
#include "harness/worker/run_command.hpp"
#include "harness/worker/spawn.hpp"

#include <boost/json.hpp>
#include <fmt/format.h>

namespace harness::verify::detail {
namespace json = boost::json;

std::string ui_driver_input(const spec::Check& c, std::chrono::milliseconds timeout) {
  json::array steps;
  for (const auto& s : c.steps) steps.push_back(json::object{{"action", s.action}, {"selector", s.selector}, {"value", s.value}});
  json::object expects;
  if (c.expects.url) expects["url"] = *c.expects.url;
  if (c.expects.text) expects["text"] = *c.expects.text;
  return json::serialize(json::object{{"type", spec::to_string(c.type)}, {"url", c.url}, {"selector", c.selector},
                                      {"steps", std::move(steps)}, {"expects", std::move(expects)},
                                      {"timeout_ms", timeout.count()}});
}

CheckResult run_ui_check(const spec::Check& c, const std::filesystem::path& root, const VerifyOptions& opt) {
  CheckResult r;
  auto error = [&](std::string message) {
    r.status = CheckStatus::error;
    r.message = std::move(message);
    return r;
  };
  std::error_code ec;
  if (opt.ui_driver.empty() || !std::filesystem::exists(opt.ui_driver, ec))
    return error("browser checks need harness's ui_driver.cjs (share/harness/ of the installation); reinstall harness");
  const auto node = worker::find_program("node");
  if (node.empty()) return error("browser checks need Node.js (apt-get install nodejs), playwright-core and Chromium");
  const auto timeout = check_timeout(c, opt);
  auto server = serve_and_wait(c, root, c.url, timeout);
  if (!server) return error(server.error());
  worker::CommandRequest req;
  req.argv = {node.string(), opt.ui_driver.string(), ui_driver_input(c, timeout)};
  req.cwd = root;
  req.timeout = timeout + std::chrono::seconds(15); // the driver's own waits end first, with a message
  req.max_output = opt.max_output;
  req.cancel = opt.cancel;
  const auto run = worker::run_command(req);
  if (run.cancelled) return error("cancelled: the run is stopping");
  if (run.timed_out) {
    r.status = CheckStatus::failed;
    r.message = fmt::format("the browser did not finish within {:g} s (stopped with its process group)", static_cast<double>(req.timeout.count()) / 1000);
    return r;
  }
  // The verdict is the driver's last line; anything before it (warnings) is evidence.
  std::string_view out = run.output;
  while (!out.empty() && out.back() == '\n') out.remove_suffix(1);
  const size_t nl = out.rfind('\n');
  boost::system::error_code jec;
  auto verdict = json::parse(nl == std::string_view::npos ? out : out.substr(nl + 1), jec);
  if (jec || !verdict.is_object())
    return error(fmt::format("the browser driver failed (exit {}): {}", run.exit_code, util::utf8_prefix(run.output, 500)));
  const auto& v = verdict.as_object();
  auto str = [&](const char* k) { return v.contains(k) && v.at(k).is_string() ? std::string(v.at(k).as_string()) : std::string(); };
  const auto status = str("status");
  r.status = status == "passed" ? CheckStatus::passed : status == "failed" ? CheckStatus::failed : CheckStatus::error;
  r.message = str("message");
  r.evidence = str("evidence").empty() ? str("final_url") : str("evidence");
  return r;
}

} // namespace harness::verify::detail
