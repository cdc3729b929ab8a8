#include "text_match.hpp"

#include "harness/util/text.hpp"

#include <cctype>

namespace harness::spec::detail {
namespace {

void skip_blanks(std::string_view s, size_t& i) {
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
}

bool starts_with_word(std::string_view s, size_t i, std::string_view word) {
  if (s.size() < i + word.size()) return false;
  for (size_t k = 0; k < word.size(); ++k)
    if (std::tolower(static_cast<unsigned char>(s[i + k])) != word[k]) return false;
  return true;
}

using util::trim_space;

/// Digits with at most one inner dot, starting at i.
std::string_view number_at(std::string_view s, size_t& i) {
  const size_t start = i;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
  if (i > start && i + 1 < s.size() && s[i] == '.' && std::isdigit(static_cast<unsigned char>(s[i + 1]))) {
    ++i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
  }
  return s.substr(start, i - start);
}

bool is_word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

/// The text without its parenthesised parts (nested ones too): asides, not phases.
std::string without_parentheses(std::string_view text) {
  std::string out;
  int depth = 0;
  for (const char c : text) {
    if (c == '(') ++depth;
    else if (c == ')' && depth > 0) --depth;
    else if (depth == 0) out += c;
  }
  return out;
}

/// The word `word` (lowercase) at i, case-insensitively, as a whole word.
bool word_at(std::string_view s, size_t i, std::string_view word) {
  if (!starts_with_word(s, i, word)) return false;
  if (i > 0 && is_word_char(s[i - 1])) return false;
  return i + word.size() == s.size() || !is_word_char(s[i + word.size()]);
}

/// "Phase" or "Phases" at i followed by a number: moves i to the number.
bool phase_word_at(std::string_view s, size_t& i) {
  for (const std::string_view word : {"phases", "phase"})
    if (word_at(s, i, word)) {
      size_t j = i + word.size();
      skip_blanks(s, j);
      if (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) {
        i = j;
        return true;
      }
    }
  return false;
}

/// What joins the items of a list, at i: ",", ";", "&", "+", "and" (also ", and"); moves past it.
bool separator_at(std::string_view s, size_t& i) {
  bool any = false;
  for (;;) {
    size_t j = i;
    skip_blanks(s, j);
    if (j < s.size() && (s[j] == ',' || s[j] == ';' || s[j] == '&' || s[j] == '+')) ++j;
    else if (word_at(s, j, "and")) j += 3;
    else return any;
    i = j;
    any = true;
  }
}

/// A range's sign after a number at i ("-", an en dash, "to", "through") and the number that ends
/// it ("1-3", "1 to Phase 3"): moves i past them.
bool range_at(std::string_view s, size_t& i) {
  size_t j = i;
  skip_blanks(s, j);
  if (s.substr(j).starts_with("-")) j += 1;
  else if (s.substr(j).starts_with("\u2013")) j += std::string_view("\u2013").size();
  else if (word_at(s, j, "to")) j += 2;
  else if (word_at(s, j, "through")) j += 7;
  else return false;
  skip_blanks(s, j);
  if (!phase_word_at(s, j) && (j == s.size() || !std::isdigit(static_cast<unsigned char>(s[j])))) return false;
  number_at(s, j);
  i = j;
  return true;
}

/// A list of phase numbers from i ("1, 2 and Phase 4"); stops at the first thing that continues
/// none. A range ends the list, and is noted.
void read_list(std::string_view s, size_t& i, PhaseList& out) {
  for (;;) {
    const size_t start = i;
    const auto number = parse_phase_number(number_at(s, i));
    if (i == start) return;
    if (range_at(s, i)) {
      out.unread = "gives a range, which is not read: the scheduler waits for none of its phases";
      return;
    }
    if (number) out.numbers.push_back(*number);
    size_t j = i;
    if (!separator_at(s, j)) return;
    skip_blanks(s, j);
    if (!phase_word_at(s, j) && (j == s.size() || !std::isdigit(static_cast<unsigned char>(s[j])))) return;
    i = j;
  }
}

/// "Nothing (first phase)", "None", "n/a", "-": a phase without dependencies, said in words.
bool names_nothing(std::string_view s) {
  for (const std::string_view word : {"nothing", "none", "n/a", "no", "-", "\u2013", "\u2014"})
    if (starts_with_word(s, 0, word) && (s.size() == word.size() || !is_word_char(s[word.size()]))) return true;
  return false;
}

} // namespace

std::optional<std::string> task_heading_name(std::string_view text) {
  size_t i = 0;
  skip_blanks(text, i);
  if (!starts_with_word(text, i, "task")) return std::nullopt;
  i += 4;
  const size_t before = i;
  skip_blanks(text, i);
  if (i == before) return std::nullopt;
  const size_t digits = i;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
  if (i == digits) return std::nullopt;
  skip_blanks(text, i);
  if (i == text.size()) return std::string(trim_space(text));
  if (text[i] != ':' && text[i] != '.' && text[i] != '-') return std::nullopt;
  ++i;
  std::string_view name = trim_space(text.substr(i));
  return std::string(name.empty() ? trim_space(text) : name);
}

std::optional<std::pair<PhaseNumber, std::string>> phase_heading(std::string_view text) {
  size_t i = 0;
  skip_blanks(text, i);
  if (!starts_with_word(text, i, "phase")) return std::nullopt;
  i += 5;
  skip_blanks(text, i);
  auto number = parse_phase_number(number_at(text, i));
  if (!number) return std::nullopt;
  skip_blanks(text, i);
  if (i < text.size() && (text[i] == ':' || text[i] == '-')) ++i;
  else if (i < text.size()) return std::nullopt;
  return std::pair{*number, std::string(trim_space(text.substr(i)))};
}

std::optional<std::string> element_text(std::string_view text, std::string_view tag, size_t from) {
  const std::string open = "<" + std::string(tag) + ">", close = "</" + std::string(tag) + ">";
  const size_t a = text.find(open, from);
  if (a == std::string_view::npos) return std::nullopt;
  const size_t b = text.find(close, a + open.size());
  if (b == std::string_view::npos) return std::nullopt;
  return std::string(trim_space(text.substr(a + open.size(), b - a - open.size())));
}

PhaseList phase_list(std::string_view text) {
  const std::string value = without_parentheses(text);
  const std::string_view s = trim_space(value);
  PhaseList out;
  size_t i = 0;
  // A value that is nothing but a list ("1, 2 and 4"); leading numbers followed by prose ("2
  // endpoints from Phase 1") are prose.
  if (!s.empty() && std::isdigit(static_cast<unsigned char>(s[0]))) {
    PhaseList bare;
    read_list(s, i, bare);
    skip_blanks(s, i);
    if (!bare.unread.empty() || i == s.size() || (i + 1 == s.size() && s[i] == '.')) return bare;
  }
  for (i = 0; i < s.size();) {
    if (!phase_word_at(s, i)) {
      ++i;
      continue;
    }
    read_list(s, i, out);
  }
  if (out.numbers.empty() && out.unread.empty() && !s.empty() && !names_nothing(s))
    out.unread = "names no phase number: the scheduler orders nothing by it";
  return out;
}

} // namespace harness::spec::detail
