#pragma once
// A flat, line-numbered view of a Markdown document's blocks, parsed structurally with md4c so
// that a heading inside a code fence is code, not a heading.

#include <string>
#include <string_view>
#include <vector>

namespace harness::spec {

enum class MdBlockKind { heading, paragraph, list_item, code, html };

struct MdBlock {
  MdBlockKind kind = MdBlockKind::paragraph;
  int level = 0;           ///< heading level; list nesting depth for list items
  std::string text;        ///< plain text (inline markup dropped); code and html verbatim
  std::string info;        ///< code fence info string
  int line = 0;            ///< 1-based line in the file
  bool is_task = false;    ///< list item written as `- [ ]` / `- [x]`
  bool checked = false;
};

/// Parses `text`, whose first line is line `first_line` of its file.
std::vector<MdBlock> markdown_blocks(std::string_view text, int first_line = 1);

} // namespace harness::spec
