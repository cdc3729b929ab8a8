#include "text_match.hpp"

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

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

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
  if (i == text.size()) return std::string(trim(text));
  if (text[i] != ':' && text[i] != '.' && text[i] != '-') return std::nullopt;
  ++i;
  std::string_view name = trim(text.substr(i));
  return std::string(name.empty() ? trim(text) : name);
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
  return std::pair{*number, std::string(trim(text.substr(i)))};
}

std::optional<std::string> element_text(std::string_view text, std::string_view tag, size_t from) {
  const std::string open = "<" + std::string(tag) + ">", close = "</" + std::string(tag) + ">";
  const size_t a = text.find(open, from);
  if (a == std::string_view::npos) return std::nullopt;
  const size_t b = text.find(close, a + open.size());
  if (b == std::string_view::npos) return std::nullopt;
  return std::string(trim(text.substr(a + open.size(), b - a - open.size())));
}

std::vector<PhaseNumber> phase_numbers_in(std::string_view text) {
  std::vector<PhaseNumber> out;
  for (size_t i = 0; i < text.size();) {
    if (std::isdigit(static_cast<unsigned char>(text[i]))) {
      if (auto n = parse_phase_number(number_at(text, i))) out.push_back(*n);
    } else {
      ++i;
    }
  }
  return out;
}

} // namespace harness::spec::detail
