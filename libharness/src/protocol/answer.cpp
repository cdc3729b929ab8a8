#include "harness/protocol/answer.hpp"

#include "harness/protocol/codec.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <array>
#include <cctype>

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

std::optional<bool> parse_approval(std::string_view text) {
  auto blank = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  while (!text.empty() && blank(text.front())) text.remove_prefix(1);
  while (!text.empty() && blank(text.back())) text.remove_suffix(1);
  std::string word(text);
  std::transform(word.begin(), word.end(), word.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  static constexpr std::array<std::string_view, 5> yes{"y", "yes", "approve", "approved", "ok"};
  static constexpr std::array<std::string_view, 6> no{"n", "no", "refuse", "refused", "reject", "rejected"};
  if (std::find(yes.begin(), yes.end(), word) != yes.end()) return true;
  if (std::find(no.begin(), no.end(), word) != no.end()) return false;
  return std::nullopt;
}

} // namespace harness::protocol
