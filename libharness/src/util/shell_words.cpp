#include "harness/util/shell_words.hpp"

#include <fmt/format.h>

namespace harness::util {

std::expected<std::vector<std::string>, std::string> split_shell_words(std::string_view text) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  size_t i = 0;
  auto is_blank = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
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
