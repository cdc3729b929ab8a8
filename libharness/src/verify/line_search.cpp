#include "line_search.hpp"
#include "regex_locale.hpp"

#include <fmt/format.h>

#include <exception>
#include <functional>
#include <optional>
#include <pthread.h>
#include <regex>

namespace harness::verify::detail {
namespace {

// Measured on GCC 12: up to about 1.5 KiB of stack per character for a group repeated with
// alternation inside (`((a|b)c?)*`) under ASan; 4 KiB per character of the longest line leaves
// room for worse. Only the pages the search touches are ever committed.
constexpr std::size_t k_search_stack = 4 * 1024 * k_max_regex_line;

/// Runs `fn` on a thread with a stack of `bytes`; false when no such thread could be started.
bool run_with_stack(std::size_t bytes, const std::function<void()>& fn) {
  pthread_attr_t attr;
  if (::pthread_attr_init(&attr) != 0) return false;
  pthread_t thread;
  const bool started = ::pthread_attr_setstacksize(&attr, bytes) == 0 &&
                       ::pthread_create(&thread, &attr, [](void* f) -> void* {
                         (*static_cast<const std::function<void()>*>(f))();
                         return nullptr;
                       }, const_cast<std::function<void()>*>(&fn)) == 0;
  ::pthread_attr_destroy(&attr);
  if (started) ::pthread_join(thread, nullptr);
  return started;
}

bool has_regex_metacharacters(std::string_view pattern) {
  return pattern.find_first_of("^$\\.*+?()[]{}|") != std::string_view::npos;
}

int count_substring(std::string_view line, std::string_view needle) {
  int n = 0;
  for (size_t pos = 0; !needle.empty() && (pos = line.find(needle, pos)) != std::string_view::npos; pos += needle.size()) ++n;
  return n;
}

void search(std::string_view text, const std::regex& re, const std::string& pattern, LineMatches& out) {
  const bool plain = !has_regex_metacharacters(pattern);
  int number = 0;
  for (size_t start = 0; start < text.size();) {
    const size_t nl = text.find('\n', start);
    std::string_view line = text.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start);
    start = nl == std::string_view::npos ? text.size() : nl + 1;
    ++number;
    if (line.ends_with('\r')) line.remove_suffix(1);
    if (line.size() > k_max_regex_line) {
      if (plain) out.count += count_substring(line, pattern);
      else if (out.unsearched_line == 0) out.unsearched_line = number;
      continue;
    }
    for (std::cregex_iterator it(line.data(), line.data() + line.size(), re), end; it != end; ++it) ++out.count;
  }
}

} // namespace

LineMatches count_line_matches(std::string_view text, const std::string& pattern) {
  LineMatches out;
  std::optional<std::regex> re;
  prepare_regex_locale();
  try {
    re.emplace(pattern, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    out.error = fmt::format("invalid regex /{}/: {}", pattern, e.what());
    return out;
  }
  // An exception must not leave the thread's start routine: it would end the process.
  std::string failure;
  const bool ran = run_with_stack(k_search_stack, [&] {
    try {
      search(text, *re, pattern, out);
    } catch (const std::exception& e) {
      failure = e.what();
    }
  });
  if (!ran) out.error = fmt::format("could not start a thread to search for /{}/", pattern);
  else if (!failure.empty()) out.error = fmt::format("searching for /{}/ failed: {}", pattern, failure);
  return out;
}

std::string unsearched_message(const LineMatches& m, std::string_view what, const std::string& pattern) {
  return fmt::format("line {} of {} is longer than {} KiB, too long to search for the regex /{}/ (a pattern without "
                     "regex metacharacters is searched there as plain text)",
                     m.unsearched_line, what, k_max_regex_line / 1024, pattern);
}

} // namespace harness::verify::detail
