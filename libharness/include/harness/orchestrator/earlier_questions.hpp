#pragma once
// A worker's question kept open after the run stopped that worker while it waited for the answer
// (an interrupt; store::CheckpointRecord::kept_for_task): the task's next worker must get the
// answer without the person answering twice. An agent does not ask again word for word, so the
// question and its answer (or that it is still unanswered) go into the next worker's task input;
// a worker that does ask the same again takes over the same checkpoint, and with it the answer.

#include "harness/store/checkpoint_files.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace harness::orchestrator {

/// A worker's question as the run words it for a person (before "<type>: "): a decision's
/// `question`; an action's "<action> (<reason>)"; a verification's "<what_built>: <how_to_verify>"
/// (the list as JSON). An empty reason or how_to_verify adds nothing, so that the payload
/// earlier_questions_input's `report_again` holds words the same as the question it carries.
std::string worker_question_text(std::string_view report_type, const boost::json::object& payload);

/// The task input's `earlier_questions`: for each kept question of the task, in the order given,
/// `{"checkpoint_id", "type", "question", "options"?, "answered", "answer"?, "what_to_do",
/// "report_again"?}`, where `report_again` (unanswered only) is the payload that asks the same
/// question again word for word (review NN F2: an action's or a verification's question is the
/// run's composition of several fields, which a worker could not take apart again), where
/// `type` is the report type it was asked with, `answer` what harness_worker_await would have
/// returned (store::worker_response: `{"choice": ...}`, `{"outcome": ...}`, `{"verdict": ...}`)
/// and `what_to_do` tells the worker to act on the answer, or to ask the same again to wait for it.
/// Pure: `questions` carry their answer as read now.
boost::json::array earlier_questions_input(const std::vector<store::CheckpointRecord>& questions);

/// Whether a new worker's question (`asks`, `question` as the run words it, `options`) is the kept
/// question `earlier` asked again: same kind, same words (their first 3,500 bytes: the run cuts a
/// question at 4,000), same options in the same order. Pure.
bool same_question(const store::CheckpointRecord& earlier, store::CheckpointAsks asks, std::string_view question,
                   const std::vector<std::string>& options);

} // namespace harness::orchestrator
