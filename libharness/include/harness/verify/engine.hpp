#pragma once
// The verification engine: runs `must_pass` checks, GSD `must_haves` and the commit-trailer check
// against the project, at plan, phase and final level. Commands run with argv (a shell only when
// the check says `shell: true`), in the project root, each in its own process group with a
// timeout (default 10 minutes) that kills the group.

#include "harness/spec/spec.hpp"
#include "harness/verify/result.hpp"
#include "harness/worker/git.hpp"
#include "harness/worker/git_history.hpp"
#include "harness/worker/trailers.hpp"

#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <optional>

namespace harness::verify {

struct VerifyOptions {
  std::chrono::seconds default_timeout{600};
  size_t max_output = 16 * 1024;     ///< evidence cap per check
  bool check_commits = true;          ///< plan level: trailer commits must exist
  /// Phase and final: a plan whose SUMMARY is not in the work tree is a gap (check `summary`).
  /// The orchestrator's gates ask for it: they verify plans it saw executed, so a SUMMARY missing
  /// then was deleted meanwhile, and a report saying `passed` would hold for nobody (`status`
  /// reads such a plan as not executed). Off for `harness-cli verify`, which may look at a phase
  /// before all its plans ran.
  bool check_summaries = false;
  /// A shallow clone: a plan none of whose commits is found may have them beyond the boundary,
  /// so its `commits` check says the history is not readable here instead of failing
  /// (CheckResult::history_cut). `harness-cli verify` asks git (worker::history_depth).
  worker::HistoryDepth history = worker::HistoryDepth::whole;
  /// Trailer commits already read (the orchestrator keeps one fresh); null: read the history.
  const worker::TrailerIndex* trailers = nullptr;
  /// ui_element_exists / ui_navigation: the browser driver script (ui_driver.cjs, installed in
  /// share/harness/); empty: those checks end in `error` saying so.
  std::filesystem::path ui_driver;
  /// Set by another thread to stop: a running command or browser check is stopped with its
  /// process group and every check after it ends in `error` "cancelled". Null: never.
  const std::atomic<bool>* cancel = nullptr;
};

/// Where ui_driver.cjs is for a program at `exe_dir`: <exe_dir>/../share/harness/ui_driver.cjs
/// when installed, else `source_dir`/libharness/data/ui_driver.cjs; empty when neither exists.
std::filesystem::path find_ui_driver(const std::filesystem::path& exe_dir, const std::filesystem::path& source_dir);

/// The time `check` may take: its `timeout`, else `opt.default_timeout`. Milliseconds, rounded
/// up: `timeout: 0.5` or `500ms` must not become zero seconds.
std::chrono::milliseconds check_timeout(const spec::Check& check, const VerifyOptions& opt);

/// Runs one check in `project_root`.
CheckResult run_check(const spec::Check& check, const std::filesystem::path& project_root, const VerifyOptions& opt);

/// Plan level: its must_pass checks, must_haves, and its trailer commits.
Report verify_plan(const spec::Spec& spec, const spec::Plan& plan, const VerifyOptions& opt = {});
/// Phase level: every plan of the phase again (the phase as integrated) plus the ROADMAP's
/// success criteria as informational items.
Report verify_phase(const spec::Spec& spec, spec::PhaseNumber phase, const VerifyOptions& opt = {});
/// Final: every plan of every phase.
Report verify_final(const spec::Spec& spec, const VerifyOptions& opt = {});

/// A VERIFICATION file write_report wrote.
struct WrittenReport {
  std::filesystem::path file; ///< empty: nothing written (the report's history is cut, history_cut)
  /// The approval a person gave the previous version of the file, carried over because the
  /// checks found the same thing again (approval_still_holding): the file says `passed`.
  std::optional<spec::HumanAnswer> kept_approval;
  /// The approval the previous version recorded that no longer holds, and why: the file is
  /// written without it and the next run asks again.
  std::optional<DroppedApproval> dropped_approval;
};

/// Whether write_report carries a person's approval of the file's previous version over.
enum class KeepApproval { no, when_unchanged };

/// Writes the phase's VERIFICATION.md (or FINAL-VERIFICATION.md for `phase` = nullopt) atomically.
/// With KeepApproval::when_unchanged, a person's approval of the previous version stays while the
/// checks find the same thing in the same work (`harness-cli verify` looking again at what a
/// person accepted; approval_still_holding). The
/// orchestrator passes `no`: it verifies a phase again only when its work changed (a plan added
/// or run again), and then a person must look again.
std::expected<WrittenReport, std::string> write_report(const spec::Spec& spec, std::optional<spec::PhaseNumber> phase,
                                                       const Report& report, KeepApproval keep = KeepApproval::no);

/// Counts a test runner printed ("N passed", ctest, Catch2, unittest), if any.
struct TestCounts {
  int passed = 0;
  int failed = 0;
  bool found = false;
};
TestCounts parse_test_counts(std::string_view output);

} // namespace harness::verify
