// `simulate --durations FILE`: execute minutes by plan id, checked against the spec's plans.
#include "harness/sched/simulator.hpp"

#include <boost/json.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cmath>

namespace harness::sched {
namespace {

/// A diagnostic at byte `offset` of `text` (1-based line and column, the line for the caret).
spec::Diagnostic at(std::string_view text, std::size_t offset, const std::string& file, std::string code, std::string message) {
  offset = std::min(offset, text.size());
  const auto line_start = text.rfind('\n', offset == 0 ? 0 : offset - 1);
  const std::size_t begin = offset == 0 || line_start == std::string_view::npos ? 0 : line_start + 1;
  const auto end = text.find('\n', begin);
  spec::Diagnostic d;
  d.file = file;
  d.line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(begin), '\n'));
  d.col = 1 + static_cast<int>(offset - begin);
  d.code = std::move(code);
  d.message = std::move(message);
  d.source_line = std::string(text.substr(begin, end == std::string_view::npos ? std::string_view::npos : end - begin));
  return d;
}

/// Where `"key"` is written in `text` (its opening quote), or the start when it cannot be found
/// (a key spelled with escapes).
std::size_t key_offset(std::string_view text, std::string_view key) {
  const auto at = text.find(fmt::format("\"{}\"", key));
  return at == std::string_view::npos ? 0 : at;
}

/// The keys of the top-level object of a valid JSON text, decoded, each with the offset of its
/// opening quote, in file order. Boost.JSON keeps one value of a repeated key; this sees them all.
std::vector<std::pair<std::string, std::size_t>> top_level_keys(std::string_view text) {
  std::vector<std::pair<std::string, std::size_t>> keys;
  int depth = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '{' || c == '[') ++depth;
    else if (c == '}' || c == ']') --depth;
    if (c != '"') continue;
    const std::size_t open = i;
    for (++i; i < text.size() && text[i] != '"'; ++i)
      if (text[i] == '\\') ++i;
    const std::size_t colon = text.find_first_not_of(" \t\r\n", i + 1);
    if (depth != 1 || colon == std::string_view::npos || text[colon] != ':') continue;
    boost::system::error_code ec;
    const auto key = boost::json::parse(text.substr(open, i + 1 - open), ec);
    if (!ec && key.is_string()) keys.emplace_back(std::string(key.as_string()), open);
  }
  return keys;
}

} // namespace

std::expected<std::uint64_t, std::string> parse_seed(std::string_view text) {
  std::uint64_t seed = 0;
  const auto* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, seed);
  if (text.empty() || ec != std::errc() || ptr != end)
    return std::unexpected(fmt::format("'{}' is no seed: a whole number from 0 to {}", text, UINT64_MAX));
  return seed;
}

std::expected<std::map<std::string, double>, std::vector<spec::Diagnostic>>
parse_durations(std::string_view json_text, const std::string& file, const std::vector<std::string>& plan_ids) {
  boost::json::stream_parser parser;
  boost::system::error_code ec;
  const std::size_t used = parser.write_some(json_text.data(), json_text.size(), ec);
  if (!ec) parser.finish(ec);
  if (ec) return std::unexpected(std::vector{at(json_text, used, file, "H301", "durations: invalid JSON: " + ec.message())});
  const auto v = parser.release();
  if (!v.is_object())
    return std::unexpected(std::vector{at(json_text, 0, file, "H301", "durations: expected a JSON object of execute minutes by plan id")});
  std::map<std::string, double> out;
  std::vector<spec::Diagnostic> errors;
  // A plan given twice would silently take its last value; which one was meant is not ours to guess.
  std::map<std::string, std::size_t> first_at;
  for (const auto& [key, offset] : top_level_keys(json_text))
    if (auto [it, inserted] = first_at.emplace(key, offset); !inserted)
      errors.push_back(at(json_text, offset, file, "H303",
                          fmt::format("duplicate key '{}' (first on line {}); JSON keys must be unique", key,
                                      1 + std::count(json_text.begin(), json_text.begin() + static_cast<std::ptrdiff_t>(it->second), '\n'))));
  for (const auto& kv : v.as_object()) {
    const std::string key(kv.key());
    // Finite and below a century of minutes: 1e309 reads as infinity, and a makespan of it
    // would be printed as no number at all.
    constexpr double most = 52'560'000;
    if (!kv.value().is_number() || !std::isfinite(kv.value().to_number<double>()) ||
        kv.value().to_number<double>() < 0 || kv.value().to_number<double>() > most) {
      errors.push_back(at(json_text, key_offset(json_text, key), file, "H301",
                          fmt::format("durations: '{}' must be a number of minutes from 0 to {:.0f} (100 years)", key, most)));
    } else if (std::find(plan_ids.begin(), plan_ids.end(), key) == plan_ids.end()) {
      errors.push_back(at(json_text, key_offset(json_text, key), file, "H302", fmt::format("no plan '{}' in the spec", key)));
    } else {
      out[key] = kv.value().to_number<double>();
    }
  }
  if (!errors.empty()) return std::unexpected(std::move(errors));
  return out;
}

} // namespace harness::sched
