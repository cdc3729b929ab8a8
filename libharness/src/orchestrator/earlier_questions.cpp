#include "harness/orchestrator/earlier_questions.hpp"

#include "harness/protocol/codec.hpp"
#include "harness/store/checkpoint_answers.hpp"
#include "harness/util/text.hpp"

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

/// The payload of `type` whose worker_question_text is `words`.
json::object asking_again(std::string_view type, std::string_view words, const std::vector<std::string>& options) {
  if (type == "decision_needed") return {{"question", words}, {"options", json::array(options.begin(), options.end())}};
  if (type == "action_needed") return {{"action", words}, {"reason", ""}};
  return {{"what_built", words}, {"how_to_verify", json::array()}};
}

} // namespace

std::string worker_question_text(std::string_view report_type, const json::object& payload) {
  const auto text = [&](std::string_view key) { return protocol::field_text(payload, key); };
  if (report_type == "decision_needed") return text("question");
  if (report_type == "action_needed") {
    const auto reason = text("reason");
    return reason.empty() ? text("action") : text("action") + " (" + reason + ")";
  }
  const auto* how = payload.if_contains("how_to_verify");
  const bool none = !how || how->is_null() || (how->is_array() && how->as_array().empty()) ||
                    (how->is_string() && how->as_string().empty());
  return none ? text("what_built") : text("what_built") + ": " + text("how_to_verify");
}

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
      o["report_again"] = asking_again(type, words, q.options);
      o["what_to_do"] = "An earlier worker of this task asked this and was stopped before the answer came; nobody has "
                        "answered yet. If you need the answer, report it again: type as given, report_again as the "
                        "payload, unchanged; then wait for it with harness_worker_await: it is the same open "
                        "question, so an answer given meanwhile comes back at once.";
    }
    out.push_back(std::move(o));
  }
  return out;
}

bool same_question(const store::CheckpointRecord& earlier, store::CheckpointAsks asks, std::string_view question,
                   const std::vector<std::string>& options) {
  // The run keeps a question's first 4,000 bytes and says how many more there were; a long one
  // asked again from those words is cut again, with another count (review OO F6). What both keep
  // decides: far longer than any two different questions share.
  constexpr std::size_t compared = 3500;
  return earlier.asks == asks && earlier.options == options &&
         util::utf8_prefix(earlier.question, compared) == util::utf8_prefix(question, compared);
}

} // namespace harness::orchestrator
