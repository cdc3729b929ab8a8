#pragma once
// What a person may answer to a checkpoint, and how a typed answer (`harness-cli respond ID
// ANSWER`, a line on the terminal) reads: approve or refuse a verification, pick one of a worker's
// options, say a requested action is done. A slip must not decide anything, so an answer the
// checkpoint does not take is refused with the list of those it does.

#include "harness/store/checkpoint_files.hpp"

#include <expected>
#include <string>
#include <string_view>
#include <vector>

namespace harness::store {

/// The answers a checkpoint lists in its file and in `respond --list --json`: approve, refuse for
/// an approval; done, refuse for an action; the worker's own options for a decision (refuse is
/// taken too, but is no option of the worker's).
std::vector<std::string> answer_options(CheckpointAsks asks, const std::vector<std::string>& options);

/// How to answer, for "-- answer with: harness-cli respond ID <forms>": "approve|refuse",
/// "done|refuse", "hello|hi|refuse" (each option quoted as a shell word when it needs it), or
/// "'<your answer>'|refuse" for a decision that offered no options.
std::string answer_forms(CheckpointAsks asks, const std::vector<std::string>& options);

/// Reads `text`, typed by a person, as an answer (blanks around it ignored):
/// - approval: protocol::parse_approval's words (y, yes, approve, ok / n, no, refuse, reject);
/// - action: those, and "done";
/// - decision: an option's exact text, else its 1-based number, else "refuse" (any case; not y/n,
///   which could be meant as an option); with no options offered any text is the choice.
/// The answer carries `choice` for a decision. The error names the answers it takes.
std::expected<CheckpointAnswer, std::string> read_typed_answer(CheckpointAsks asks, const std::vector<std::string>& options,
                                                              std::string_view text);

/// The answer in a word or two, for messages: "approve" ("done" to an action), "refuse", or the choice.
std::string answer_text(const CheckpointAnswer& answer, CheckpointAsks asks = CheckpointAsks::approval);

} // namespace harness::store
