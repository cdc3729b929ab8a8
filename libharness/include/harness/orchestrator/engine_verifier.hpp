#pragma once
// The Verifier the CLI uses: the verify module's engine for plan, phase and final gates.

#include "harness/orchestrator/verifier.hpp"
#include "harness/verify/engine.hpp"

#include <memory>

namespace harness::orchestrator {

/// `checks`: the engine's options for every gate (timeouts, the browser driver); the trailer
/// index is the run loop's.
std::unique_ptr<Verifier> make_engine_verifier(verify::VerifyOptions checks = {});

} // namespace harness::orchestrator
