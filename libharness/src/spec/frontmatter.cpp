#include "harness/spec/frontmatter.hpp"

#include <algorithm>

namespace harness::spec {
namespace {

/// Only `---`, closing too. YAML's document end `...` once closed it as well: then the keys after
/// a `...` inside the frontmatter became the body, and a plan lost its checks without a word
/// (review FF F6); now they are read, and load_yaml says where the second document starts.
bool is_fence(std::string_view line) {
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
  return line == "---";
}

} // namespace

FrontmatterSplit split_frontmatter(std::string_view text) {
  FrontmatterSplit out;
  out.body = text;
  size_t pos = text.starts_with("\xEF\xBB\xBF") ? 3 : 0;
  size_t eol = text.find('\n', pos);
  if (eol == std::string_view::npos || !is_fence(text.substr(pos, eol - pos))) return out;
  out.present = true;
  out.yaml_first_line = 2;
  out.yaml_offset = eol + 1;
  size_t line_start = eol + 1;
  int line = 2;
  while (line_start <= text.size()) {
    size_t end = text.find('\n', line_start);
    const size_t stop = end == std::string_view::npos ? text.size() : end;
    if (is_fence(text.substr(line_start, stop - line_start))) {
      out.terminated = true;
      out.yaml = text.substr(out.yaml_offset, line_start - out.yaml_offset);
      out.body = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
      out.body_first_line = line + 1;
      return out;
    }
    if (end == std::string_view::npos) break;
    line_start = end + 1;
    ++line;
  }
  out.yaml = text.substr(out.yaml_offset);
  out.body = {};
  return out;
}

std::string missing_fence_message(const FrontmatterSplit& split) {
  std::string out = "the frontmatter's closing '---' line is missing";
  int line = split.yaml_first_line;
  for (std::size_t start = 0; start < split.yaml.size(); ++line) {
    const auto end = std::min(split.yaml.find('\n', start), split.yaml.size());
    auto l = split.yaml.substr(start, end - start);
    while (!l.empty() && (l.back() == '\r' || l.back() == ' ' || l.back() == '\t')) l.remove_suffix(1);
    if (l == "...") return out + " (line " + std::to_string(line) + " is '...', which does not close it here: write '---')";
    start = end + 1;
  }
  return out;
}

std::string_view line_at(std::string_view text, int line) {
  if (line < 1) return {};
  size_t start = 0;
  for (int l = 1; l < line; ++l) {
    start = text.find('\n', start);
    if (start == std::string_view::npos) return {};
    ++start;
  }
  size_t end = text.find('\n', start);
  std::string_view out = text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
  if (!out.empty() && out.back() == '\r') out.remove_suffix(1);
  return out;
}

} // namespace harness::spec
