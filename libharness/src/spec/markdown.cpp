#include "harness/spec/markdown.hpp"

#include <md4c.h>

#include <algorithm>

namespace harness::spec {
namespace {

MdBlock block_of(MdBlockKind kind) {
  MdBlock b;
  b.kind = kind;
  return b;
}

struct Walker {
  std::string_view doc;
  int first_line;
  std::vector<size_t> line_starts;
  std::vector<MdBlock> blocks;
  std::vector<int> open;   ///< indices into blocks of the blocks receiving text, innermost last
  int list_depth = 0;
  int last_line;

  int line_of(const MD_CHAR* p) const {
    const auto off = static_cast<size_t>(p - doc.data());
    auto it = std::upper_bound(line_starts.begin(), line_starts.end(), off);
    return static_cast<int>(it - line_starts.begin()) - 1 + first_line;
  }

  void push(MdBlock b) {
    b.line = 0;
    blocks.push_back(std::move(b));
    open.push_back(static_cast<int>(blocks.size() - 1));
  }
};

int enter_block(MD_BLOCKTYPE type, void* detail, void* user) {
  auto& w = *static_cast<Walker*>(user);
  switch (type) {
  case MD_BLOCK_H: {
    MdBlock b = block_of(MdBlockKind::heading);
    b.level = static_cast<int>(static_cast<MD_BLOCK_H_DETAIL*>(detail)->level);
    w.push(std::move(b));
    break;
  }
  case MD_BLOCK_P:
    // A paragraph inside a list item belongs to the item.
    if (w.open.empty() || w.blocks[static_cast<size_t>(w.open.back())].kind != MdBlockKind::list_item)
      w.push(block_of(MdBlockKind::paragraph));
    else w.open.push_back(w.open.back());
    break;
  case MD_BLOCK_UL:
  case MD_BLOCK_OL: ++w.list_depth; break;
  case MD_BLOCK_LI: {
    auto* d = static_cast<MD_BLOCK_LI_DETAIL*>(detail);
    MdBlock b = block_of(MdBlockKind::list_item);
    b.level = w.list_depth;
    b.is_task = d->is_task != 0;
    b.checked = d->is_task && (d->task_mark == 'x' || d->task_mark == 'X');
    w.push(std::move(b));
    break;
  }
  case MD_BLOCK_CODE: {
    auto* d = static_cast<MD_BLOCK_CODE_DETAIL*>(detail);
    MdBlock b = block_of(MdBlockKind::code);
    if (d->info.text) b.info.assign(d->info.text, d->info.size);
    w.push(std::move(b));
    break;
  }
  case MD_BLOCK_HTML: w.push(block_of(MdBlockKind::html)); break;
  default: break;
  }
  return 0;
}

int leave_block(MD_BLOCKTYPE type, void*, void* user) {
  auto& w = *static_cast<Walker*>(user);
  switch (type) {
  case MD_BLOCK_H:
  case MD_BLOCK_P:
  case MD_BLOCK_LI:
  case MD_BLOCK_CODE:
  case MD_BLOCK_HTML: {
    if (w.open.empty()) break;
    auto& b = w.blocks[static_cast<size_t>(w.open.back())];
    w.open.pop_back();
    if (b.line == 0) b.line = w.last_line;
    if (type == MD_BLOCK_CODE) b.line -= 1; // the opening fence is one line above the first code line
    break;
  }
  case MD_BLOCK_UL:
  case MD_BLOCK_OL: --w.list_depth; break;
  default: break;
  }
  return 0;
}

int on_text(MD_TEXTTYPE type, const MD_CHAR* text, MD_SIZE size, void* user) {
  auto& w = *static_cast<Walker*>(user);
  if (w.open.empty()) return 0;
  auto& b = w.blocks[static_cast<size_t>(w.open.back())];
  // md4c hands out pointers into the input for real text; synthesized text (entities) has none
  // we can map, so only in-document pointers set the line.
  const bool in_doc = text >= w.doc.data() && text < w.doc.data() + w.doc.size();
  if (in_doc) {
    w.last_line = w.line_of(text);
    if (b.line == 0) b.line = w.last_line;
  }
  switch (type) {
  case MD_TEXT_BR:
  case MD_TEXT_SOFTBR: b.text += "\n"; break; // kept so line-oriented fields (Goal:, Depends on:) stay apart
  case MD_TEXT_NULLCHAR: break;
  default: b.text.append(text, size);
  }
  return 0;
}

} // namespace

std::vector<MdBlock> markdown_blocks(std::string_view text, int first_line) {
  Walker w{text, first_line, {0}, {}, {}, 0, first_line};
  for (size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') w.line_starts.push_back(i + 1);
  MD_PARSER parser{};
  parser.abi_version = 0;
  parser.flags = MD_FLAG_TASKLISTS | MD_FLAG_TABLES | MD_FLAG_STRIKETHROUGH | MD_FLAG_NOHTMLSPANS;
  parser.enter_block = enter_block;
  parser.leave_block = leave_block;
  parser.enter_span = [](MD_SPANTYPE, void*, void*) { return 0; };
  parser.leave_span = [](MD_SPANTYPE, void*, void*) { return 0; };
  parser.text = on_text;
  md_parse(text.data(), static_cast<MD_SIZE>(text.size()), &parser, &w);
  return std::move(w.blocks);
}

} // namespace harness::spec
