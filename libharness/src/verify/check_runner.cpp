#include "harness/verify/engine.hpp"

#include "harness/util/atomic_file.hpp"
#include "harness/worker/run_command.hpp"
#include "harness/worker/spawn.hpp"
#include "http_check.hpp"
#include "line_search.hpp"
#include "output_clue.hpp"
#include "check_port.hpp"
#include "ui_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>


namespace harness::verify {
namespace fs = std::filesystem;

namespace {

CheckResult fail(CheckStatus s, std::string message, std::string evidence = {}) {
  CheckResult r;
  r.status = s;
  r.message = std::move(message);
  r.evidence = std::move(evidence);
  return r;
}

int count_literal(std::string_view text, std::string_view needle) {
  int n = 0;
  for (size_t pos = 0; !needle.empty() && (pos = text.find(needle, pos)) != std::string_view::npos; pos += needle.size()) ++n;
  return n;
}

CheckResult file_contains(const spec::Check& c, const fs::path& root) {
  auto text = util::read_file(root / c.path);
  if (!text) return fail(CheckStatus::failed, fmt::format("{} does not exist", c.path));
  int n = 0;
  if (c.literal) {
    n = count_literal(*text, c.pattern);
  } else {
    const auto m = detail::count_line_matches(*text, c.pattern);
    if (!m.error.empty()) return fail(CheckStatus::error, m.error);
    // A line too long for the regex leaves a count unknown, and an absence unproven.
    if (m.unsearched_line && (c.count || m.count == 0)) return fail(CheckStatus::failed, detail::unsearched_message(m, c.path, c.pattern));
    n = m.count;
  }
  const std::string what = c.literal ? "'" + c.pattern + "'" : "/" + c.pattern + "/";
  if (c.count ? n != *c.count : n == 0)
    return fail(CheckStatus::failed,
                c.count ? fmt::format("{} found {} in {} (expected {})", what, n == 1 ? std::string("once") : fmt::format("{} times", n), c.path, *c.count)
                        : fmt::format("{} not found in {}", what, c.path));
  CheckResult r;
  r.evidence = fmt::format("{} matches of {} in {}", n, what, c.path);
  return r;
}

CheckResult command_check(const spec::Check& c, const fs::path& root, const VerifyOptions& opt) {
  worker::CommandRequest req;
  req.argv = c.command.argv;
  req.cwd = root;
  req.timeout = check_timeout(c, opt);
  req.max_output = opt.max_output;
  req.cancel = opt.cancel;
  if (!c.env.empty()) {
    auto env = worker::current_environment();
    for (const auto& [k, v] : c.env) env[k] = v;
    req.env = std::move(env);
  }
  auto res = worker::run_command(req);
  if (!res.started) return fail(CheckStatus::error, res.error);
  if (res.cancelled) return fail(CheckStatus::error, "cancelled: the run is stopping", res.output);
  CheckResult r;
  r.evidence = res.output;
  // What the command said last goes with its failure: the one line a person reads first.
  const auto said = [&](std::string message) {
    const auto clue = detail::output_clue(res.output);
    return clue.empty() || clue.find(message) != std::string::npos ? message : message + ": " + clue;
  };
  if (res.timed_out)
    return fail(CheckStatus::failed, said(fmt::format("timed out after {:.0f}s (process group killed)", res.seconds)), res.output);
  const int want = c.expects.exit_code.value_or(0);
  if (res.exit_code != want)
    return fail(CheckStatus::failed,
                said(res.signal ? fmt::format("killed by signal {}", res.signal)
                                : fmt::format("exit code {} (expected {})", res.exit_code, want)),
                res.output);
  // stdout and stderr arrive interleaved in one stream; both patterns search it.
  for (const auto* re : {&c.expects.stdout_re, &c.expects.stderr_re}) {
    if (!*re) continue;
    const auto m = detail::count_line_matches(res.output, **re);
    if (!m.error.empty()) return fail(CheckStatus::error, m.error);
    if (m.count == 0)
      return fail(CheckStatus::failed,
                  m.unsearched_line ? detail::unsearched_message(m, "the output", **re) : fmt::format("output does not match /{}/", **re),
                  res.output);
  }
  if (c.type == spec::CheckType::tests_pass) {
    auto counts = parse_test_counts(res.output);
    if (counts.found && counts.failed > 0)
      return fail(CheckStatus::failed, said(fmt::format("{} passed, {} failed", counts.passed, counts.failed)), res.output);
    r.message = counts.found ? fmt::format("{} passed, {} failed", counts.passed, counts.failed) : "exit code 0";
  } else {
    r.message = fmt::format("exit code {}", res.exit_code);
  }
  return r;
}

} // namespace

std::chrono::milliseconds check_timeout(const spec::Check& c, const VerifyOptions& opt) {
  if (!c.timeout_seconds) return opt.default_timeout;
  // Capped at a year: far beyond any check, and a huge double would overflow the conversion.
  const double seconds = std::min(*c.timeout_seconds, 365.0 * 24 * 3600);
  return std::chrono::ceil<std::chrono::milliseconds>(std::chrono::duration<double>(seconds));
}

namespace {
CheckResult run_one(const spec::Check& c, const fs::path& root, const VerifyOptions& opt) {
  CheckResult r;
  switch (c.type) {
  case spec::CheckType::file_exists: {
    std::error_code ec;
    r = fs::exists(root / c.path, ec) ? CheckResult{} : fail(CheckStatus::failed, fmt::format("{} does not exist", c.path));
    if (r.status == CheckStatus::passed) r.evidence = c.path + " exists";
    break;
  }
  case spec::CheckType::file_contains: r = file_contains(c, root); break;
  case spec::CheckType::command_output:
  case spec::CheckType::build_succeeds:
  case spec::CheckType::tests_pass: r = command_check(c, root, opt); break;
  case spec::CheckType::api_response: r = detail::run_api_response(c, root, opt); break;
  case spec::CheckType::ui_element_exists:
  case spec::CheckType::ui_navigation: r = detail::run_ui_check(c, root, opt); break;
  case spec::CheckType::visual_quality:
  case spec::CheckType::ux_flow: r = fail(CheckStatus::human, c.description); break;
  }
  return r;
}
} // namespace

CheckResult run_check(const spec::Check& c, const fs::path& root, const VerifyOptions& opt) {
  const auto t0 = std::chrono::steady_clock::now();
  CheckResult r;
  if (opt.cancel && opt.cancel->load()) {
    r = fail(CheckStatus::error, "cancelled: the run is stopping");
  } else if (spec::uses_port_placeholder(c)) {
    // A port of its own for each run of the check: see check_port.hpp.
    auto port = detail::free_local_port();
    r = port ? run_one(detail::with_port(c, *port), root, opt) : fail(CheckStatus::error, port.error());
  } else {
    r = run_one(c, root, opt);
  }
  r.id = c.id;
  r.type = std::string(spec::to_string(c.type));
  r.line = c.line;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

std::filesystem::path find_ui_driver(const std::filesystem::path& exe_dir, const std::filesystem::path& source_dir) {
  std::error_code ec;
  for (const auto& p : {exe_dir / ".." / "share" / "harness" / "ui_driver.cjs", source_dir / "libharness" / "data" / "ui_driver.cjs"})
    if (std::filesystem::exists(p, ec)) return std::filesystem::weakly_canonical(p, ec);
  return {};
}

} // namespace harness::verify
