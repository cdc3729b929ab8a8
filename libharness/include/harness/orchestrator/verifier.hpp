#pragma once
// What the run loop needs from verification: plan, phase and final gates. Called on a thread of
// the verification pool, never on the loop's thread; implementations write VERIFICATION files.

#include "harness/sched/types.hpp"
#include "harness/spec/spec.hpp"
#include "harness/worker/git.hpp"
#include "harness/worker/trailers.hpp"

#include <atomic>
#include <string>
#include <vector>

namespace harness::orchestrator {

struct VerifyOutcome {
  sched::Verdict verdict = sched::Verdict::passed; ///< passed | gaps_found | human_needed
  bool failed = false;   ///< plan level: a check failed (the execute is retried)
  std::string message;   ///< one line for the display
  std::string report_error = {}; ///< phase and final level: the VERIFICATION report could not be written: why
  /// Phase and final level: the plans whose SUMMARY is gone from the work tree (the report has
  /// them as gaps). No gap-closure plan brings a record back: the run blocks the gate instead.
  std::vector<std::string> missing_summaries = {};
};

class Verifier {
public:
  virtual ~Verifier() = default;
  /// The run loop's trailer index (kept fresh before each gate), so plan checks need not walk
  /// the whole history for every plan. Null: implementations read it themselves.
  void set_trailer_index(const worker::TrailerIndex* trailers) { m_trailers = trailers; }
  /// The run's stop-now flag (a second Ctrl-C): a verification in progress stops its commands
  /// and writes nothing. Null: never.
  void set_cancel(const std::atomic<bool>* cancel) { m_cancel = cancel; }
  virtual VerifyOutcome verify_plan(const spec::Spec& spec, const spec::Plan& plan) = 0;
  virtual VerifyOutcome verify_phase(const spec::Spec& spec, spec::PhaseNumber phase) = 0;
  virtual VerifyOutcome verify_final(const spec::Spec& spec) = 0;

protected:
  const worker::TrailerIndex* trailer_index() const { return m_trailers; }
  const std::atomic<bool>* cancel_flag() const { return m_cancel; }
  bool cancelled() const { return m_cancel && m_cancel->load(); }

private:
  const worker::TrailerIndex* m_trailers = nullptr;
  const std::atomic<bool>* m_cancel = nullptr;
};

} // namespace harness::orchestrator
