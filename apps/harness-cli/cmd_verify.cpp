// harness-cli verify SPEC_DIR [PLAN_ID | --phase N | --final] [--json]
// Exit 0 passed, 1 gaps found (or git cannot read the history), 3 waiting for a human, 2 invalid input.
#include "commands.hpp"
#include "self_dir.hpp"
#include "load_valid_spec.hpp"
#include "print_error.hpp"

#include "harness/spec/report.hpp"
#include "harness/spec/spec.hpp"
#include "harness/util/text.hpp"
#include "harness/verify/engine.hpp"
#include "harness/worker/git_history.hpp"

#include <iostream>
#include <fmt/format.h>

#include <memory>

namespace harness::cli {

void add_verify(CLI::App& app, ExitCode& exit) {
  struct Options {
    std::string spec_dir;
    std::string plan;
    std::string phase;
    bool final = false;
    bool json = false;
  };
  auto opt = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("verify", "Run a plan's, a phase's or every check and write VERIFICATION.md");
  cmd->add_option("SPEC_DIR", opt->spec_dir, "spec directory")->required();
  cmd->add_option("PLAN_ID", opt->plan, "verify one plan (e.g. 02-01)");
  cmd->add_option("--phase", opt->phase, "verify a phase and write its VERIFICATION.md");
  cmd->add_flag("--final", opt->final, "verify every phase and write FINAL-VERIFICATION.md");
  cmd->add_flag("--json", opt->json, "print the report as JSON");
  cmd->callback([opt, &exit] {
    const Output output = opt->json ? Output::json : Output::text;
    auto spec = load_valid_spec(opt->spec_dir, exit, output);
    if (!spec) return;
    if ((!opt->plan.empty()) + (!opt->phase.empty()) + opt->final != 1) {
      print_error("give exactly one of PLAN_ID, --phase N, --final", output);
      exit.value = 2;
      return;
    }
    verify::VerifyOptions checks;
    checks.ui_driver = verify::find_ui_driver(self_dir(), HARNESS_SOURCE_DIR);
    // A git that refuses the repository would make every plan's commits look missing: its
    // message is the answer, and no VERIFICATION file is written on it.
    const auto depth = worker::history_depth(spec->layout.project_root);
    if (!depth) {
      print_error(depth.error(), output);
      exit.value = 1;
      return;
    }
    checks.history = *depth;
    verify::Report report;
    std::string written;
    std::optional<spec::HumanAnswer> kept;
    std::optional<verify::DroppedApproval> dropped; // an approval that no longer holds
    if (!opt->plan.empty()) {
      const auto* plan = spec->find_plan(opt->plan);
      if (!plan) {
        print_error("no plan " + opt->plan, output);
        exit.value = 2;
        return;
      }
      report = verify::verify_plan(*spec, *plan, checks);
    } else {
      std::optional<spec::PhaseNumber> phase;
      if (!opt->final) {
        phase = spec::parse_phase_number(opt->phase);
        if (!phase || !spec->layout.find_phase(*phase)) {
          print_error("no phase " + opt->phase, output);
          exit.value = 2;
          return;
        }
      }
      report = phase ? verify::verify_phase(*spec, *phase, checks) : verify::verify_final(*spec, checks);
      auto file = verify::write_report(*spec, phase, report, verify::KeepApproval::when_unchanged);
      if (!file) {
        print_error(file.error(), output);
        exit.value = 1;
        return;
      }
      if (!file->file.empty()) written = spec->layout.relative(file->file); // empty: a shallow clone's, not written
      kept = file->kept_approval;
      dropped = file->dropped_approval;
    }
    const bool cut = verify::history_cut(report);
    if (opt->json) std::cout << verify::report_json(report, kept, dropped);
    else {
      for (const auto& r : report.results)
        std::cout << fmt::format("{:<8} {:<7} {:<24} {}\n", verify::to_string(r.status), r.plan, r.id,
                                 r.message.empty() ? std::string(util::utf8_prefix(r.evidence, 100)) : r.message);
      if (cut)
        std::cout << fmt::format("{}: not verifiable here ({}/{} passed): the clone is shallow and lacks plans' commits; "
                                 "{}, then verify again{}\n",
                                 report.level, report.passed(), report.total(), worker::unshallow_fix,
                                 opt->plan.empty() ? " (nothing written)" : "");
      else
        std::cout << fmt::format("{}: {} ({}/{} passed){}\n", report.level, spec::to_string(report.status),
                                 report.passed(), report.total(), written.empty() ? "" : ", wrote " + written);
      if (kept)
        std::cout << fmt::format("kept the approval by {} at {}: the checks found the same as when it was given, so "
                                 "{} still says passed (delete it to be asked again)\n",
                                 kept->by, kept->at, written);
      if (dropped)
        std::cout << fmt::format("the approval by {} at {} no longer holds: {}; {} is written without it and the next "
                                 "run asks again\n",
                                 dropped->answer.by, dropped->answer.at, dropped->reason, written);
    }
    // A person's approval that still holds makes it passed, as the file says.
    const auto status = kept ? spec::VerificationStatus::passed : report.status;
    exit.value = status == spec::VerificationStatus::passed        ? 0
                 : status == spec::VerificationStatus::human_needed ? 3
                                                                    : 1;
  });
}

} // namespace harness::cli
