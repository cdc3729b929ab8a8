#include "harness/orchestrator/planning.hpp"

#include "harness/sched/spec_workload.hpp"
#include "harness/setup/install.hpp"
#include "harness/spec/diagnostic.hpp"
#include "harness/spec/plan_checkpoints.hpp"
#include "harness/util/atomic_file.hpp"

#include <boost/json.hpp>
#include <fmt/format.h>

#include <set>

#include <algorithm>

namespace harness::orchestrator {
namespace fs = std::filesystem;
namespace json = boost::json;
using sched::TaskKind;

namespace {

const spec::RoadmapPhase* roadmap_phase(const spec::Spec& spec, spec::PhaseNumber n) {
  if (!spec.roadmap) return nullptr;
  auto it = std::ranges::find(spec.roadmap->phases, n, &spec::RoadmapPhase::number);
  return it == spec.roadmap->phases.end() ? nullptr : &*it;
}

std::vector<const spec::Plan*> plans_of(const spec::Spec& spec, spec::PhaseNumber n) {
  std::vector<const spec::Plan*> out;
  for (const auto& p : spec.plans)
    if (p.phase == n) out.push_back(&p);
  return out;
}

/// Error diagnostics about the phase's plans: inside its plans directory or naming one of its
/// PLAN files (cross-plan checks such as an unknown dependency point at the plan).
std::vector<std::string> phase_errors(const spec::Spec& spec, spec::PhaseNumber n) {
  const std::string dir = spec.layout.relative(phase_plans_dir(spec, n)) + "/";
  std::vector<std::string> out;
  for (const auto& d : spec.diagnostics) {
    if (d.severity != spec::Severity::error) continue;
    const bool in_dir = d.file.starts_with(dir);
    const bool names_plan = std::ranges::any_of(plans_of(spec, n), [&](const spec::Plan* p) { return p->file == d.file; });
    if (in_dir || names_plan) out.push_back(spec::render_line(d));
  }
  return out;
}

std::string first_few(const std::vector<std::string>& lines) {
  std::string out;
  for (std::size_t i = 0; i < lines.size() && i < 3; ++i) out += (i ? "; " : "") + lines[i];
  if (lines.size() > 3) out += fmt::format(" (and {} more)", lines.size() - 3);
  return out;
}

json::array strings(const std::vector<std::string>& v) {
  json::array a;
  for (const auto& s : v) a.emplace_back(s);
  return a;
}

std::string expected_where(const spec::Spec& spec, spec::PhaseNumber n) {
  return fmt::format("{}/{}-NN-PLAN.md", spec.layout.relative(phase_plans_dir(spec, n)), spec::to_string(n));
}

} // namespace

fs::path phase_plans_dir(const spec::Spec& spec, spec::PhaseNumber n) {
  if (const auto* d = spec.layout.find_phase(n)) return d->plans_dir;
  const auto* r = roadmap_phase(spec, n);
  const std::string name = r && !r->name.empty() ? setup::slug(r->name) : std::string("phase");
  return spec.layout.plans_dir / (spec::to_string(n) + "-" + name);
}

std::expected<PlanningResult, std::string> planning_event(const spec::Spec& spec, const sched::Action& a,
                                                          const std::function<bool(const std::string&)>& known,
                                                          const PlanningReport& report, VerdictFrom from) {
  const auto n = spec::parse_phase_number(a.subject);
  if (!n) return std::unexpected(fmt::format("{}: \"{}\" is not a phase number", a.task, a.subject));
  const std::string phase = spec::to_string(*n);
  PlanningResult r;
  r.event = sched::make_event(sched::EventType::succeeded, a.task);
  r.event.task_index = a.task_index;
  const auto errors = phase_errors(spec, *n);
  switch (a.kind) {
  case TaskKind::plan:
  case TaskKind::plan_gaps: {
    if (!errors.empty()) return std::unexpected(fmt::format("the plans of phase {} have errors: {}", phase, first_few(errors)));
    for (auto& wp : sched::workload_from_spec(spec).plans)
      if (wp.phase == *n && (a.kind == TaskKind::plan || !known(wp.id))) r.event.plans.push_back(std::move(wp));
    if (r.event.plans.empty())
      return std::unexpected(a.kind == TaskKind::plan
                                 ? fmt::format("no PLAN files for phase {} (expected {})", phase, expected_where(spec, *n))
                                 : fmt::format("no new PLAN files for the gaps of phase {} (expected {})", phase,
                                               expected_where(spec, *n)));
    return r;
  }
  case TaskKind::check_plans:
    if (from == VerdictFrom::worker && report.verdict != "pass" && report.verdict != "revise")
      return std::unexpected(
          report.verdict ? fmt::format("the plan checker's verdict '{}' is neither \"pass\" nor \"revise\"", *report.verdict)
                         : std::string("the plan checker reported task_completed without a verdict (\"pass\" or \"revise\")"));
    // A planner sent back with nothing named has nothing to act on (review SS M5).
    if (from == VerdictFrom::worker && report.verdict == "revise" && report.findings.empty() && errors.empty())
      return std::unexpected(std::string("the plan checker's verdict is \"revise\" but it named no finding (findings: one "
                                         "entry per thing the planner must change)"));
    r.findings = report.findings;
    r.findings.insert(r.findings.end(), errors.begin(), errors.end());
    r.event.verdict = report.verdict == "revise" || !errors.empty() ? sched::Verdict::revise : sched::Verdict::passed;
    if (r.event.verdict == sched::Verdict::revise) r.event.detail = first_few(r.findings);
    return r;
  default: return std::unexpected(fmt::format("{} is not a planning task", a.task));
  }
}

std::expected<sched::Event, std::string> reconcile_event(const spec::Spec& spec, const sched::Action& a) {
  const auto* plan = spec.find_plan(a.subject);
  if (!plan)
    return std::unexpected(fmt::format("the reconcile left no plan {}: its PLAN file is gone or its plan_id changed",
                                       a.subject));
  std::vector<std::string> errors;
  for (const auto& d : spec.diagnostics)
    if (d.severity == spec::Severity::error && d.file == plan->file)
      errors.push_back(spec::render_line(d));
  if (!errors.empty()) return std::unexpected("the reconciled plan has errors: " + first_few(errors));
  auto e = sched::make_event(sched::EventType::succeeded, a.task);
  e.task_index = a.task_index;
  for (auto& wp : sched::workload_from_spec(spec).plans)
    if (wp.id == plan->id) e.plans.push_back(std::move(wp));
  return e;
}

std::string research_missing(const spec::Spec& spec, const sched::Action& a) {
  const auto n = spec::parse_phase_number(a.subject);
  if (!n) return fmt::format("{}: \"{}\" is not a phase number", a.task, a.subject);
  const fs::path file = spec.layout.research_file(*n);
  const auto text = util::read_file(file);
  if (text && text->find_first_not_of(" \t\r\n") != std::string::npos) return {};
  return fmt::format("no research file for phase {} (expected {}{})", spec::to_string(*n), spec.layout.relative(file),
                     text ? ", which is empty" : "");
}

json::object task_brief(const spec::Spec& spec, const sched::Action& a, const fs::path& templates_dir,
                        const std::vector<std::string>& revision_findings,
                        const std::vector<std::pair<int, std::string>>& committed_tasks,
                        const std::vector<std::string>& person_notes, const std::string& earlier_failure) {
  json::object o{{"task", a.task},       {"kind", sched::to_string(a.kind)}, {"subject", a.subject},
                 {"attempt", a.attempt}, {"spec_dir", spec.layout.spec_dir.string()}};
  if (!person_notes.empty()) o["person_notes"] = strings(person_notes);
  if (!earlier_failure.empty()) o["earlier_attempt_failed"] = earlier_failure;
  auto tmpl = [&](const char* name) { return (templates_dir / name).string(); };
  const auto n = spec::parse_phase_number(a.subject);
  if (n) {
    o["phase"] = spec::to_string(*n);
    if (const auto* r = roadmap_phase(spec, *n)) {
      o["phase_name"] = r->name;
      o["phase_goal"] = r->goal;
      o["success_criteria"] = strings(r->success_criteria);
    }
    if (spec.roadmap) o["roadmap"] = (spec.layout.spec_dir / spec.roadmap->file).string();
  }
  json::array plan_files;
  if (n)
    for (const auto* p : plans_of(spec, *n)) plan_files.emplace_back((spec.layout.spec_dir / p->file).string());
  const bool phase_task = a.kind == TaskKind::research || a.kind == TaskKind::plan ||
                          a.kind == TaskKind::check_plans || a.kind == TaskKind::plan_gaps;
  if (phase_task && !n) return o;
  // What the plans must serve: the planner and the checker are told to trace requirements and to
  // honour the decisions PROJECT.md records, so the input names where those are (review NN F4).
  if (a.kind == TaskKind::plan || a.kind == TaskKind::check_plans || a.kind == TaskKind::plan_gaps)
    for (std::set<fs::path> named; const auto& [key, file] : {std::pair{"spec", &spec.layout.spec_md},
                                                               std::pair{"project", &spec.layout.project_md},
                                                               std::pair{"requirements", &spec.layout.requirements_md}})
      // A GSD project's PROJECT.md is its spec too: named once.
      if (std::error_code ec; !file->empty() && fs::is_regular_file(*file, ec) && named.insert(*file).second)
        o[key] = file->string();
  switch (a.kind) {
  case TaskKind::research:
    o["output"] = spec.layout.research_file(*n).string();
    o["template"] = tmpl("research.md");
    o["instructions"] = "Research what this phase needs (stack, patterns, pitfalls) and write the research file "
                        "from the template. Do not plan and do not change code.";
    break;
  case TaskKind::plan:
    o["plans_dir"] = phase_plans_dir(spec, *n).string();
    o["plan_file_pattern"] = fmt::format("{}-NN-PLAN.md (NN from 01; plan_id '{}-NN')", o["phase"].as_string(),
                                         o["phase"].as_string());
    o["template"] = tmpl("plan.md");
    if (std::error_code ec; fs::exists(spec.layout.research_file(*n), ec))
      o["research"] = spec.layout.research_file(*n).string();
    o["existing_plans"] = plan_files;
    o["instructions"] = "Write this phase's PLAN files from the template: frontmatter with depends_on, "
                        "files_modified, files_read and must_pass; small plans; no plan writes what "
                        "another writes unless it depends on it. Do not execute them.";
    if (!plan_files.empty() && revision_findings.empty() && !earlier_failure.empty())
      o["instructions"] = "This phase's previous planning attempt failed (earlier_attempt_failed says why): "
                          "existing_plans are what it left. Fix them (every error named there; delete a PLAN file "
                          "that should not exist) so that they validate and cover the phase goal. Do not execute them.";
    else if (!plan_files.empty() && revision_findings.empty())
      // Only an interrupted pass leaves plans before the planner runs (a planned phase has no plan task).
      o["instructions"] = "An earlier planning pass of this phase was interrupted: existing_plans are what it "
                          "wrote. Complete them (add the plans the phase still needs, fix unfinished ones, delete "
                          "a PLAN file that should not exist) so that they cover the phase goal. Do not execute them.";
    if (!revision_findings.empty()) {
      o["revision_findings"] = strings(revision_findings);
      o["instructions"] = "The plan checker sent this phase's plans back: revise the existing PLAN files so "
                          "that every finding in revision_findings is addressed; keep plans that are fine.";
    }
    break;
  case TaskKind::check_plans:
    o["plans"] = plan_files;
    o["instructions"] = "Check these plans against the phase goal and success criteria, each other "
                        "(dependencies, overlapping files_modified) and the requirements. Do not edit them. "
                        "Report task_completed with verdict \"pass\" or \"revise\" and findings: one entry "
                        "per thing the planner must change.";
    break;
  case TaskKind::plan_gaps:
    o["plans_dir"] = phase_plans_dir(spec, *n).string();
    if (const auto* d = spec.layout.find_phase(*n)) o["verification"] = spec.layout.verification_file(*d).string();
    o["template"] = tmpl("plan.md");
    o["existing_plans"] = plan_files;
    o["instructions"] = "The phase verification found gaps: write new PLAN files (next free numbers, "
                        "gap_closure: true) that close them. Do not change the plans that already ran.";
    break;
  case TaskKind::reconcile:
  case TaskKind::execute:
    if (const auto* p = spec.find_plan(a.subject)) {
      o["plan_file"] = (spec.layout.spec_dir / p->file).string();
      // Where the harness looks for it: an agent should not have to work the phase directory out.
      if (const auto* dir = spec.layout.find_phase(p->phase); dir && a.kind == TaskKind::execute)
        o["summary_file"] = spec.layout.summary_file(*dir, p->id).string();
      if (a.kind == TaskKind::execute) {
        // The SUMMARY's keys and the values the harness takes; GSD's own keys too in a GSD
        // project, whose later planning and milestone audit read them.
        const bool gsd = spec.layout.kind == spec::LayoutKind::legacy_gsd;
        o["template"] = tmpl(gsd ? "summary-gsd.md" : "summary.md");
        if (gsd)
          o["instructions"] = "A GSD project: write the SUMMARY from the template with GSD's keys filled in "
                              "(requirements-completed: the plan's requirements you met). Where the PLAN's "
                              "<execution_context> workflow commits, or updates STATE.md or ROADMAP.md, the harness "
                              "does that here: commit with harness_worker_commit, and leave STATE.md and ROADMAP.md "
                              "alone.";
        // Where its planner said a person is needed: the executor asks there (decision, action).
        json::array kinds;
        for (const auto k : spec::checkpoint_kinds(*p)) kinds.emplace_back(spec::to_string(k));
        if (!kinds.empty()) o["checkpoints"] = std::move(kinds);
        if (!p->autonomous) o["autonomous"] = false;
      }
      if (a.kind == TaskKind::reconcile) {
        // The plans it depends on or follows whose SUMMARY reports deviations.
        json::array deviations;
        for (const auto& q : spec.plans) {
          const bool before = std::ranges::find(p->depends_on, q.id) != p->depends_on.end() ||
                              (q.phase == p->phase && q.number + 1 == p->number);
          auto s = spec.summaries.find(q.id);
          if (before && s != spec.summaries.end() && s->second.has_deviations)
            deviations.emplace_back((spec.layout.spec_dir / s->second.file).string());
        }
        o["deviating_summaries"] = std::move(deviations);
        o["instructions"] = "Plans this one builds on deviated from their plans (see their SUMMARY files). "
                            "Update this PLAN file where the deviations change what it must do; change nothing "
                            "else. Report task_completed either way.";
      } else if (!committed_tasks.empty()) {
        // A retry, a resumed run or a `redo`: the history says which tasks are done.
        json::array done;
        for (const auto& [index, hash] : committed_tasks) {
          json::object t{{"task", index}, {"commit", hash}};
          if (index >= 1 && static_cast<std::size_t>(index) <= p->tasks.size())
            t["name"] = p->tasks[static_cast<std::size_t>(index - 1)].name;
          done.push_back(std::move(t));
        }
        o["committed_tasks"] = std::move(done);
        // Before a GSD project's note, if it has one: both hold.
        const auto* gsd_note = o.if_contains("instructions");
        o["instructions"] = "The tasks in committed_tasks are done: their commits (with this plan's trailers) are "
                            "in history, made by an earlier attempt. Do not do them again; do the plan's other "
                            "tasks in order, then write and commit the SUMMARY, listing every task's commit." +
                            (gsd_note ? " " + std::string(gsd_note->as_string()) : std::string());
      }
    }
    break;
  default: break;
  }
  return o;
}

std::string planning_mark_key(std::string_view spec_name, std::string_view phase) {
  return fmt::format("planning_unfinished:{}:{}", spec_name, phase);
}

std::string planning_mark_value(PlanningStage stage) {
  return stage == PlanningStage::written ? "\"written\"" : "\"planning\"";
}

std::string reconciled_key(std::string_view spec_name) { return fmt::format("reconciled:{}", spec_name); }

std::string loop_rounds_key(std::string_view spec_name, std::string_view phase) {
  return fmt::format("loop_rounds:{}:{}", spec_name, phase);
}

std::string loop_rounds_value(std::pair<int, int> rounds) { return fmt::format("[{},{}]", rounds.first, rounds.second); }

std::map<std::string, std::pair<int, int>> stored_loop_rounds(const std::vector<std::pair<std::string, std::string>>& entries,
                                                              std::string_view spec_name) {
  const std::string prefix = loop_rounds_key(spec_name, "");
  std::map<std::string, std::pair<int, int>> out;
  for (const auto& [key, value] : entries) {
    if (!key.starts_with(prefix) || key.size() == prefix.size()) continue;
    boost::system::error_code ec;
    const auto v = boost::json::parse(value, ec);
    const auto* a = ec ? nullptr : v.if_array();
    if (!a || a->size() != 2 || !(*a)[0].is_int64() || !(*a)[1].is_int64()) continue;
    const auto clamp = [](std::int64_t n) { return static_cast<int>(std::clamp<std::int64_t>(n, 0, 1000)); };
    out[key.substr(prefix.size())] = {clamp((*a)[0].as_int64()), clamp((*a)[1].as_int64())};
  }
  return out;
}

std::vector<UnfinishedPlanning> unfinished_planning(const std::vector<std::pair<std::string, std::string>>& entries,
                                                    std::string_view spec_name) {
  const std::string prefix = planning_mark_key(spec_name, "");
  std::vector<UnfinishedPlanning> phases;
  for (const auto& [key, value] : entries)
    if (key.starts_with(prefix) && key.size() > prefix.size())
      phases.push_back({key.substr(prefix.size()), value == planning_mark_value(PlanningStage::written)
                                                       ? PlanningStage::written
                                                       : PlanningStage::planning});
  return phases;
}

} // namespace harness::orchestrator
