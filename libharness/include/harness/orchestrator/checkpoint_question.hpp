#pragma once
// What a checkpoint asks a person, in words: the line `orchestrate` prints when it opens one, the
// question on the terminal, in `respond --list` and in harness_get_pending.

#include "harness/sched/types.hpp"

#include <string>
#include <vector>

namespace harness::orchestrator {

/// The question behind the scheduler's ask_human action `a`: what waits for the person and what
/// an approval or a refusal does ("verification of 02-03: automated checks passed (2/2 checks
/// passed)", "phase 03 needs a person: ..."). `findings`: what the loop that ran out of rounds
/// last found (the plan checker's findings, the phase verification's gaps), named in the question
/// so that the person has something to judge by; up to three, clipped. Pure.
std::string checkpoint_question(const sched::Action& a, const std::vector<std::string>& findings = {});

/// The event line's text for an open checkpoint: the question and how to answer it; `forms` is
/// store::answer_forms of the checkpoint ("approve|refuse", a worker's options, ...).
std::string checkpoint_opened_message(const std::string& question, const std::string& checkpoint_id,
                                      const std::string& forms = "approve|refuse");

} // namespace harness::orchestrator
