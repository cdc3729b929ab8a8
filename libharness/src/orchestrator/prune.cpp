#include "harness/orchestrator/prune.hpp"

#include "harness/orchestrator/session_id.hpp"
#include "session_files.hpp"
#include "harness/store/checkpoint_files.hpp"
#include "harness/store/run_lock.hpp"
#include "harness/store/session_index.hpp"
#include "harness/store/store.hpp"
#include "harness/util/json_text.hpp"
#include "harness/util/private_directory.hpp"

#include <boost/json.hpp>
#include <fmt/format.h>

#include <sys/stat.h>

#include <algorithm>
#include <map>
#include <set>

namespace harness::orchestrator {
namespace fs = std::filesystem;
namespace {

// Where a directory waits between leaving sessions/ and being deleted.
constexpr const char* pruning_dir = "pruning";

// Disk space, as du counts it (allocated blocks of files and directories), not the files'
// lengths: what removing them gives back. A session's few small files take a block each.
std::uintmax_t bytes_under(const fs::path& dir) {
  auto allocated = [](const fs::path& p) -> std::uintmax_t {
    struct stat st{};
    return ::lstat(p.c_str(), &st) == 0 ? static_cast<std::uintmax_t>(st.st_blocks) * 512 : 0;
  };
  std::uintmax_t total = allocated(dir);
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
    total += allocated(it->path());
  return total;
}

// The store's view: a session row per directory it describes, and the sessions with an
// unanswered question. A project without a database has none (nothing is created here).
struct StoreFacts {
  std::map<std::string, store::SessionRecord> sessions;
  std::set<std::string> asking;
  std::set<std::string> last_failures;
};

std::expected<StoreFacts, std::string> read_store(const fs::path& state_dir) {
  StoreFacts facts;
  std::error_code ec;
  if (!fs::exists(state_dir / "harness.db", ec)) return facts;
  auto db = store::Store::open_project(state_dir.parent_path());
  if (!db) return std::unexpected(db.error());
  auto rows = db->list_sessions();
  if (!rows) return std::unexpected(rows.error());
  auto pending = db->pending_messages();
  if (!pending) return std::unexpected(pending.error());
  for (const auto& m : *pending) facts.asking.insert(m.session_id);
  // The newest session of each (spec, task): the one whose log `status` shows when it failed.
  std::map<std::pair<std::string, std::string>, const store::SessionRecord*> newest;
  for (auto& r : *rows) {
    auto& slot = newest[{r.spec, r.task_id}];
    if (!slot || std::tie(r.updated_at, r.id) > std::tie(slot->updated_at, slot->id)) slot = &r;
  }
  for (const auto& [key, r] : newest)
    if (r->status == "failed") facts.last_failures.insert(r->id);
  for (auto& r : *rows) facts.sessions.emplace(r.id, std::move(r));
  return facts;
}

PruneEntry describe(const fs::directory_entry& dir, const StoreFacts& facts, const fs::path& state_dir) {
  PruneEntry e;
  e.name = dir.path().filename().string();
  // The newest run's records stay worker.json until the next run looks: what counts is whether
  // the process they name still runs (a record harness did not write is not believed).
  if (auto w = read_worker_record(dir.path())) e.running = w->pid > 0;
  if (auto row = facts.sessions.find(e.name); row != facts.sessions.end()) {
    const auto& s = row->second;
    e.known = true;
    e.run = run_of_session_id(s.id);
    e.when = !s.updated_at.empty() ? s.updated_at : s.ended_at.value_or(s.started_at.value_or(""));
    e.running = e.running || s.status == "running";
    e.waiting = facts.asking.contains(s.id);
    e.last_failure = facts.last_failures.contains(s.id);
  }
  if (auto cp = store::read_checkpoint(state_dir, e.name)) {
    e.known = true;
    if (e.run.empty()) e.run = cp->run;
    if (e.when.empty()) e.when = cp->answer && !cp->answer->at.empty() ? cp->answer->at : cp->opened_at;
    // Open: a person may still answer it, or an answer waits for the run that asked.
    e.waiting = e.waiting || cp->state == store::CheckpointState::open;
  }
  e.bytes = bytes_under(dir.path());
  return e;
}

std::string size_text(std::uintmax_t bytes) {
  const double b = static_cast<double>(bytes);
  if (bytes < 1'000'000) return fmt::format("{:.1f} KB", b / 1e3);
  if (bytes < 1'000'000'000) return fmt::format("{:.1f} MB", b / 1e6);
  return fmt::format("{:.1f} GB", b / 1e9);
}

} // namespace

std::string_view to_string(PruneKeep keep) {
  switch (keep) {
  case PruneKeep::none: return "none";
  case PruneKeep::running: return "running";
  case PruneKeep::waiting: return "waiting";
  case PruneKeep::recent_run: return "recent_run";
  case PruneKeep::last_failure: return "last_failure";
  case PruneKeep::unknown: return "unknown";
  }
  return "none";
}

int decide_prune(std::vector<PruneEntry>& entries, int keep_runs) {
  std::map<std::string, std::string> run_latest; // run -> its newest `when`
  for (const auto& e : entries)
    if (!e.run.empty()) {
      auto& latest = run_latest[e.run];
      latest = std::max(latest, e.when);
    }
  std::vector<std::pair<std::string, std::string>> runs; // (when, run), newest first
  for (const auto& [run, when] : run_latest) runs.emplace_back(when, run);
  std::ranges::sort(runs, std::greater<>());
  std::set<std::string> recent;
  for (std::size_t i = 0; i < runs.size() && std::cmp_less(i, keep_runs); ++i) recent.insert(runs[i].second);
  for (auto& e : entries) {
    e.keep = e.running                      ? PruneKeep::running
             : e.waiting                    ? PruneKeep::waiting
             : !e.known                     ? PruneKeep::unknown
             : recent.contains(e.run)       ? PruneKeep::recent_run
             : e.last_failure               ? PruneKeep::last_failure
                                            : PruneKeep::none;
  }
  return static_cast<int>(runs.size());
}

bool PruneResult::failed() const {
  return std::ranges::any_of(entries, [](const PruneEntry& e) { return !e.error.empty(); });
}

std::expected<PruneResult, RunError> prune(const fs::path& project_root, const PruneOptions& options) {
  const fs::path state_dir = project_root / ".orchestration";
  PruneResult result;
  result.keep_runs = std::max(options.keep_runs, 0);
  result.dry_run = options.dry_run;
  std::error_code ec;
  if (!fs::is_directory(state_dir, ec)) return result; // nothing ever ran here
  if (auto running = store::running_orchestrator(state_dir))
    return std::unexpected(RunError{fmt::format("an orchestrate is running in this project ({}); prune when it has "
                                                "ended",
                                                store::describe_run(*running)),
                                    1});
  // Held until we return: a run that starts now would write into what is being decided.
  std::optional<store::RunLock> lock;
  if (!options.dry_run) {
    auto taken = store::RunLock::acquire(state_dir, {0, "harness-cli prune", "", "prune"});
    if (!taken) return std::unexpected(RunError{taken.error(), 1});
    lock.emplace(std::move(*taken));
    fs::remove_all(state_dir / pruning_dir, ec); // an interrupted prune's leftovers
  }
  auto facts = read_store(state_dir);
  if (!facts) return std::unexpected(RunError{"cannot read " + (state_dir / "harness.db").string() + ": " + facts.error(), 1});
  for (const auto& dir : fs::directory_iterator(state_dir / "sessions", ec)) {
    std::error_code type_ec;
    if (dir.is_directory(type_ec) && !dir.is_symlink(type_ec)) result.entries.push_back(describe(dir, *facts, state_dir));
  }
  std::ranges::sort(result.entries, {}, &PruneEntry::name);
  result.runs = decide_prune(result.entries, result.keep_runs);
  result.discarded_bytes = bytes_under(state_dir / "discarded");
  for (auto& e : result.entries) {
    if (e.keep != PruneKeep::none) continue;
    if (!options.dry_run) {
      // Out of sessions/ in one step, then deleted: whatever interrupts the deletion leaves the
      // remains in pruning/, which no run reads.
      const fs::path parked = state_dir / pruning_dir / e.name;
      std::error_code move_ec;
      move_ec = util::create_private_directories(parked.parent_path());
      if (!move_ec) fs::rename(state_dir / "sessions" / e.name, parked, move_ec);
      if (move_ec) {
        e.error = move_ec.message();
        continue;
      }
      store::remove_from_every_index(state_dir, e.name); // a dead worker's record, say: nothing to look at
      fs::remove_all(parked, move_ec);
    }
    ++result.removed;
    result.removed_bytes += e.bytes;
  }
  if (!options.dry_run) fs::remove(state_dir / pruning_dir, ec); // empty unless a deletion failed
  return result;
}

std::string prune_hint(const fs::path& state_dir, std::size_t threshold) {
  std::size_t n = 0;
  std::error_code ec;
  for (auto it = fs::directory_iterator(state_dir / "sessions", ec); !ec && it != fs::directory_iterator(); it.increment(ec)) ++n;
  if (n < threshold) return {};
  return fmt::format(".orchestration/sessions/ holds {} directories of earlier sessions: `harness-cli prune` removes "
                     "old runs' (`--dry-run` shows which)",
                     n);
}

std::string prune_text(const PruneResult& result) {
  std::string out;
  if (result.dry_run)
    for (const auto& e : result.entries)
      if (e.keep == PruneKeep::none) out += fmt::format("would remove .orchestration/sessions/{}\n", e.name);
  std::map<PruneKeep, std::size_t> kept;
  std::size_t kept_total = 0;
  for (const auto& e : result.entries)
    if (e.keep != PruneKeep::none) ++kept[e.keep], ++kept_total;
  out += fmt::format("{} {} session director{} ({}) of {} run{}; kept {}", result.dry_run ? "would remove" : "removed",
                     result.removed, result.removed == 1 ? "y" : "ies", size_text(result.removed_bytes), result.runs,
                     result.runs == 1 ? "" : "s", kept_total);
  std::vector<std::string> why;
  if (auto n = kept[PruneKeep::recent_run])
    why.push_back(fmt::format("{} of the newest {} (--keep-runs)", n,
                              result.keep_runs == 1 ? std::string("run") : fmt::format("{} runs", result.keep_runs)));
  if (auto n = kept[PruneKeep::running]) why.push_back(fmt::format("{} of workers that may still run", n));
  if (auto n = kept[PruneKeep::waiting]) why.push_back(fmt::format("{} with a question or an answer not read yet", n));
  if (auto n = kept[PruneKeep::last_failure]) why.push_back(fmt::format("{} the last, failed attempt of a task", n));
  if (auto n = kept[PruneKeep::unknown]) why.push_back(fmt::format("{} the store does not know", n));
  if (!why.empty()) out += ": " + fmt::format("{}", fmt::join(why, ", "));
  out += "\n";
  for (const auto& e : result.entries)
    if (!e.error.empty()) out += fmt::format("could not remove .orchestration/sessions/{}: {}\n", e.name, e.error);
  if (result.discarded_bytes > 0)
    out += fmt::format(".orchestration/discarded/ holds {} of files retries reset (left alone: look there and remove "
                       "what you do not need)\n",
                       size_text(result.discarded_bytes));
  return out;
}

std::string prune_json(const PruneResult& result) {
  boost::json::array removed, failed;
  boost::json::object kept;
  for (auto k : {PruneKeep::running, PruneKeep::waiting, PruneKeep::recent_run, PruneKeep::last_failure, PruneKeep::unknown})
    kept[to_string(k)] = boost::json::array();
  for (const auto& e : result.entries) {
    if (!e.error.empty()) failed.push_back({{"name", e.name}, {"error", e.error}});
    else if (e.keep == PruneKeep::none) removed.emplace_back(e.name);
    else kept[to_string(e.keep)].as_array().emplace_back(e.name);
  }
  boost::json::object o{{"dry_run", result.dry_run},
                        {"runs", result.runs},
                        {"keep_runs", result.keep_runs},
                        {"removed", std::move(removed)},
                        {"removed_bytes", result.removed_bytes},
                        {"kept", std::move(kept)},
                        {"failed", std::move(failed)},
                        {"discarded_bytes", result.discarded_bytes}};
  return harness::util::json_text(o);
}

} // namespace harness::orchestrator
