#pragma once
// A person's answer to a phase or final verification, kept in its VERIFICATION file: recorded
// when the orchestrator gets it, and carried over when the same verification is written again
// and its checks find the same thing (so nobody is asked twice about what they already judged).

#include "harness/spec/documents.hpp"
#include "harness/spec/frontmatter_writer.hpp"

#include <expected>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace harness::verify {

/// `text` (a VERIFICATION file; `display_path` names it in errors) with a person's answer to a
/// verification that needed one (human_needed, or gaps a person may accept): an approval sets
/// `status: passed`, keeps the checks' verdict as `checks_status` and adds `approved_by`,
/// `approved_at`, `approval_note`; a refusal adds `refused_by`, `refused_at`, `refusal_note` and
/// leaves the status. Either way a "## Answered by a person" section ends the body (replacing
/// one an earlier answer left). Frontmatter is updated in place.
std::expected<std::string, std::string> with_human_answer(std::string_view text, const std::string& display_path,
                                                          const spec::HumanAnswer& answer);

/// The frontmatter lines that record `answer`: `approved_by`, `approved_at` and (with a note)
/// `approval_note`, or the `refused_*` ones; values quoted so that any note reads back as written.
/// A VERIFICATION file's (with_human_answer) and a plan SUMMARY's record of an approval.
std::vector<spec::FrontmatterUpdate> answer_frontmatter(const spec::HumanAnswer& answer);

/// with_human_answer on the file, written atomically.
std::expected<void, std::string> record_verification_answer(const std::filesystem::path& verification,
                                                            const spec::HumanAnswer& answer);

/// What becomes of the approval a VERIFICATION file records when the same verification is
/// written again.
struct ApprovalCarry {
  std::optional<spec::HumanAnswer> kept;    ///< the approval, which still holds
  std::optional<spec::HumanAnswer> dropped; ///< the approval, which no longer holds
  std::string why;                          ///< why it was dropped, for the person
  std::string dropped_work_hash;            ///< the work the dropped one approved ("" when unrecorded)
};

/// Whether the approval `old_text` (a VERIFICATION file as it is) records still holds for
/// `fresh_text` (the same verification rendered again, no answer in it): it does when the work is
/// the same (`work_hash`) and the checks found the same status, over the same plans, with the
/// same gaps and the same items for a person. A file without `work_hash` (written before harness
/// recorded it) cannot say what work was approved: its approval does not hold, and the person
/// is asked again, once. Neither kept nor dropped when there is no approval.
ApprovalCarry approval_still_holding(std::string_view old_text, std::string_view fresh_text);

} // namespace harness::verify
