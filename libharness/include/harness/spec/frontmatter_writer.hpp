#pragma once
// Updating frontmatter keys in place: every byte outside the changed values stays identical, so
// a user's comments, ordering and formatting survive the harness writing progress into ROADMAP.md.

#include <expected>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace harness::spec {

/// One key to set: `key` is top-level ("status") or one level nested ("velocity.total_plans_completed");
/// `yaml_value` is written verbatim as the scalar (quote it yourself if needed).
struct FrontmatterUpdate {
  std::string key;
  std::string yaml_value;
};

/// The line ending of the document's first line, "\r\n" or "\n": a file kept with CRLF
/// (core.autocrlf on Windows, an editor's choice) gets CRLF lines added, not a mix.
std::string_view line_ending_of(std::string_view text);

/// Returns `text` with the values replaced. A key that is absent is appended at the end of its
/// map (a missing parent map is created), with the line ending of the document's first line (a
/// CRLF file stays CRLF). A trailing `# comment` on a replaced line is kept.
/// Fails when the document has no frontmatter or a parent is written in flow style (`{...}`).
std::expected<std::string, std::string> update_frontmatter(std::string_view text,
                                                           const std::vector<FrontmatterUpdate>& updates);

} // namespace harness::spec
