#include "near_miss.hpp"

#include <algorithm>
#include <numeric>
#include <vector>

namespace harness::spec::detail {

namespace {

char fold(char c) {
  if (c == '-') return '_';
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

} // namespace

std::size_t key_distance(std::string_view a, std::string_view b) {
  // Optimal string alignment distance over three rows: keys are short, so this is cheap enough
  // to run once per unknown key against every known one.
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::size_t> before(m + 1), prev(m + 1), cur(m + 1);
  std::iota(prev.begin(), prev.end(), std::size_t{0});
  for (std::size_t i = 1; i <= n; ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= m; ++j) {
      const bool same = fold(a[i - 1]) == fold(b[j - 1]);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (same ? 0 : 1)});
      if (i > 1 && j > 1 && fold(a[i - 1]) == fold(b[j - 2]) && fold(a[i - 2]) == fold(b[j - 1]))
        cur[j] = std::min(cur[j], before[j - 2] + 1);
    }
    before.swap(prev);
    prev.swap(cur);
  }
  return prev[m];
}

std::optional<std::string> near_miss(std::string_view key, const std::set<std::string, std::less<>>& known) {
  if (known.contains(key)) return std::nullopt;
  std::optional<std::string> best;
  std::size_t best_d = 0;
  for (const auto& k : known) {
    const std::size_t limit = std::max(key.size(), k.size()) >= 6 ? 2 : 1;
    const std::size_t d = key_distance(key, k);
    if (d <= limit && (!best || d < best_d)) best = k, best_d = d;
  }
  return best;
}

} // namespace harness::spec::detail
