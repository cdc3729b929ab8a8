#include "harness/orchestrator/earlier_questions.hpp"

#include "harness/store/checkpoint_answers.hpp"

#include <boost/json/object.hpp>

namespace harness::orchestrator {
namespace json = boost::json;

namespace {

/// The report type a worker asks `asks` with.
std::string_view report_type(store::CheckpointAsks asks) {
  switch (asks) {
  case store::CheckpointAsks::decision: return "decision_needed";
  case store::CheckpointAsks::action: return "action_needed";
  case store::CheckpointAsks::approval: break;
  }
  return "verification_needed";
}

} // namespace

json::array earlier_questions_input(const std::vector<store::CheckpointRecord>& questions) {
  json::array out;
  for (const auto& q : questions) {
    const auto type = report_type(q.asks);
    // The run words a worker's question "<type>: <the worker's words>": the worker gets its own.
    std::string_view words = q.question;
    if (const std::string prefix = std::string(type) + ": "; words.starts_with(prefix)) words.remove_prefix(prefix.size());
    json::object o{{"checkpoint_id", q.id}, {"type", type}, {"question", words}, {"answered", bool(q.answer)}};
    if (!q.options.empty()) o["options"] = json::array(q.options.begin(), q.options.end());
    if (q.answer) {
      o["answer"] = store::worker_response(type, *q.answer);
      o["what_to_do"] = "An earlier worker of this task asked this and was stopped before the answer came; a person "
                        "has answered since. Act on this answer as harness_worker_await would have returned it; do "
                        "not ask it again.";
    } else {
      o["what_to_do"] = "An earlier worker of this task asked this and was stopped before the answer came; nobody has "
                        "answered yet. If you need the answer, report the same question again (same type, question "
                        "and options, word for word) and wait for it with harness_worker_await: it is the same open "
                        "question, so an answer given meanwhile comes back at once.";
    }
    out.push_back(std::move(o));
  }
  return out;
}

bool same_question(const store::CheckpointRecord& earlier, store::CheckpointAsks asks, std::string_view question,
                   const std::vector<std::string>& options) {
  return earlier.asks == asks && earlier.question == question && earlier.options == options;
}

} // namespace harness::orchestrator
