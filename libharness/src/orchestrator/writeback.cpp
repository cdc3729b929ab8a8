#include "harness/orchestrator/writeback.hpp"

#include "harness/orchestrator/roadmap_ticks.hpp"

#include "harness/spec/document_parsers.hpp"
#include "harness/spec/frontmatter_writer.hpp"
#include "harness/spec/requirement_ticks.hpp"
#include "harness/util/atomic_file.hpp"
#include "harness/util/utc_time.hpp"
#include "harness/verify/human_answer.hpp"

#include <boost/json.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <cctype>
#include <cstdio>
#include <set>
#include <unistd.h>

namespace harness::orchestrator {
namespace fs = std::filesystem;

namespace {

/// A person's answer as SUMMARY keys. A SUMMARY may hold an earlier answer of the same kind (a
/// plan asked again after its files changed): a note left out now must not leave the old one.
std::vector<spec::FrontmatterUpdate> summary_answer(const spec::HumanAnswer& a) {
  auto out = verify::answer_frontmatter(a);
  if (a.note.empty()) out.push_back({a.approved ? "approval_note" : "refusal_note", "\"\""});
  return out;
}

std::expected<void, std::string> update_summary(const std::filesystem::path& summary,
                                                const std::vector<spec::FrontmatterUpdate>& updates) {
  auto text = util::read_file(summary);
  if (!text) return std::unexpected(text.error());
  auto updated = spec::update_frontmatter(*text, updates);
  if (!updated) return std::unexpected(summary.string() + ": " + updated.error());
  return util::write_file_atomic(summary, *updated);
}

} // namespace

std::expected<void, std::string> mark_summary_verification(const std::filesystem::path& summary, std::string_view status,
                                                           const std::optional<spec::HumanAnswer>& approval) {
  std::vector<spec::FrontmatterUpdate> updates = {{"verification", std::string(status)}};
  if (approval) std::ranges::move(summary_answer(*approval), std::back_inserter(updates));
  return update_summary(summary, updates);
}

std::expected<void, std::string> record_summary_refusal(const std::filesystem::path& summary, const spec::HumanAnswer& refusal) {
  return update_summary(summary, summary_answer(refusal));
}

std::expected<bool, std::string> mark_summary_failed(const std::filesystem::path& summary) {
  auto text = util::read_file(summary);
  if (!text) return std::unexpected(text.error());
  std::vector<spec::Diagnostic> ignored;
  if (spec::parse_summary(*text, summary.string(), ignored).status == "failed") return false;
  const bool has_frontmatter = text->starts_with("---\n") || text->starts_with("---\r\n");
  const std::string_view eol = spec::line_ending_of(*text); // a CRLF file gets no LF lines
  auto updated = has_frontmatter ? spec::update_frontmatter(*text, {{"status", "failed"}})
                                 : std::expected<std::string, std::string>(
                                       fmt::format("---{0}status: failed{0}---{0}{1}", eol, *text));
  if (!updated) return std::unexpected(summary.string() + ": " + updated.error());
  if (auto w = util::write_file_atomic(summary, *updated); !w) return std::unexpected(w.error());
  return true;
}

std::string render_status_md(const graph::Progress& p, std::string_view run_state,
                             const std::vector<spec::BlockedTask>& blocked) {
  // JSON strings are valid YAML double-quoted scalars, whatever a failure message contains.
  auto quoted = [](std::string_view v) { return boost::json::serialize(boost::json::string(v)); };
  std::string out = fmt::format("---\nrun: {}\n", quoted(run_state));
  if (blocked.empty()) out += "blocked: []\n";
  else out += "blocked:\n";
  for (const auto& b : blocked) out += fmt::format("  - task: {}\n    reason: {}\n", quoted(b.task), quoted(b.reason));
  out += fmt::format("---\n# Status: {}\n\n", p.spec_name);
  out += fmt::format("**{}** — {}/{} plans verified ({:.0f}%), {} executed.\n\n", run_state, p.plans_verified,
                     p.plans_total, p.percent, p.plans_executed);
  out += "| phase | name | state | executed | verified |\n|---|---|---|---|---|\n";
  for (const auto& ph : p.phases)
    out += fmt::format("| {} | {} | {} | {}/{} | {}/{} |\n", spec::to_string(ph.number), ph.name, ph.state, ph.executed,
                       ph.plans, ph.verified, ph.plans);
  out += "\n| plan | title | state |\n|---|---|---|\n";
  for (const auto& pl : p.plans)
    out += fmt::format("| {} | {} | {}{} |\n", pl.id, pl.title, graph::to_string(pl.state),
                       pl.unchecked ? ", waiting on its plan check" : "");
  out += "\n## Ready now\n";
  if (p.ready.empty()) out += "Nothing.\n";
  for (const auto& r : p.ready) out += fmt::format("- {}\n", r);
  if (!p.verifications_due.empty()) out += "\n## Verifications to run\n";
  for (const auto& v : p.verifications_due) out += fmt::format("- {}\n", v);
  out += "\n## Blockers\n";
  if (p.blockers.empty()) out += "None.\n";
  for (const auto& b : p.blockers) out += fmt::format("- {}\n", b);
  if (const auto more = graph::waiting_on_blockers_line(p); !more.empty() && !p.blockers.empty()) out += fmt::format("- {}\n", more);
  out += "\n_Written by harness-cli orchestrate; `harness-cli status` shows the same from the files._\n";
  return out;
}

double roadmap_minutes(const spec::Spec& spec) {
  return spec.roadmap ? spec.roadmap->frontmatter.velocity_total_execution_minutes.value_or(0) : 0;
}

std::expected<std::string, std::string> roadmap_with_progress(const spec::Spec& spec, const std::string& text,
                                                              const graph::Progress& p, double total_minutes,
                                                              bool running) {
  std::string ticked = tick_roadmap(text, p, util::utc_now("%Y-%m-%d")); // the day a phase is shown completed
  if (!spec.roadmap || !spec.roadmap->has_frontmatter) return ticked;
  int completed_phases = 0;
  std::string current = p.phases.empty() ? "" : spec::to_string(p.phases.back().number);
  bool found_current = false;
  for (const auto& ph : p.phases) {
    if (ph.state == "verified") ++completed_phases;
    else if (!found_current) current = spec::to_string(ph.number), found_current = true;
  }
  const int done = p.plans_verified;
  const std::string status = p.complete ? "complete" : !p.blockers.empty() ? "blocked" : running ? "executing" : "verifying";
  std::vector<spec::FrontmatterUpdate> updates = {
      {"current_phase", current.empty() ? "1" : "'" + current + "'"},
      {"status", status},
      {"total_phases", std::to_string(p.phases.size())},
      {"completed_phases", std::to_string(completed_phases)},
      {"total_plans", std::to_string(p.plans_total)},
      {"completed_plans", std::to_string(done)},
      {"velocity.total_plans_completed", std::to_string(done)},
      // Two decimals: plans of a few seconds (0.04 min) must not read as taking no time, and the
      // total is read back and added to by the next run, so its rounding adds up.
      {"velocity.total_execution_minutes", fmt::format("{:.2f}", total_minutes)},
      {"velocity.average_minutes_per_plan", fmt::format("{:.2f}", done > 0 ? total_minutes / done : 0.0)},
  };
  return spec::update_frontmatter(ticked, updates);
}

std::expected<DocumentWrite, std::string> update_roadmap(const spec::Spec& spec, const graph::Progress& p,
                                                         double total_minutes, bool running) {
  if (!spec.roadmap) return DocumentWrite{};
  auto text = util::read_file(spec.layout.roadmap_md);
  if (!text) return std::unexpected(text.error());
  auto after = roadmap_with_progress(spec, *text, p, total_minutes, running);
  if (!after) return std::unexpected(after.error());
  std::string write_error;
  if (*after != *text)
    if (auto w = util::write_file_atomic(spec.layout.roadmap_md, *after); !w) write_error = w.error();
  return DocumentWrite{std::move(*text), std::move(*after), std::move(write_error)};
}

std::map<std::string, bool, std::less<>> requirements_met(const spec::Spec& spec, const graph::Progress& progress) {
  std::map<std::string, bool, std::less<>> met;
  for (const auto& plan : progress.plans) {
    const auto* p = spec.find_plan(plan.id);
    if (!p) continue;
    for (const auto& id : p->requirements) {
      auto [it, added] = met.try_emplace(id, true);
      it->second = it->second && plan.state == graph::PlanState::verified;
    }
  }
  return met;
}

std::expected<DocumentWrite, std::string> update_requirements(const spec::Spec& spec, const graph::Progress& progress) {
  std::error_code ec;
  if (!fs::is_regular_file(spec.layout.requirements_md, ec)) return DocumentWrite{};
  auto text = util::read_file(spec.layout.requirements_md);
  if (!text) return std::unexpected(text.error());
  std::string after = spec::tick_requirements(*text, requirements_met(spec, progress));
  std::string write_error;
  if (after != *text)
    if (auto w = util::write_file_atomic(spec.layout.requirements_md, after); !w) write_error = w.error();
  return DocumentWrite{std::move(*text), std::move(after), std::move(write_error)};
}

std::expected<void, std::string> append_commits_log(const std::filesystem::path& log, const std::vector<std::string>& lines) {
  if (lines.empty()) return {};
  std::error_code ec;
  std::filesystem::create_directories(log.parent_path(), ec);
  std::FILE* f = std::fopen(log.c_str(), "ae"); // "e": close-on-exec, workers must not inherit it
  if (!f) return std::unexpected("cannot append to " + log.string());
  for (const auto& l : lines) std::fprintf(f, "%s\n", l.c_str());
  const bool ok = std::fflush(f) == 0 && ::fsync(fileno(f)) == 0;
  std::fclose(f);
  if (!ok) return std::unexpected("cannot write " + log.string());
  return {};
}

std::optional<std::string> whole_commits_log(std::string_view known, std::string_view now) {
  if (now.starts_with(known)) return std::nullopt;
  std::string out(known);
  if (!out.empty() && out.back() != '\n') out += '\n';
  std::set<std::string_view> have;
  for (std::string_view rest = known; !rest.empty();) {
    const size_t nl = rest.find('\n');
    have.insert(rest.substr(0, nl));
    rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
  }
  for (std::string_view rest = now; !rest.empty();) {
    const size_t nl = rest.find('\n');
    const std::string_view line = rest.substr(0, nl);
    if (!line.empty() && !have.contains(line)) out.append(line).append("\n");
    rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
  }
  return out;
}

std::vector<std::string> missing_commit_lines(std::string_view existing_log,
                                              const std::vector<std::pair<std::string, std::string>>& commits,
                                              std::string_view session) {
  std::set<std::string_view> logged;
  while (!existing_log.empty()) {
    const size_t nl = existing_log.find('\n');
    std::string_view line = existing_log.substr(0, nl);
    existing_log = nl == std::string_view::npos ? std::string_view() : existing_log.substr(nl + 1);
    logged.insert(line.substr(0, line.find(' ')));
  }
  std::vector<std::string> out;
  for (const auto& [hash, plan] : commits)
    if (logged.insert(hash).second) out.push_back(fmt::format("{} {} {}", hash, plan, session));
  return out;
}

std::string uncommitted_writes_key(std::string_view spec_name) { return fmt::format("uncommitted_writes:{}", spec_name); }

std::string executor_asked_key(std::string_view spec_name) { return fmt::format("executor_asked:{}", spec_name); }

std::string encode_paths(const std::set<std::string>& paths) {
  boost::json::array a;
  for (const auto& p : paths) a.emplace_back(p);
  return boost::json::serialize(a);
}

std::set<std::string> decode_paths(std::string_view json) {
  boost::system::error_code ec;
  auto v = boost::json::parse(json, ec);
  std::set<std::string> out;
  if (ec || !v.is_array()) return out;
  for (const auto& p : v.as_array())
    if (p.is_string() && !p.as_string().empty()) out.emplace(p.as_string().c_str());
  return out;
}

std::string unrecorded_writes_taken_key() { return "unrecorded_writes_taken"; }

namespace {

std::string relative_to_root(const spec::Spec& spec, const std::filesystem::path& p) {
  std::error_code ec;
  return std::filesystem::relative(p, spec.layout.project_root, ec).generic_string();
}

std::set<std::string> summary_paths(const spec::Spec& spec) {
  std::set<std::string> out;
  for (const auto& plan : spec.plans)
    if (const auto* phase = spec.layout.find_phase(plan.phase)) out.insert(relative_to_root(spec, spec.layout.summary_file(*phase, plan.id)));
  return out;
}

} // namespace

std::vector<std::string> orchestrator_documents(const spec::Spec& spec) {
  std::set<std::string> out = summary_paths(spec);
  for (const auto& p : {spec.layout.status_md, spec.layout.roadmap_md, spec.layout.commits_log, spec.layout.final_verification})
    out.insert(relative_to_root(spec, p));
  for (const auto& phase : spec.layout.phases) out.insert(relative_to_root(spec, spec.layout.verification_file(phase)));
  return {out.begin(), out.end()};
}

std::set<std::string> unrecorded_writes(const spec::Spec& spec, const std::vector<worker::GitChange>& changed) {
  const auto documents = orchestrator_documents(spec);
  const std::set<std::string> ours(documents.begin(), documents.end());
  const auto summaries = summary_paths(spec);
  std::set<std::string> out;
  for (const auto& c : changed)
    if (ours.contains(c.path) && !(summaries.contains(c.path) && (c.untracked || c.added))) out.insert(c.path);
  return out;
}

std::vector<std::string> writeback_paths(const std::vector<worker::GitChange>& changed, const std::set<std::string>& own,
                                         const std::set<std::string>& live) {
  std::vector<std::string> out;
  for (const auto& c : changed)
    if (own.contains(c.path) && !live.contains(c.path) && !c.deleted) out.push_back(c.path);
  return out;
}

std::string unwritten_text(const std::vector<UnwrittenDocument>& unwritten, std::string_view spec_arg, bool complete) {
  if (unwritten.empty()) return {};
  // Files that failed alike (one refused commit, a full disk) make one item with the reason once.
  std::vector<std::pair<const UnwrittenDocument*, std::vector<std::string>>> alike;
  for (const auto& u : unwritten) {
    auto same = std::ranges::find_if(alike, [&](const auto& a) { return a.first->step == u.step && a.first->error == u.error; });
    if (same == alike.end()) alike.push_back({&u, {u.file}});
    else same->second.push_back(u.file);
  }
  constexpr std::size_t shown = 5;
  std::string items;
  for (const auto& [first, files] : alike) {
    std::string names;
    for (std::size_t i = 0; i < files.size() && i < shown; ++i) names += (i ? ", " : "") + files[i];
    if (files.size() > shown) names += fmt::format(" and {} more", files.size() - shown);
    // git's complaint comes in lines: the message stays one.
    std::string why = first->error;
    while (!why.empty() && std::isspace(static_cast<unsigned char>(why.back()))) why.pop_back();
    for (std::size_t nl; (nl = why.find('\n')) != std::string::npos;) why.replace(nl, 1, "; ");
    items += fmt::format("{}not {}: {} ({})", items.empty() ? "" : "; ",
                         first->step == UnwrittenDocument::Step::write ? "written" : "committed", names, why);
  }
  // The hint only where the reason says so: for a stale index.lock or a hook's refusal it misleads.
  const bool disk_full = std::ranges::any_of(unwritten, [](const UnwrittenDocument& u) {
    return u.error.find("No space left on device") != std::string::npos ||
           u.error.find("Disk quota exceeded") != std::string::npos || u.error.find("disk is full") != std::string::npos;
  });
  return fmt::format("{}: {}; fix that{}, then run harness-cli orchestrate {} again: it writes and commits them",
                     complete ? "the spec is complete, but the run could not write or commit its documents"
                              : "the run could not write or commit some of its documents",
                     items, disk_full ? " (free space on a full disk)" : "", spec_arg);
}

} // namespace harness::orchestrator
