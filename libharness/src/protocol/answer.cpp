#include "harness/protocol/answer.hpp"

#include "harness/protocol/codec.hpp"

#include <boost/json.hpp>

namespace harness::protocol {
namespace {

bool says_yes(const std::string& w) {
  return w == "approved" || w == "approve" || w == "pass" || w == "passed" || w == "yes";
}

} // namespace

AnswerReading read_answer(MessageType type, std::string_view response_json) {
  boost::system::error_code ec;
  auto v = boost::json::parse(response_json, ec);
  const boost::json::object none;
  const auto& o = !ec && v.is_object() ? v.as_object() : none;
  const std::string verdict = field_text(o, "verdict"), choice = field_text(o, "choice"), outcome = field_text(o, "outcome"),
                    approved = field_text(o, "approved");
  bool refused = approved == "false" || choice == "refuse" || outcome == "refused";
  if (type == MessageType::verification_needed) refused = refused || !(says_yes(verdict) || approved == "true");
  AnswerReading r;
  r.approved = !refused;
  r.note = field_text(o, "feedback");
  if (r.note.empty()) r.note = field_text(o, "note");
  if (r.note.empty()) r.note = !choice.empty() ? choice : outcome;
  return r;
}

} // namespace harness::protocol
