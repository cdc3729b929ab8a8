#pragma once
// The Verifier the CLI uses: the verify module's engine for plan, phase and final gates.

#include "harness/orchestrator/verifier.hpp"

#include <memory>

namespace harness::orchestrator {

std::unique_ptr<Verifier> make_engine_verifier();

} // namespace harness::orchestrator
