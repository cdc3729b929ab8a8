#pragma once
// How a free-form answer to a worker's question (harness_respond's `response` object) reads as a
// checkpoint outcome. Answers come from people and from other agents, so the reading is strict
// where a wrong "yes" costs most: a verification passes only when the answer says so.

#include <optional>
#include <string>
#include <string_view>

#include "harness/protocol/message.hpp"

namespace harness::protocol {

struct AnswerReading {
  bool approved = false;
  std::string note; ///< feedback, note, or the choice/outcome given; empty when none
};

/// Reads `response_json` (a JSON object; anything else carries no answer) as the answer to a
/// question of type `type`:
/// - verification_needed: approved only with `verdict` approved/approve/pass/passed/yes or
///   `approved: true`;
/// - decision_needed: approved unless `choice` is "refuse";
/// - action_needed: approved unless `outcome` is "refused";
/// - `approved: false` refuses any of them.
AnswerReading read_answer(MessageType type, std::string_view response_json);

/// A typed answer to an approve-or-refuse question (the terminal prompt, `harness-cli respond`),
/// read without regard to case or surrounding blanks: y, yes, approve, approved, ok approve;
/// n, no, refuse, refused, reject, rejected refuse. Anything else, an empty line included, is no
/// answer (nullopt): a slip of the keyboard must not decide a checkpoint, so the caller asks again.
std::optional<bool> parse_approval(std::string_view text);

} // namespace harness::protocol
