#include "harness/util/shell_words.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace harness::util {

namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool is_name_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

/// Where the quote opened at `text[i]` ends (the index after its closing quote), or npos.
size_t after_quote(std::string_view text, size_t i) {
  if (text[i] == '\'') {
    const size_t end = text.find('\'', i + 1);
    return end == std::string_view::npos ? end : end + 1;
  }
  for (size_t j = i + 1; j < text.size(); ++j) {
    if (text[j] == '\\') ++j;
    else if (text[j] == '"') return j + 1;
  }
  return std::string_view::npos;
}

/// The redirection whose '<' or '>' (or "&>") is at `text[i]`, with a file descriptor number that
/// starts its word ("2>&1") and a `&N` / `&-` target.
std::string_view redirection_at(std::string_view text, size_t word_start, size_t i) {
  size_t begin = i;
  if (std::all_of(text.begin() + static_cast<long>(word_start), text.begin() + static_cast<long>(i), is_digit)) begin = word_start;
  size_t end = i + 1;
  while (end < text.size() && (text[end] == '<' || text[end] == '>')) ++end;
  if (end < text.size() && text[end] == '&' && text[i] != '&') {
    ++end;
    while (end < text.size() && (is_digit(text[end]) || text[end] == '-')) ++end;
  }
  return text.substr(begin, end - begin);
}

/// The expansion whose '$' is at `text[i]`, or "" for a '$' a shell leaves alone ("a$", "$ ").
std::string_view expansion_at(std::string_view text, size_t i) {
  if (i + 1 >= text.size()) return {};
  const char next = text[i + 1];
  if (next == '(' || next == '{' || next == '?') return text.substr(i, 2);
  if (!is_name_start(next)) return {};
  size_t end = i + 2;
  while (end < text.size() && is_name_char(text[end])) ++end;
  return text.substr(i, end - i);
}

/// An expansion inside the double-quoted string that opens at `text[i]` (a shell expands `$NAME`,
/// `${`, `$(` and backquotes there too), or "".
std::string_view expansion_in_double_quotes(std::string_view text, size_t i) {
  for (size_t j = i + 1; j < text.size() && text[j] != '"'; ++j) {
    if (text[j] == '\\') ++j;
    else if (text[j] == '`') return text.substr(j, 1);
    else if (text[j] == '$')
      if (auto e = expansion_at(text, j); !e.empty()) return e;
  }
  return {};
}

/// The word that starts at `word_start`, as written (quotes included), for a message.
std::string_view word_at(std::string_view text, size_t word_start) {
  size_t end = word_start;
  while (end < text.size() && !is_blank(text[end])) {
    if (text[end] == '\'' || text[end] == '"') end = std::min(after_quote(text, end), text.size());
    else end += text[end] == '\\' ? 2 : 1;
  }
  return text.substr(word_start, std::min(end, text.size()) - word_start);
}

/// A `NAME=value` first word as written ("FOO='a b'"); "" when the command starts otherwise.
std::string_view leading_assignment(std::string_view text) {
  const size_t start = text.find_first_not_of(" \t\n\r");
  if (start == std::string_view::npos || !is_name_start(text[start])) return {};
  size_t i = start + 1;
  while (i < text.size() && is_name_char(text[i])) ++i;
  if (i >= text.size() || text[i] != '=') return {};
  size_t end = i;
  while (end < text.size() && !is_blank(text[end])) {
    if (text[end] == '\'' || text[end] == '"') end = std::min(after_quote(text, end), text.size());
    else end += text[end] == '\\' ? 2 : 1;
  }
  return text.substr(start, std::min(end, text.size()) - start);
}

} // namespace

std::expected<std::vector<std::string>, std::string> split_shell_words(std::string_view text) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (is_blank(c)) {
      if (in_word) words.push_back(std::move(word)), word.clear(), in_word = false;
      ++i;
    } else if (c == '\'') {
      const size_t end = text.find('\'', i + 1);
      if (end == std::string_view::npos)
        return std::unexpected(fmt::format("unterminated single quote at column {}", i + 1));
      word.append(text.substr(i + 1, end - i - 1));
      in_word = true;
      i = end + 1;
    } else if (c == '"') {
      size_t j = i + 1;
      for (;; ++j) {
        if (j >= text.size())
          return std::unexpected(fmt::format("unterminated double quote at column {}", i + 1));
        const char d = text[j];
        if (d == '"') break;
        if (d == '\\' && j + 1 < text.size()) {
          const char e = text[j + 1];
          if (e == '$' || e == '`' || e == '"' || e == '\\' || e == '\n') {
            if (e != '\n') word.push_back(e);
            ++j;
            continue;
          }
        }
        word.push_back(d);
      }
      in_word = true;
      i = j + 1;
    } else if (c == '\\') {
      if (i + 1 >= text.size())
        return std::unexpected(fmt::format("trailing backslash at column {}", i + 1));
      if (text[i + 1] != '\n') word.push_back(text[i + 1]), in_word = true;
      i += 2;
    } else {
      word.push_back(c);
      in_word = true;
      ++i;
    }
  }
  if (in_word) words.push_back(std::move(word));
  return words;
}

std::optional<ShellSyntax> find_shell_syntax(std::string_view text) {
  using Kind = ShellSyntax::Kind;
  if (auto a = leading_assignment(text); !a.empty()) return ShellSyntax{Kind::assignment, std::string(a)};
  size_t word_start = 0;
  for (size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (is_blank(c)) {
      word_start = ++i;
    } else if (c == '\'' || c == '"') {
      if (c == '"')
        if (auto e = expansion_in_double_quotes(text, i); !e.empty()) return ShellSyntax{Kind::expansion, std::string(e)};
      i = after_quote(text, i);
      if (i == std::string_view::npos) return std::nullopt;
    } else if (c == '~' && i == word_start && (i + 1 == text.size() || text[i + 1] == '/' || is_blank(text[i + 1]))) {
      return ShellSyntax{Kind::expansion, "~"};
    } else if (c == '*' && word_at(text, word_start).find("://") == std::string_view::npos) {
      // A file pattern (`tests/test_*.py`); not in a URL, where it is rarely one.
      return ShellSyntax{Kind::glob, std::string(word_at(text, word_start))};
    } else if (c == '\\') {
      i += 2;
    } else if (c == '|' || c == ';') {
      const bool doubled = i + 1 < text.size() && text[i + 1] == c;
      return ShellSyntax{Kind::operator_, std::string(text.substr(i, doubled ? 2 : 1))};
    } else if (c == '<' || c == '>' || (c == '&' && i + 1 < text.size() && text[i + 1] == '>')) {
      return ShellSyntax{Kind::operator_, std::string(redirection_at(text, word_start, i))};
    } else if (c == '&') {
      if (i + 1 < text.size() && text[i + 1] == '&') return ShellSyntax{Kind::operator_, "&&"};
      // "a=1&b=2" runs as one argument either way; only a '&' that ends or starts a word is the
      // shell's "run in the background".
      if (i == word_start || i + 1 == text.size() || is_blank(text[i + 1])) return ShellSyntax{Kind::operator_, "&"};
      ++i;
    } else if (c == '`') {
      return ShellSyntax{Kind::expansion, "`"};
    } else if (c == '$') {
      if (auto e = expansion_at(text, i); !e.empty()) return ShellSyntax{Kind::expansion, std::string(e)};
      ++i;
    } else {
      ++i;
    }
  }
  return std::nullopt;
}

std::string quote_shell_word(std::string_view word) {
  if (!word.empty() && word.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                              "0123456789_-./=:,+@%") == std::string_view::npos)
    return std::string(word);
  std::string out = "'";
  for (char c : word) {
    if (c == '\'') out += "'\\''";
    else out.push_back(c);
  }
  out += "'";
  return out;
}

} // namespace harness::util
