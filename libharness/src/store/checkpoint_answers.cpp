#include "harness/store/checkpoint_answers.hpp"

#include "harness/protocol/answer.hpp"
#include "harness/protocol/codec.hpp"
#include "harness/util/shell_words.hpp"
#include "harness/util/text.hpp"

#include <boost/json/serialize.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace harness::store {
namespace {

using util::trim_space;

bool is_word(std::string_view text, std::string_view word) {
  return text.size() == word.size() && std::equal(text.begin(), text.end(), word.begin(), [](char a, char b) {
           return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
         });
}

/// An option as a person is shown it: one line, no escape sequences (answer_forms).
std::string shown(const std::string& option) { return util::clipped(util::printable(option, false), 200); }

/// "1 'hello', 2 'hi'": the options with the numbers respond takes for them, as they are shown.
std::string numbered(const std::vector<std::string>& options) {
  std::string out;
  for (std::size_t i = 0; i < options.size(); ++i)
    out += fmt::format("{}{} {}", i ? ", " : "", i + 1, util::quote_shell_word(shown(options[i])));
  return out;
}

std::expected<CheckpointAnswer, std::string> read_decision(const std::vector<std::string>& options, std::string_view text) {
  CheckpointAnswer a;
  a.approved = true;
  if (auto it = std::find(options.begin(), options.end(), text); it != options.end()) {
    a.choice = *it;
    return a;
  }
  // As `respond --list` showed it: a worker's option with a line break or an escape sequence
  // (review OO F8). The worker gets its own text.
  if (auto it = std::ranges::find_if(options, [&](const std::string& o) { return shown(o) == text; }); it != options.end()) {
    // Two options shown alike ('a\nx' and 'a\tx' both read 'a x'): which one was meant is not
    // known (review QQ F7).
    if (std::ranges::count_if(options, [&](const std::string& o) { return shown(o) == text; }) > 1)
      return std::unexpected(fmt::format("answer '{}' reads like more than one of the worker's options: {}; answer with "
                                         "its number",
                                         util::printable(text, false), numbered(options)));
    a.choice = *it;
    return a;
  }
  if (!text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }) && text.size() < 4) {
    const auto n = static_cast<std::size_t>(std::stoul(std::string(text)));
    if (n >= 1 && n <= options.size()) {
      a.choice = options[n - 1];
      return a;
    }
  }
  if (is_word(text, "refuse")) return CheckpointAnswer{};
  if (options.empty() && !text.empty()) {
    a.choice = std::string(text);
    return a;
  }
  if (options.empty()) return std::unexpected(std::string("the worker asked an open question: answer it in words, or refuse"));
  return std::unexpected(fmt::format("answer '{}' is none of the worker's options: {} (the option's text or its number), "
                                     "or refuse to block the task",
                                     util::printable(text, false), numbered(options)));
}

} // namespace

std::vector<std::string> answer_options(CheckpointAsks asks, const std::vector<std::string>& options) {
  switch (asks) {
  case CheckpointAsks::decision: return options;
  case CheckpointAsks::action: return {"done", "refuse"};
  case CheckpointAsks::approval: break;
  }
  return {"approve", "refuse"};
}

std::string answer_forms(CheckpointAsks asks, const std::vector<std::string>& options) {
  if (asks != CheckpointAsks::decision) {
    const auto words = answer_options(asks, options);
    return words[0] + "|" + words[1];
  }
  if (options.empty()) return "'<your answer>'|refuse";
  std::string out;
  // Shown to a person: a worker's line breaks and escape sequences do not reach the terminal (an
  // option so written is answered by its number).
  for (const auto& o : options) out += util::quote_shell_word(shown(o)) + "|";
  return out + "refuse";
}

std::expected<CheckpointAnswer, std::string> read_typed_answer(CheckpointAsks asks, const std::vector<std::string>& options,
                                                              std::string_view text) {
  text = trim_space(text);
  if (asks == CheckpointAsks::decision) return read_decision(options, text);
  auto yes = protocol::parse_approval(text);
  if (!yes && asks == CheckpointAsks::action && is_word(text, "done")) yes = true;
  if (!yes)
    return std::unexpected(asks == CheckpointAsks::action
                               ? fmt::format("answer '{}' is not done or refuse (done: you did what the worker asked)", text)
                               : fmt::format("answer '{}' is not approve or refuse", text));
  CheckpointAnswer a;
  a.approved = *yes;
  return a;
}

std::expected<CheckpointAnswer, std::string> read_response_answer(CheckpointAsks asks, const std::vector<std::string>& options,
                                                                 const boost::json::object& response) {
  std::string note = protocol::field_text(response, "note");
  if (note.empty()) note = protocol::field_text(response, "feedback");
  auto with_note = [&](std::expected<CheckpointAnswer, std::string> a) {
    if (a) a->note = note;
    return a;
  };
  // A word is read as `respond` reads it, whatever the checkpoint asks.
  const std::string field = asks == CheckpointAsks::decision ? "choice" : asks == CheckpointAsks::action ? "outcome" : "answer";
  std::string text = protocol::field_text(response, field);
  if (text.empty()) text = protocol::field_text(response, "answer");
  if (asks == CheckpointAsks::approval && text.empty()) {
    const auto reading = protocol::read_answer(protocol::MessageType::verification_needed, boost::json::serialize(response));
    return CheckpointAnswer{reading.approved, reading.note, "", ""};
  }
  if (asks != CheckpointAsks::approval && protocol::field_text(response, "approved") == "false") return with_note(CheckpointAnswer{});
  if (text.empty())
    return std::unexpected(fmt::format("the worker's {} takes {{\"{}\": ...}} with one of {}",
                                       asks == CheckpointAsks::decision ? "decision" : "action", field, answer_forms(asks, options)));
  return with_note(read_typed_answer(asks, options, text));
}

std::optional<WorkerQuestionForm> worker_question_form(std::string_view type, const boost::json::object& payload) {
  WorkerQuestionForm form;
  if (type == "verification_needed") return form;
  if (type == "action_needed") {
    form.asks = CheckpointAsks::action;
    return form;
  }
  if (type != "decision_needed") return std::nullopt;
  form.asks = CheckpointAsks::decision;
  if (const auto* opts = payload.if_contains("options"); opts && opts->is_array())
    for (const auto& x : opts->as_array())
      if (x.is_string() && !x.as_string().empty()) form.options.emplace_back(x.as_string()); // as offered: the answer names it
  return form;
}

boost::json::object worker_response(std::string_view type, const CheckpointAnswer& answer) {
  const std::string& note = answer.note;
  if (type == "verification_needed") return {{"verdict", answer.approved ? "approved" : "rejected"}, {"feedback", note}};
  // A decision's answer is the option chosen; an answer without one (an approval typed before
  // options were shown, or written by an older harness) keeps the old reading: the note, or approve.
  if (type == "decision_needed")
    return {{"choice", !answer.approved ? "refuse" : !answer.choice.empty() ? answer.choice : note.empty() ? "approve" : note},
            {"note", note}};
  return {{"outcome", answer.approved ? "done" : "refused"}, {"note", note}}; // `respond ID done --note ...`
}

std::string answer_text(const CheckpointAnswer& answer, CheckpointAsks asks) {
  if (!answer.choice.empty()) return answer.choice;
  if (!answer.approved) return "refuse";
  return asks == CheckpointAsks::action ? "done" : "approve";
}

} // namespace harness::store
