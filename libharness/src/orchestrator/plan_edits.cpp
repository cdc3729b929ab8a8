#include "harness/orchestrator/plan_edits.hpp"

#include "harness/sched/spec_workload.hpp"
#include "harness/spec/diagnostic.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <set>

namespace harness::orchestrator {
namespace fs = std::filesystem;
using sched::EditFate;

namespace {

void mix(std::size_t& h, std::string_view s) {
  h ^= std::hash<std::string_view>{}(s) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
}

bool same_frontmatter(const sched::WorkPlan& a, const sched::WorkPlan& b) {
  return a.phase == b.phase && a.depends_on == b.depends_on && a.files_modified == b.files_modified &&
         a.files_read == b.files_read && a.estimate == b.estimate && a.checkpoints == b.checkpoints &&
         a.autonomous == b.autonomous;
}

std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out.empty() ? "nothing" : out;
}

/// " (now writes a, b; depends on 01-01)": what the scheduler reads that changed. A file fixed
/// after errors is compared with the plan before them: nothing to add when it is that again.
std::string what_changed(const sched::WorkPlan& before, const sched::WorkPlan& now, bool was_held) {
  std::vector<std::string> parts;
  if (before.files_modified != now.files_modified) parts.push_back("now writes " + joined(now.files_modified));
  if (before.depends_on != now.depends_on) parts.push_back("now depends on " + joined(now.depends_on));
  if (before.files_read != now.files_read) parts.push_back("now reads " + joined(now.files_read));
  if (before.estimate != now.estimate)
    parts.push_back(now.estimate ? fmt::format("estimate {:g} min", *now.estimate) : std::string("no estimate"));
  if (before.checkpoints != now.checkpoints || before.autonomous != now.autonomous) parts.push_back("its checkpoints changed");
  if (parts.empty()) return was_held ? std::string() : " (its tasks or checks; what it writes and waits for is unchanged)";
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : "; ") + p;
  return " (" + out + ")";
}

std::string file_name(const std::string& file) { return fs::path(file).filename().string(); }

/// "file:line: error[code]: message" of the first error in `file`, and how many more there are.
std::string errors_of(const spec::Spec& spec, const std::string& file) {
  std::string first;
  int more = 0;
  for (const auto& d : spec.diagnostics) {
    if (d.severity != spec::Severity::error || d.file != file) continue;
    if (first.empty()) first = spec::render_line(d);
    else ++more;
  }
  if (more > 0) first += fmt::format(" (and {} more)", more);
  return first;
}

} // namespace

PlanSnapshot snapshot_plan(const spec::Plan& p) {
  PlanSnapshot s;
  s.file = p.file;
  s.frontmatter = sched::work_plan_of(p);
  // What a worker and the verifier act on beyond the frontmatter; prose and line numbers are not.
  std::size_t h = 0;
  mix(h, p.title);
  mix(h, p.objective);
  mix(h, p.type);
  for (const auto& t : p.tasks) mix(h, t.name);
  for (const auto& b : p.code_blocks) {
    mix(h, b.info);
    mix(h, b.code);
  }
  for (const auto& c : p.must_pass) {
    mix(h, c.id);
    mix(h, spec::to_string(c.type));
    mix(h, c.path);
    mix(h, c.pattern);
    mix(h, c.command.text);
    mix(h, c.url);
  }
  for (const auto& r : p.requirements) mix(h, r);
  for (const auto& t : p.must_haves.truths) mix(h, t);
  for (const auto& a : p.must_haves.artifacts) mix(h, a.path);
  s.digest = h;
  return s;
}

PlanSnapshots snapshot_plans(const spec::Spec& spec) {
  PlanSnapshots out;
  for (const auto& p : spec.plans) out.emplace(p.id, snapshot_plan(p));
  return out;
}

PlanEdits find_plan_edits(const PlanSnapshots& seen, const spec::Spec& now,
                          const std::function<EditFate(const std::string&, const spec::PhaseNumber&)>& fate,
                          const OwnWriter& own) {
  PlanEdits out;
  out.event = sched::make_event(sched::EventType::plans_edited);
  out.seen = seen;
  auto note = [&](const std::string& id, std::string message) { out.notes.push_back({"execute:" + id, std::move(message)}); };
  std::map<std::string, const spec::Plan*> by_id;
  for (const auto& p : now.plans) by_id.emplace(p.id, &p);

  for (const auto& [id, old] : seen) {
    if (own(id, old.frontmatter.phase)) {
      out.deferred = true;
      continue;
    }
    auto it = by_id.find(id);
    const std::string file = it == by_id.end() ? old.file : it->second->file;
    const std::string errors = errors_of(now, file);
    std::error_code ec;
    const bool file_there = fs::exists(now.layout.spec_dir / old.file, ec);
    const EditFate f = fate(id, old.frontmatter.phase);
    const bool known = f == EditFate::applies || f == EditFate::next_attempt || f == EditFate::has_run;
    if (it == by_id.end() && errors.empty() && !file_there) { // removed
      out.seen.erase(id);
      if (!known) continue;
      out.event.removed.push_back(id);
      note(id, f == EditFate::applies ? fmt::format("{} removed during the run: dropped", id)
               : f == EditFate::next_attempt
                   ? fmt::format("{} removed during the run: it is running and goes on; it is not run again", id)
                   : fmt::format("{} removed during the run: it has run already; its work stays", id));
      continue;
    }
    if (!errors.empty() || it == by_id.end()) { // does not validate
      if (old.held) continue; // said already
      out.seen[id].held = true;
      const std::string what = errors.empty() ? fmt::format("{} does not parse", old.file) : errors;
      if (!known) {
        note(id, fmt::format("{} added during the run but does not validate: {}; not taken until the file is fixed",
                             id, what));
        continue;
      }
      out.event.held.push_back(id);
      // Its own file as it was: another plan's edit or removal broke it (a depends_on that names
      // a plan gone), and the note says so rather than blame an edit nobody made.
      const bool unchanged = it != by_id.end() && snapshot_plan(*it->second).digest == old.digest &&
                             same_frontmatter(snapshot_plan(*it->second).frontmatter, old.frontmatter);
      note(id, fmt::format("{} {}: {}; {}", file_name(file),
                           unchanged ? "no longer validates, though it did not change (a plan it names was removed or "
                                       "changed during the run)"
                                     : "changed during the run and does not validate",
                           what,
                           f == EditFate::applies       ? fmt::format("{} is held until the file is fixed", id)
                           : f == EditFate::next_attempt ? fmt::format("{} is running as it started; it does not run again until the file is fixed", id)
                                                         : fmt::format("{} has run already and stays as it ran", id)));
      continue;
    }
    auto snap = snapshot_plan(*it->second);
    if (!old.held && snap.digest == old.digest && same_frontmatter(snap.frontmatter, old.frontmatter)) continue;
    out.seen[id] = snap;
    if (!known) continue; // an added plan fixed: taken below with the other new ones
    out.event.plans.push_back(snap.frontmatter);
    const std::string head = fmt::format("{} {} during the run", file_name(file), old.held ? "was fixed" : "changed");
    note(id, f == EditFate::applies ? head + ": re-read" + what_changed(old.frontmatter, snap.frontmatter, old.held)
             : f == EditFate::next_attempt
                 ? fmt::format("{}: {} is running as it started (and is checked so in this run); the edit applies to "
                               "its work if it runs again",
                               head, id)
                 : fmt::format("{}: {} has run already and stays as it ran; the edit applies only if it runs again", head, id));
  }

  for (const auto& p : now.plans) {
    const EditFate f = fate(p.id, p.phase);
    const bool known = f == EditFate::applies || f == EditFate::next_attempt || f == EditFate::has_run;
    if (known) continue;
    auto old = seen.find(p.id);
    if (old != seen.end() && old->second.held && out.seen[p.id].held) continue; // still broken, said already
    if (old != seen.end() && !old->second.held) continue; // known to the snapshot and not taken before: said already
    if (own(p.id, p.phase)) {
      out.deferred = true;
      continue;
    }
    const std::string phase = spec::to_string(p.phase);
    if (old == seen.end()) {
      if (const auto errors = errors_of(now, p.file); !errors.empty()) {
        auto snap = snapshot_plan(p);
        snap.held = true;
        out.seen[p.id] = snap;
        note(p.id, fmt::format("{} added during the run but does not validate: {}; not taken until the file is fixed",
                               p.id, errors));
        continue;
      }
      out.seen[p.id] = snapshot_plan(p);
    }
    switch (f) {
    case EditFate::joins:
      out.event.plans.push_back(sched::work_plan_of(p));
      note(p.id, fmt::format("{} added during the run: joins phase {}", p.id, phase));
      break;
    case EditFate::phase_verified:
      note(p.id, fmt::format("{} added during the run: phase {} is verified (or being verified) already; the next "
                             "run executes it",
                             p.id, phase));
      break;
    default:
      note(p.id, fmt::format("{} added during the run: phase {} is not open in this run (not planned yet, or new); the "
                             "next run reads it",
                             p.id, phase));
      break;
    }
  }
  return out;
}

} // namespace harness::orchestrator
