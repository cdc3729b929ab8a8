#include "harness/verify/result.hpp"
#include "harness/util/text.hpp"
#include "harness/util/json_text.hpp"

#include <boost/json.hpp>
#include <fmt/format.h>

#include <algorithm>

namespace harness::verify {

std::string_view to_string(CheckStatus s) {
  switch (s) {
  case CheckStatus::passed: return "passed";
  case CheckStatus::failed: return "failed";
  case CheckStatus::error: return "error";
  case CheckStatus::skipped: return "skipped";
  case CheckStatus::human: return "human";
  }
  return "error";
}

int Report::passed() const {
  int n = 0;
  for (const auto& r : results) n += r.status == CheckStatus::passed;
  return n;
}

int Report::total() const {
  int n = 0;
  for (const auto& r : results) n += r.status != CheckStatus::skipped;
  return n;
}

bool history_cut(const Report& report) {
  return std::any_of(report.results.begin(), report.results.end(), [](const CheckResult& r) { return r.history_cut; });
}

spec::VerificationStatus overall_status(const std::vector<CheckResult>& results) {
  bool human = false;
  for (const auto& r : results) {
    if (r.status == CheckStatus::failed || r.status == CheckStatus::error) return spec::VerificationStatus::gaps_found;
    human |= r.status == CheckStatus::human;
  }
  return human ? spec::VerificationStatus::human_needed : spec::VerificationStatus::passed;
}

namespace {

constexpr std::size_t cell_width = 120;

std::string cell(std::string s) {
  for (auto& c : s)
    if (c == '\n' || c == '|') c = ' ';
  if (s.size() > cell_width) s = std::string(util::utf8_prefix(s, cell_width - 3)) + "...";
  return s;
}

/// The table's cell for `c`. A commits message too long for it keeps its list of files changed
/// outside files_modified whole names only, as many as fit, then "and N more": clipped in the
/// middle of a name, the one file that matters (another plan's) was cut to "out/01...".
std::string table_cell(const CheckResult& c) {
  const std::string& text = c.message.empty() ? c.evidence : c.message;
  const auto at = text.find(outside_files_label);
  if (text.size() <= cell_width || c.outside_files.empty() || at == std::string::npos) return cell(text);
  const std::string head = text.substr(0, at + outside_files_label.size());
  const std::size_t total = c.outside_files.size();
  for (std::size_t n = total; n > 0; --n) {
    std::string names;
    for (std::size_t i = 0; i < n; ++i) names += (i ? ", " : "") + c.outside_files[i];
    if (n < total) names += fmt::format(" and {} more", total - n);
    if (head.size() + names.size() <= cell_width) return cell(head + names);
  }
  if (auto count = fmt::format("{} files", total); head.size() + count.size() <= cell_width) return cell(head + count);
  return cell(text);
}

} // namespace

std::string render_verification_md(const Report& r, std::string_view when) {
  std::string out = "---\n";
  out += fmt::format("status: {}\nlevel: '{}'\nscore: {}/{}\nverified_at: '{}'\n", spec::to_string(r.status), r.level,
                     r.passed(), r.total(), when);
  std::string plans;
  for (const auto& p : r.plans) plans += fmt::format("{}'{}'", plans.empty() ? "" : ", ", p);
  out += fmt::format("plans: [{}]\n", plans);
  if (!r.work_hash.empty()) out += fmt::format("work_hash: '{}'\n", r.work_hash);
  out += "---\n";
  out += fmt::format("# Verification: {} ({})\n\n**{}**: {} of {} checks passed.\n\n", r.spec_name, r.level,
                     spec::to_string(r.status), r.passed(), r.total());
  out += "| plan | check | type | status | seconds | evidence |\n|---|---|---|---|---|---|\n";
  for (const auto& c : r.results)
    out += fmt::format("| {} | {} | {} | {} | {:.2f} | {} |\n", c.plan.empty() ? "-" : c.plan, c.id, c.type,
                       to_string(c.status), c.seconds, table_cell(c));
  out += "\n## Gaps\n";
  bool any = false;
  for (const auto& c : r.results) {
    if (c.status != CheckStatus::failed && c.status != CheckStatus::error) continue;
    any = true;
    out += fmt::format("- **{}{}** ({}{}): {}\n", c.plan.empty() ? "" : c.plan + " / ", c.id, c.type,
                       // Line 0 means plan-wide (e.g. the commits check): name the file only.
                       c.file.empty()  ? ""
                       : c.line > 0    ? fmt::format(", {}:{}", c.file, c.line)
                                       : ", " + c.file,
                       c.message);
    if (!c.evidence.empty()) out += fmt::format("  ```\n  {}\n  ```\n", cell(c.evidence));
  }
  if (!any) out += "None.\n";
  out += "\n## Needs a human\n";
  any = false;
  for (const auto& c : r.results)
    if (c.status == CheckStatus::human) {
      any = true;
      out += fmt::format("- {}{}: {}\n", c.plan.empty() ? "" : c.plan + " / ", c.id, c.message);
    }
  if (!any) out += "Nothing.\n";
  return out;
}

std::string report_json(const Report& r, const std::optional<spec::HumanAnswer>& kept_approval,
                        const std::optional<DroppedApproval>& dropped) {
  boost::json::array results;
  for (const auto& c : r.results)
    results.push_back(boost::json::object{{"plan", c.plan},       {"id", c.id},
                                          {"type", c.type},       {"status", to_string(c.status)},
                                          {"seconds", c.seconds}, {"evidence", c.evidence},
                                          {"message", c.message}, {"file", c.file},
                                          {"line", c.line}});
  boost::json::object o{{"level", r.level}, {"status", spec::to_string(r.status)}, {"passed", r.passed()},
                        {"total", r.total()}, {"results", std::move(results)}};
  if (kept_approval)
    o["kept_approval"] = {{"by", kept_approval->by}, {"at", kept_approval->at}, {"note", kept_approval->note}};
  if (dropped)
    o["dropped_approval"] = {{"by", dropped->answer.by},         {"at", dropped->answer.at},
                             {"note", dropped->answer.note},     {"reason", dropped->reason},
                             {"approved_work_hash", dropped->approved_work_hash}, {"work_hash", r.work_hash}};
  return harness::util::json_text(o) + "\n";
}

} // namespace harness::verify
