#pragma once
// What a person may answer to a checkpoint, and how a typed answer (`harness-cli respond ID
// ANSWER`, a line on the terminal) reads: approve or refuse a verification, pick one of a worker's
// options, say a requested action is done. A slip must not decide anything, so an answer the
// checkpoint does not take is refused with the list of those it does.

#include "harness/store/checkpoint_files.hpp"

#include <boost/json/object.hpp>

#include <expected>
#include <optional>
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

/// Reads `response`, harness_respond's object, as an answer to a checkpoint that asks `asks`, the
/// way `harness-cli respond` reads the same answer typed:
/// - approval: `{"answer": word}` as read_typed_answer reads the word; else as strictly as a
///   verification (protocol::read_answer): approved only with a `verdict` that says so;
/// - decision: `{"choice": text}` (the worker's own form; or `answer`) as read_typed_answer reads it;
/// - action: `{"outcome": "done" | "refused"}` (or `answer`), likewise.
/// `approved: false` refuses a decision or an action; `note` (or `feedback`) is kept as the note.
/// A decision or action without its field decides nothing: the error names the answers it takes.
std::expected<CheckpointAnswer, std::string> read_response_answer(CheckpointAsks asks, const std::vector<std::string>& options,
                                                                 const boost::json::object& response);

/// What a worker's question (`verification_needed`, `decision_needed`, `action_needed`) takes as an
/// answer: its kind and, for a decision, the options of its payload. nullopt for any other type.
struct WorkerQuestionForm {
  CheckpointAsks asks = CheckpointAsks::approval;
  std::vector<std::string> options;
};
std::optional<WorkerQuestionForm> worker_question_form(std::string_view type, const boost::json::object& payload);

/// The response the worker's harness_worker_await returns for `answer` to a question of `type`:
/// `{verdict, feedback}` for a verification, `{choice, note}` for a decision (the option chosen),
/// `{outcome, note}` for an action. Whoever answers (the run, harness_respond) sends the same form.
boost::json::object worker_response(std::string_view type, const CheckpointAnswer& answer);

/// The answer in a word or two, for messages: "approve" ("done" to an action), "refuse", or the choice.
std::string answer_text(const CheckpointAnswer& answer, CheckpointAsks asks = CheckpointAsks::approval);

} // namespace harness::store
