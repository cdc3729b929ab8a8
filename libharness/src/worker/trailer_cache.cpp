#include "harness/worker/trailer_cache.hpp"

#include "harness/util/atomic_file.hpp"
#include "harness/worker/git_head.hpp"

#include <boost/json.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <functional>

namespace harness::worker {
namespace json = boost::json;

namespace {

constexpr std::string_view k_format = "harness-trailer-index";
/// 2: squash commits are read (one entry per plan they gather, `squashed`); a version-1 file
/// holds none of them, and is read again from the history.
constexpr std::int64_t k_version = 2;

const json::string* string_at(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v ? v->if_string() : nullptr;
}

std::optional<TrailerCommit> parse_commit(const json::value& v) {
  const auto* o = v.if_object();
  if (!o) return std::nullopt;
  TrailerCommit c;
  const auto *hash = string_at(*o, "hash"), *plan = string_at(*o, "plan"), *spec = string_at(*o, "spec"),
             *subject = string_at(*o, "subject");
  const auto* task = o->if_contains("task");
  const auto* parents = o->if_contains("parents");
  const auto* redo = o->if_contains("redo");
  if (!hash || !is_object_name(*hash) || !plan || !spec || !subject || !task || !task->is_int64() || !parents ||
      !parents->is_array() || !redo || !redo->is_array())
    return std::nullopt;
  c.hash = std::string(*hash);
  c.plan = std::string(*plan);
  c.spec = std::string(*spec);
  c.subject = std::string(*subject);
  c.task = static_cast<int>(task->as_int64());
  for (const auto& p : parents->as_array()) {
    if (!p.is_string()) return std::nullopt;
    c.parents.emplace_back(p.as_string());
  }
  for (const auto& r : redo->as_array()) {
    const auto* pair = r.if_array();
    if (!pair || pair->size() != 2 || !(*pair)[0].is_string() || !(*pair)[1].is_int64()) return std::nullopt;
    c.redo.emplace_back(std::string((*pair)[0].as_string()), static_cast<int>((*pair)[1].as_int64()));
  }
  if (const auto* squashed = o->if_contains("squashed")) {
    if (!squashed->is_bool()) return std::nullopt;
    c.squashed = squashed->as_bool();
  }
  if (c.plan.empty() && c.redo.empty()) return std::nullopt;
  return c;
}

} // namespace

std::string render_trailer_cache(const TrailerCache& cache) {
  json::array commits;
  commits.reserve(cache.newest_first.size());
  for (const auto& c : cache.newest_first) {
    json::array parents(c.parents.begin(), c.parents.end());
    json::array redo;
    for (const auto& [plan, task] : c.redo) redo.push_back(json::array{json::string(plan), task});
    json::object o{{"hash", c.hash}, {"parents", std::move(parents)}, {"plan", c.plan}, {"task", c.task},
                   {"spec", c.spec},   {"subject", c.subject},        {"redo", std::move(redo)}};
    if (c.squashed) o["squashed"] = true;
    commits.push_back(std::move(o));
  }
  json::object o{{"format", k_format},  {"version", k_version},          {"head", cache.head},
                 {"shallow", cache.shallow}, {"commits", std::move(commits)}};
  return json::serialize(o) + "\n";
}

std::optional<TrailerCache> parse_trailer_cache(std::string_view text) {
  boost::system::error_code ec;
  const auto v = json::parse(text, ec);
  const auto* o = ec ? nullptr : v.if_object();
  if (!o) return std::nullopt;
  const auto* format = string_at(*o, "format");
  const auto* version = o->if_contains("version");
  const auto* head = string_at(*o, "head");
  const auto* shallow = string_at(*o, "shallow");
  const auto* commits = o->if_contains("commits");
  if (!format || *format != k_format || !version || !version->is_int64() || version->as_int64() != k_version || !head ||
      !is_object_name(*head) || !shallow || !commits || !commits->is_array())
    return std::nullopt;
  TrailerCache cache{std::string(*head), std::string(*shallow), {}};
  cache.newest_first.reserve(commits->as_array().size());
  for (const auto& c : commits->as_array()) {
    auto commit = parse_commit(c);
    if (!commit) return std::nullopt;
    cache.newest_first.push_back(std::move(*commit));
  }
  return cache;
}

std::string shallow_fingerprint(const std::filesystem::path& git_dir) {
  const auto text = util::read_file(common_dir(git_dir) / "shallow");
  if (!text || text->empty()) return {};
  return fmt::format("{} {:016x}", text->size(), std::hash<std::string>{}(*text));
}

bool history_replaced(const std::filesystem::path& git_dir) {
  const auto common = common_dir(git_dir);
  std::error_code ec;
  if (std::filesystem::exists(common / "info/grafts", ec)) return true;
  if (std::filesystem::is_directory(common / "refs/replace", ec) && !std::filesystem::is_empty(common / "refs/replace", ec))
    return true;
  const auto packed = util::read_file(common / "packed-refs");
  return packed && packed->find(" refs/replace/") != std::string::npos;
}

} // namespace harness::worker
