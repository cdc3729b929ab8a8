#pragma once
// Splitting a Markdown document into its YAML frontmatter and body, keeping line numbers.

#include <string>
#include <string_view>

namespace harness::spec {

struct FrontmatterSplit {
  bool present = false;      ///< the document starts with a `---` line
  bool terminated = false;   ///< a closing `---` line was found
  std::string_view yaml;     ///< text between the fences
  int yaml_first_line = 0;   ///< 1-based file line of the first YAML line
  std::string_view body;     ///< everything after the closing fence
  int body_first_line = 1;   ///< 1-based file line where the body starts
  size_t yaml_offset = 0;    ///< byte offset of `yaml` in the document
};

/// Splits `text`; a UTF-8 byte-order mark before the opening fence is skipped.
FrontmatterSplit split_frontmatter(std::string_view text);

/// H002's message for a frontmatter without its closing `---` line; it names a `...` line there,
/// which YAML (and Pandoc) would take as the end and harness does not (review HH F4).
std::string missing_fence_message(const FrontmatterSplit& split);

/// The text of 1-based line `line` of `text` (without its newline), or empty.
std::string_view line_at(std::string_view text, int line);

} // namespace harness::spec
