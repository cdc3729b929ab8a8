#include "harness/spec/frontmatter_writer.hpp"

#include "harness/spec/frontmatter.hpp"

#include <fmt/format.h>

#include <optional>

namespace harness::spec {
namespace {

struct Line {
  size_t begin; ///< offset of the first character
  size_t end;   ///< offset of the newline (or text end)
};

std::vector<Line> split_lines(std::string_view text, size_t from, size_t to) {
  std::vector<Line> lines;
  size_t pos = from;
  while (pos < to) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos || nl > to) nl = to;
    lines.push_back({pos, nl});
    pos = nl + 1;
  }
  return lines;
}

size_t indent_of(std::string_view line) {
  size_t i = 0;
  while (i < line.size() && line[i] == ' ') ++i;
  return i;
}

/// If `line` is `<indent>key:` returns the offset just past the colon.
std::optional<size_t> key_colon(std::string_view line, std::string_view key, size_t indent) {
  if (indent_of(line) != indent) return std::nullopt;
  std::string_view rest = line.substr(indent);
  for (std::string_view k : {std::string(key), "'" + std::string(key) + "'", "\"" + std::string(key) + "\""}) {
    if (rest.starts_with(k) && rest.size() > k.size() && rest[k.size()] == ':' &&
        (rest.size() == k.size() + 1 || rest[k.size() + 1] == ' ' || rest[k.size() + 1] == '\r'))
      return indent + k.size() + 1;
  }
  return std::nullopt;
}

/// The span of the value on a `key: value  # comment` line (after the colon).
std::pair<size_t, size_t> value_span(std::string_view line, size_t after_colon) {
  size_t start = after_colon;
  while (start < line.size() && line[start] == ' ') ++start;
  size_t end = line.size();
  if (end > 0 && line[end - 1] == '\r') --end;
  // A comment starts at " #" outside quotes.
  char quote = 0;
  for (size_t i = start; i < end; ++i) {
    if (quote) {
      if (line[i] == quote) quote = 0;
    } else if (line[i] == '\'' || line[i] == '"') {
      quote = line[i];
    } else if (line[i] == '#' && i > 0 && line[i - 1] == ' ') {
      end = i;
      while (end > start && line[end - 1] == ' ') --end;
      break;
    }
  }
  return {start, end};
}

bool blank(std::string_view line) { return line.empty() || line == "\r"; }

} // namespace

std::string_view line_ending_of(std::string_view text) {
  const size_t nl = text.find('\n');
  return nl != std::string_view::npos && nl > 0 && text[nl - 1] == '\r' ? "\r\n" : "\n";
}

std::expected<std::string, std::string> update_frontmatter(std::string_view text,
                                                           const std::vector<FrontmatterUpdate>& updates) {
  const auto split = split_frontmatter(text);
  if (!split.present || !split.terminated) return std::unexpected("the document has no frontmatter");
  std::string out(text);
  const std::string_view eol = line_ending_of(text);
  for (const auto& u : updates) {
    // Recompute on the current text: earlier updates shift offsets.
    const auto cur = split_frontmatter(out);
    const size_t fm_begin = cur.yaml_offset, fm_end = cur.yaml_offset + cur.yaml.size();
    auto lines = split_lines(out, fm_begin, fm_end);
    auto line_view = [&](const Line& l) { return std::string_view(out).substr(l.begin, l.end - l.begin); };
    const auto dot = u.key.find('.');
    const std::string parent = dot == std::string::npos ? "" : u.key.substr(0, dot);
    const std::string leaf = dot == std::string::npos ? u.key : u.key.substr(dot + 1);
    size_t search_from = 0, search_to = lines.size(), indent = 0;
    size_t insert_at = fm_end; // where a missing key goes
    if (!parent.empty()) {
      size_t p = lines.size();
      for (size_t i = 0; i < lines.size(); ++i)
        if (key_colon(line_view(lines[i]), parent, 0)) p = i;
      if (p == lines.size()) {
        out.insert(fm_end, fmt::format("{}:{}  {}: {}{}", parent, eol, leaf, u.yaml_value, eol));
        continue;
      }
      auto [vs, ve] = value_span(line_view(lines[p]), *key_colon(line_view(lines[p]), parent, 0));
      if (vs != ve) return std::unexpected(fmt::format("'{}' is not a block map; cannot set '{}'", parent, u.key));
      search_from = p + 1;
      search_to = search_from;
      while (search_to < lines.size() && (indent_of(line_view(lines[search_to])) > 0 || blank(line_view(lines[search_to]))))
        ++search_to;
      indent = 2;
      for (size_t i = search_from; i < search_to; ++i)
        if (!blank(line_view(lines[i]))) { indent = indent_of(line_view(lines[i])); break; }
      insert_at = search_to < lines.size() ? lines[search_to].begin : fm_end;
    }
    bool done = false;
    for (size_t i = search_from; i < search_to && !done; ++i) {
      auto colon = key_colon(line_view(lines[i]), leaf, indent);
      if (!colon) continue;
      auto [vs, ve] = value_span(line_view(lines[i]), *colon);
      if (vs == line_view(lines[i]).size() || vs == ve) {
        // "key:" with nothing after it: insert one space and the value.
        out.replace(lines[i].begin + *colon, ve - *colon, " " + u.yaml_value);
      } else {
        out.replace(lines[i].begin + vs, ve - vs, u.yaml_value);
      }
      done = true;
    }
    if (!done) out.insert(insert_at, fmt::format("{}{}: {}{}", std::string(indent, ' '), leaf, u.yaml_value, eol));
  }
  return out;
}

} // namespace harness::spec
