#pragma once
// What the run loop tells its observers: one struct per happening, rendered by a display.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace harness::orchestrator {

enum class RunEventKind {
  run_started,
  task_started,
  task_progress,
  task_succeeded,
  task_failed,      ///< an attempt failed (it may be retried)
  task_blocked,     ///< no attempts left, or a human refused
  task_held,        ///< ready but waiting on a file conflict or a gate
  checkpoint_opened,
  checkpoint_answered,
  phase_verified,
  run_finished,
  note,
};

std::string_view to_string(RunEventKind k);

/// One of the run's own documents (STATUS.md, ROADMAP.md, a SUMMARY's mark, a VERIFICATION,
/// commits.log) that the run could not write, or wrote and could not commit: the files do not
/// hold, or git does not, what the run says.
struct UnwrittenDocument {
  enum class Step { write, commit };
  std::string file;  ///< relative to the project root
  Step step = Step::write;
  std::string error; ///< why: the write's or git's own words
};

std::string_view to_string(UnwrittenDocument::Step s);

struct RunEvent {
  RunEventKind kind = RunEventKind::note;
  double elapsed_seconds = 0; ///< since the run started
  std::string task_id;        ///< "execute:02-01", empty for run-level events
  int slot = -1;
  int attempt = 0;
  std::string message;
  // What a program driving `orchestrate --json` needs without reading `message`; empty when unset.
  std::string checkpoint_id = {};        ///< checkpoint_opened/answered: the id `harness-cli respond` takes
  std::vector<std::string> options = {}; ///< checkpoint_opened of a worker's decision: the options it offers
  std::string outcome = {};              ///< run_finished: complete | blocked | waiting_for_human | interrupted | cost_limit
  std::optional<int> exit_code = {};     ///< run_finished: the exit code orchestrate ends with
  std::vector<UnwrittenDocument> unwritten = {}; ///< run_finished: documents not written or not committed
  /// An event of a task while its session lives (task_started to task_succeeded/failed, and what
  /// comes between): the id end-session, harness_end_session and harness_get_output take.
  std::string session_id = {};
};

/// One row of the live table: what a slot is doing now.
struct SlotView {
  int slot = 0;
  std::string task_id;        ///< empty when idle
  double started_at = 0;      ///< elapsed seconds at start
  std::string last_progress;
};

/// A snapshot for displays that redraw (the TTY table).
struct RunView {
  double elapsed_seconds = 0;
  std::vector<SlotView> slots;
  int plans_total = 0;
  int plans_verified = 0;
  int waiting_checkpoints = 0;
  double cost_usd = 0;
  /// The question asked on the terminal, as a display that draws prompts shows it under the table:
  /// lines ending in the one the answer is typed on (no newline after it); empty when none is asked.
  std::string prompt;
  /// Lines read from the terminal so far: each was echoed with a newline that moved the cursor.
  int lines_typed = 0;
  /// What is typed so far on the question's last line, when the run echoes it itself (the terminal
  /// does not): drawn after `prompt`.
  std::string typed;
};

/// Receives the run's events; the run loop calls it on its own thread, never concurrently.
class Observer {
public:
  virtual ~Observer() = default;
  virtual void on_event(const RunEvent& event, const RunView& view) = 0;
  /// True for a display that draws RunView::prompt itself (the live table, which would otherwise
  /// redraw over a question written beside it); the run then writes no question of its own.
  virtual bool draws_prompt() const { return false; }
  /// The view changed without an event (a question asked or asked again): redraw if drawing.
  virtual void on_view(const RunView&) {}
  /// The errno of the display's first failed write (its disk is full, its reader is gone), 0
  /// while every write went through. A display writes nothing more after one failed.
  virtual int output_error() const { return 0; }
};

} // namespace harness::orchestrator
