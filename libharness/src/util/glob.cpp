#include "harness/util/glob.hpp"

#include <algorithm>
#include <bitset>
#include <vector>

namespace harness::util {
namespace {

std::vector<std::string_view> split_segments(std::string_view p) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (start <= p.size()) {
    size_t slash = p.find('/', start);
    if (slash == std::string_view::npos) slash = p.size();
    if (slash > start) out.push_back(p.substr(start, slash - start)); // "a//b" == "a/b"
    start = slash + 1;
  }
  return out;
}

/// Matches a character class starting at pattern[i] == '['; advances i past ']'.
bool match_class(std::string_view pat, size_t& i, char c) {
  size_t j = i + 1;
  bool negate = j < pat.size() && (pat[j] == '!' || pat[j] == '^');
  if (negate) ++j;
  bool matched = false;
  bool first = true;
  for (; j < pat.size() && (first || pat[j] != ']'); ++j, first = false) {
    if (j + 2 < pat.size() && pat[j + 1] == '-' && pat[j + 2] != ']') {
      if (pat[j] <= c && c <= pat[j + 2]) matched = true;
      j += 2;
    } else if (pat[j] == c) {
      matched = true;
    }
  }
  i = j + 1;
  return matched != negate;
}

/// One segment against one name: `*`, `?`, classes; iterative with one backtrack point.
bool match_segment(std::string_view pat, std::string_view name) {
  size_t p = 0, n = 0, star_p = std::string_view::npos, star_n = 0;
  while (n < name.size()) {
    if (p < pat.size() && pat[p] == '*') {
      star_p = ++p;
      star_n = n;
      continue;
    }
    if (p < pat.size()) {
      size_t next = p;
      bool ok;
      if (pat[p] == '[') ok = match_class(pat, next, name[n]);
      else if (pat[p] == '?') ok = true, next = p + 1;
      else ok = pat[p] == name[n], next = p + 1;
      if (ok) {
        p = next;
        ++n;
        continue;
      }
    }
    if (star_p == std::string_view::npos) return false;
    p = star_p;
    n = ++star_n;
  }
  while (p < pat.size() && pat[p] == '*') ++p;
  return p == pat.size();
}

bool match_segments(const std::vector<std::string_view>& pat, size_t pi, const std::vector<std::string_view>& path,
                    size_t ni) {
  while (pi < pat.size()) {
    if (pat[pi] == "**") {
      for (size_t k = ni; k <= path.size(); ++k)
        if (match_segments(pat, pi + 1, path, k)) return true;
      return false;
    }
    if (ni >= path.size() || !match_segment(pat[pi], path[ni])) return false;
    ++pi;
    ++ni;
  }
  return ni == path.size();
}

/// The characters one position of a star-free segment accepts, starting at seg[i]; advances i.
std::bitset<256> position_set(std::string_view seg, size_t& i) {
  std::bitset<256> set;
  if (seg[i] == '?') {
    set.set();
    ++i;
  } else if (seg[i] == '[') {
    size_t next = i;
    for (size_t c = 0; c < 256; ++c) {
      next = i;
      if (match_class(seg, next, static_cast<char>(c))) set.set(c);
    }
    i = next;
  } else {
    set.set(static_cast<unsigned char>(seg[i++]));
  }
  return set;
}

/// Two segments without `*` name names of fixed lengths: they overlap when, position by
/// position, some character is accepted by both (`[id]` and `[slug]` do not).
bool fixed_segments_overlap(std::string_view a, std::string_view b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size())
    if ((position_set(a, i) & position_set(b, j)).none()) return false;
  return i >= a.size() && j >= b.size();
}

/// Could one name match both segment patterns? A pattern also matches the name spelled exactly
/// like it (see glob_match), so `[id]` meets the directory `[id]` as well as `i` and `d`. Exact
/// when either is literal or neither has a `*`; for two starred segments compares the literal
/// prefixes and suffixes (`*.ts` vs `*.js` cannot overlap).
bool segments_overlap(std::string_view a, std::string_view b) {
  if (a == b || match_segment(b, a) || match_segment(a, b)) return true;
  if (is_literal_glob(a) || is_literal_glob(b)) return false;
  if (a.find('*') == std::string_view::npos && b.find('*') == std::string_view::npos) return fixed_segments_overlap(a, b);
  auto prefix = [](std::string_view s) { return s.substr(0, s.find_first_of("*?[")); };
  auto suffix = [](std::string_view s) {
    size_t k = s.find_last_of("*?]");
    return s.substr(k + 1);
  };
  auto pa = prefix(a), pb = prefix(b), sa = suffix(a), sb = suffix(b);
  const size_t np = std::min(pa.size(), pb.size()), ns = std::min(sa.size(), sb.size());
  if (pa.substr(0, np) != pb.substr(0, np)) return false;
  if (sa.substr(sa.size() - ns) != sb.substr(sb.size() - ns)) return false;
  return true;
}

bool overlap_from(const std::vector<std::string_view>& a, size_t i, const std::vector<std::string_view>& b, size_t j) {
  if (i == a.size() && j == b.size()) return true;
  if (i < a.size() && a[i] == "**") {
    // `**` absorbs zero or more of b's segments (a `**` in b absorbs anything too).
    for (size_t k = j; k <= b.size(); ++k)
      if (overlap_from(a, i + 1, b, k)) return true;
    return false;
  }
  if (j < b.size() && b[j] == "**") return overlap_from(b, j, a, i);
  if (i == a.size() || j == b.size()) return false;
  return segments_overlap(a[i], b[j]) && overlap_from(a, i + 1, b, j + 1);
}

} // namespace

bool is_literal_glob(std::string_view pattern) { return pattern.find_first_of("*?[") == std::string_view::npos; }

/// A pattern also names everything below what it matches (as a git pathspec does): `app/tasks`
/// declares `app/tasks/model.py`. Matching `pattern/**` says exactly that.
static std::vector<std::string_view> with_descendants(std::string_view pattern) {
  auto segs = split_segments(pattern);
  if (segs.empty() || segs.back() != "**") segs.emplace_back("**");
  return segs;
}

bool glob_match(std::string_view pattern, std::string_view path) {
  const auto segs = split_segments(path);
  // As in a git pathspec, a pattern first names the path spelled exactly like it (and what lies
  // below): Next.js's `app/posts/[id]/page.tsx` is that file, not `app/posts/i/page.tsx`.
  if (const auto literal = split_segments(pattern);
      !literal.empty() && literal.size() <= segs.size() && std::equal(literal.begin(), literal.end(), segs.begin()))
    return true;
  return match_segments(with_descendants(pattern), 0, segs, 0);
}

bool globs_overlap(std::string_view a, std::string_view b) {
  return overlap_from(with_descendants(a), 0, with_descendants(b), 0);
}

std::optional<std::string> glob_error(std::string_view pattern) {
  if (pattern.empty()) return "empty pattern";
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '[') {
      size_t j = i + 1;
      if (j < pattern.size() && (pattern[j] == '!' || pattern[j] == '^')) ++j;
      if (j < pattern.size() && pattern[j] == ']') ++j; // a leading ']' is literal
      while (j < pattern.size() && pattern[j] != ']') ++j;
      if (j >= pattern.size()) return "unclosed '[' at column " + std::to_string(i + 1);
      if (j == i + 1) return "empty character class at column " + std::to_string(i + 1);
      i = j;
    }
  }
  for (auto seg : split_segments(pattern))
    if (seg.find("**") != std::string_view::npos && seg != "**")
      return "'**' must be a whole path segment (found '" + std::string(seg) + "')";
  return std::nullopt;
}

} // namespace harness::util
