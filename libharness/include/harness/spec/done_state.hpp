#pragma once
// What a spec's documents say is done: which plans are executed and verified, and which phase
// and final verifications still hold. One reading for every reader: `status`
// (graph::compute_progress) and `orchestrate` / `simulate` (sched::workload_from_spec) must never
// disagree about what is left to do.

#include "harness/spec/spec.hpp"

#include <map>
#include <optional>
#include <string>

namespace harness::spec {

/// A plan as its SUMMARY and its phase's verification leave it.
struct PlanDone {
  bool executed = false; ///< a SUMMARY exists and does not say `status: failed`
  bool failed = false;   ///< its SUMMARY says `status: failed`
  /// Executed, and its SUMMARY says `verification: passed` or its phase's verification passed
  /// and is current. A plan without a SUMMARY is never verified, whatever a VERIFICATION says.
  bool verified = false;
};

/// A phase's VERIFICATION.md or the FINAL-VERIFICATION.md, against the plans there are now.
struct GateDone {
  bool exists = false;
  std::optional<VerificationStatus> status; ///< as the file says (`passed` after a person's approval too)
  std::optional<HumanAnswer> answer;        ///< a person's recorded answer
  /// It verified exactly the plans there are now, each of them executed (a SUMMARY). A file that
  /// does not say which plans it covered is taken as covering the plans there are. A plan a run
  /// executed again after it was written (`executed_since`) is not covered by it. The final
  /// verification is not current either while a phase of the ROADMAP has no plans, or while a
  /// phase's current verification does not pass.
  bool current = false;
  std::string stale; ///< why it no longer holds ("01-03 added since"); empty when current or absent
  /// Current and passed (by its checks or by a person's approval): the gate is done.
  bool passed() const { return current && status == VerificationStatus::passed; }
};

struct DoneState {
  std::map<std::string, PlanDone> plans;  ///< every plan, by id
  std::map<PhaseNumber, GateDone> phases; ///< every phase that has plans or a VERIFICATION file
  GateDone final;
};

/// Reads the SUMMARY and VERIFICATION documents `spec` loaded. Pure: no file is read here.
DoneState read_done_state(const Spec& spec);

} // namespace harness::spec
