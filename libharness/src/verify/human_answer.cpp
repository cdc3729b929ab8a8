#include "harness/verify/human_answer.hpp"

#include "harness/spec/document_parsers.hpp"
#include "harness/spec/frontmatter_writer.hpp"
#include "harness/util/atomic_file.hpp"

#include <boost/json.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <vector>

namespace harness::verify {
namespace {

constexpr std::string_view answered_heading = "\n## Answered by a person\n";

/// What the checks reported below the table: the gaps and the items for a person, up to the
/// answer a person gave (the table itself carries timings, which differ every run).
std::string_view findings(std::string_view text) {
  const auto gaps = text.find("\n## Gaps\n");
  if (gaps == std::string_view::npos) return {};
  text.remove_prefix(gaps);
  return text.substr(0, text.find(answered_heading));
}

} // namespace

std::vector<spec::FrontmatterUpdate> answer_frontmatter(const spec::HumanAnswer& a) {
  // JSON strings are valid YAML double-quoted scalars, whatever a note contains.
  auto quoted = [](std::string_view s) { return boost::json::serialize(boost::json::string(s)); };
  const std::string verb = a.approved ? "approved" : "refused";
  std::vector<spec::FrontmatterUpdate> out = {{verb + "_by", quoted(a.by)}, {verb + "_at", quoted(a.at)}};
  if (!a.note.empty()) out.push_back({a.approved ? "approval_note" : "refusal_note", quoted(a.note)});
  return out;
}

std::expected<std::string, std::string> with_human_answer(std::string_view text, const std::string& display_path,
                                                          const spec::HumanAnswer& a) {
  std::vector<spec::Diagnostic> ignored;
  const auto v = spec::parse_verification(text, display_path, ignored);
  const std::string verb = a.approved ? "approved" : "refused";
  std::vector<spec::FrontmatterUpdate> updates;
  if (a.approved && v.status && *v.status != spec::VerificationStatus::passed)
    updates.push_back({"checks_status", std::string(spec::to_string(*v.status))});
  if (a.approved) updates.push_back({"status", "passed"});
  std::ranges::move(answer_frontmatter(a), std::back_inserter(updates));
  auto updated = spec::update_frontmatter(text, updates);
  if (!updated) return std::unexpected(display_path + ": " + updated.error());
  // The section is the body's last: an answer recorded again replaces it.
  if (const auto at = updated->find(answered_heading); at != std::string::npos) updated->erase(at);
  const auto found = a.approved ? v.checks_status.value_or(v.status.value_or(spec::VerificationStatus::passed))
                                : v.status.value_or(spec::VerificationStatus::human_needed);
  *updated += fmt::format("{}\n**{}** by {} at {}{}. The checks found {}; {}.\n", answered_heading, verb, a.by, a.at,
                          a.note.empty() ? "" : ": " + a.note, spec::to_string(found),
                          a.approved ? "the person accepted it as it is, so it counts as passed"
                                     : "the next run verifies it again and asks again");
  return std::move(*updated);
}

std::expected<void, std::string> record_verification_answer(const std::filesystem::path& file, const spec::HumanAnswer& a) {
  auto text = util::read_file(file);
  if (!text) return std::unexpected(text.error());
  auto updated = with_human_answer(*text, file.string(), a);
  if (!updated) return std::unexpected(updated.error());
  return util::write_file_atomic(file, *updated);
}

ApprovalCarry approval_still_holding(std::string_view old_text, std::string_view fresh_text) {
  std::vector<spec::Diagnostic> ignored;
  const auto old = spec::parse_verification(old_text, "old", ignored);
  const auto fresh = spec::parse_verification(fresh_text, "fresh", ignored);
  if (!old.answer || !old.answer->approved) return {};
  auto dropped = [&](std::string why) { return ApprovalCarry{std::nullopt, old.answer, std::move(why), old.work_hash}; };
  if (!old.checks_status || !fresh.status) return dropped("the file does not say what the checks found when it was given");
  if (*old.checks_status != *fresh.status || old.plans != fresh.plans) return dropped("the checks found something else");
  const auto before = findings(old_text), now = findings(fresh_text);
  if (before.empty() || before != now) return dropped("the checks found something else");
  // The same findings over other work (a commit to the plans' files since, an edit by hand)
  // are not what the person looked at.
  if (old.work_hash.empty())
    return dropped("it was given before harness recorded the work it approved (work_hash), so it cannot tell whether "
                   "that work changed since");
  if (old.work_hash != fresh.work_hash) return dropped("the plans' files changed since it was given");
  return {old.answer, std::nullopt, {}, {}};
}

} // namespace harness::verify
