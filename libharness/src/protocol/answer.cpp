#include "harness/protocol/answer.hpp"

#include <boost/json.hpp>

namespace harness::protocol {
namespace {

std::string text(const boost::json::object& o, std::string_view key) {
  auto it = o.find(key);
  if (it == o.end()) return {};
  return it->value().is_string() ? std::string(it->value().as_string()) : boost::json::serialize(it->value());
}

bool says_yes(const std::string& w) {
  return w == "approved" || w == "approve" || w == "pass" || w == "passed" || w == "yes";
}

} // namespace

AnswerReading read_answer(MessageType type, std::string_view response_json) {
  boost::system::error_code ec;
  auto v = boost::json::parse(response_json, ec);
  const boost::json::object none;
  const auto& o = !ec && v.is_object() ? v.as_object() : none;
  const std::string verdict = text(o, "verdict"), choice = text(o, "choice"), outcome = text(o, "outcome"),
                    approved = text(o, "approved");
  bool refused = approved == "false" || choice == "refuse" || outcome == "refused";
  if (type == MessageType::verification_needed) refused = refused || !(says_yes(verdict) || approved == "true");
  AnswerReading r;
  r.approved = !refused;
  r.note = text(o, "feedback");
  if (r.note.empty()) r.note = text(o, "note");
  if (r.note.empty()) r.note = !choice.empty() ? choice : outcome;
  return r;
}

} // namespace harness::protocol
