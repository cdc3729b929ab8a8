#include "harness/orchestrator/display.hpp"

#include "harness/util/text.hpp"
#include "harness/util/json_text.hpp"

#include <boost/json.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <string_view>

namespace harness::orchestrator {
namespace {

std::string fit(std::string s, size_t width) {
  if (s.size() <= width) return s;
  if (width <= 1) return s.substr(0, width);
  return s.substr(0, width - 1) + "~";
}

/// Terminal columns of printable UTF-8 text: one per character (continuation bytes take none).
std::size_t columns(std::string_view text) {
  return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

/// A display's stream: each write flushed at once, and the first failure kept (stdio drops what
/// it could not write, and its error flag says nothing of why). After a failure nothing more is
/// written: a line that later lands after lost ones would make the output look whole.
class DisplayOutput : public Observer {
public:
  explicit DisplayOutput(std::FILE* out) : m_out(out) {}
  int output_error() const override { return m_error; }

protected:
  void put(const std::string& text) {
    if (m_error != 0) return;
    errno = 0;
    if (std::fputs(text.c_str(), m_out) == EOF || std::fflush(m_out) != 0) m_error = errno != 0 ? errno : EIO;
  }

private:
  std::FILE* m_out;
  int m_error = 0;
};

class LineDisplay final : public DisplayOutput {
public:
  using DisplayOutput::DisplayOutput;
  void on_event(const RunEvent& e, const RunView&) override { put(format_event_line(e) + "\n"); }
};

class JsonDisplay final : public DisplayOutput {
public:
  using DisplayOutput::DisplayOutput;
  void on_event(const RunEvent& e, const RunView&) override { put(format_event_json(e) + "\n"); }
};

/// Redraws the table in place (cursor up over the previous drawing); events worth keeping
/// (finished, failed, checkpoints) scroll above it as lines. A question asked on the terminal is
/// drawn under the table with what is typed so far, the cursor left where the answer is typed, so
/// a redraw draws both again rather than over them.
class LiveTable final : public DisplayOutput {
public:
  LiveTable(std::FILE* out, int width) : DisplayOutput(out), m_width(std::max(1, width)) {}
  void on_event(const RunEvent& e, const RunView& view) override {
    const bool progress_only = e.kind == RunEventKind::task_progress || e.kind == RunEventKind::task_held;
    // While a question waits, progress alone does not redraw: the table would flicker under the
    // person typing (and, where the terminal echoes, a redraw clears what it echoed).
    if (progress_only && !view.prompt.empty()) return;
    draw(progress_only ? "" : format_event_line(e) + "\n", view);
  }
  bool draws_prompt() const override { return true; }
  void on_view(const RunView& view) override { draw("", view); }

private:
  void draw(const std::string& lines_above, const RunView& view) {
    // Lines typed since the last drawing were echoed with a newline: the cursor is that much lower.
    const int up = m_drawn_rows + (view.lines_typed - m_lines_typed);
    m_lines_typed = view.lines_typed;
    std::string text = up > 0 ? fmt::format("\r\x1b[{}F\x1b[J", up) : "\r\x1b[J";
    const std::string drawing = format_table(view, m_width) + view.prompt + (view.prompt.empty() ? "" : view.typed);
    text += lines_above + drawing;
    m_drawn_rows = rows_above_cursor(drawing);
    put(text);
  }

  /// How many rows the cursor is below the drawing's first, once it is written: a newline is one,
  /// and so is every time a line longer than the terminal wraps (a long question does).
  int rows_above_cursor(const std::string& drawing) const {
    int rows = 0;
    std::size_t start = 0;
    for (;;) {
      const auto nl = drawing.find('\n', start);
      const std::size_t len = columns(std::string_view(drawing).substr(start, nl == std::string::npos ? nl : nl - start));
      if (len > 0) rows += static_cast<int>((len - 1) / static_cast<std::size_t>(m_width));
      if (nl == std::string::npos) return rows;
      ++rows;
      start = nl + 1;
    }
  }

  int m_width;
  int m_drawn_rows = 0;
  int m_lines_typed = 0;
};

} // namespace

std::string format_clock(double seconds) {
  // Round once, to tenths, then split: rounding the seconds alone printed 119.96 s as 01:60.0.
  // nearbyint rounds half to even, as the fixed-point formatting did (72.25 s stays 01:12.2).
  const double tenths_d = seconds > 0 ? std::nearbyint(std::min(seconds, 1e12) * 10) : 0; // NaN too
  const auto tenths = static_cast<long long>(tenths_d);
  const long long whole = tenths / 10, minutes = whole / 60 % 60, hours = whole / 3600;
  const auto sec = fmt::format("{:02}.{}", whole % 60, tenths % 10);
  return hours > 0 ? fmt::format("{:02}:{:02}:{}", hours, minutes, sec) : fmt::format("{:02}:{}", minutes, sec);
}

std::string_view to_string(RunEventKind k) {
  switch (k) {
  case RunEventKind::run_started: return "run_started";
  case RunEventKind::task_started: return "task_started";
  case RunEventKind::task_progress: return "task_progress";
  case RunEventKind::task_succeeded: return "task_succeeded";
  case RunEventKind::task_failed: return "task_failed";
  case RunEventKind::task_blocked: return "task_blocked";
  case RunEventKind::task_held: return "task_held";
  case RunEventKind::checkpoint_opened: return "checkpoint_opened";
  case RunEventKind::checkpoint_answered: return "checkpoint_answered";
  case RunEventKind::phase_verified: return "phase_verified";
  case RunEventKind::run_finished: return "run_finished";
  case RunEventKind::note: return "note";
  }
  return "note";
}

std::string_view to_string(UnwrittenDocument::Step s) { return s == UnwrittenDocument::Step::write ? "write" : "commit"; }

std::string format_event_line(const RunEvent& e) {
  std::string line = fmt::format("[{}] {:<19}", format_clock(e.elapsed_seconds), to_string(e.kind));
  if (!e.task_id.empty()) line += " " + e.task_id;
  if (e.slot >= 0) line += fmt::format(" (slot {})", e.slot + 1);
  if (e.attempt > 1) line += fmt::format(" attempt {}", e.attempt);
  // A worker's reason, a --reason, a plan's title: never an escape sequence for the terminal.
  if (!e.message.empty()) line += ": " + util::printable(e.message, true);
  return line;
}

std::string format_event_json(const RunEvent& e) {
  boost::json::object o{{"event", to_string(e.kind)}, {"elapsed", e.elapsed_seconds}};
  if (!e.task_id.empty()) o["task"] = e.task_id;
  if (e.slot >= 0) o["slot"] = e.slot + 1;
  if (e.attempt > 0) o["attempt"] = e.attempt;
  if (!e.message.empty()) o["message"] = e.message;
  if (!e.checkpoint_id.empty()) o["checkpoint_id"] = e.checkpoint_id;
  if (!e.session_id.empty()) o["session_id"] = e.session_id;
  if (!e.options.empty()) {
    boost::json::array options;
    for (const auto& x : e.options) options.emplace_back(x);
    o["options"] = std::move(options);
  }
  if (!e.outcome.empty()) o["outcome"] = e.outcome;
  if (e.exit_code) o["exit_code"] = *e.exit_code;
  if (!e.unwritten.empty()) {
    boost::json::array unwritten;
    for (const auto& u : e.unwritten) unwritten.push_back({{"file", u.file}, {"step", to_string(u.step)}, {"error", u.error}});
    o["unwritten"] = std::move(unwritten);
  }
  return harness::util::json_text(o);
}

std::string format_table(const RunView& view, int width) {
  const size_t w = static_cast<size_t>(std::max(40, width));
  std::string out;
  for (const auto& s : view.slots) {
    std::string row = s.task_id.empty()
                          ? fmt::format(" slot {}  idle", s.slot + 1)
                          : fmt::format(" slot {}  {:<22} {:>7}  {}", s.slot + 1, s.task_id,
                                        format_clock(view.elapsed_seconds - s.started_at), util::printable(s.last_progress, false));
    out += fit(std::move(row), w) + "\n";
  }
  const int bar_width = 30;
  const int filled = view.plans_total > 0 ? view.plans_verified * bar_width / view.plans_total : 0;
  std::string bar = fmt::format(" [{}{}] {}/{} plans verified", std::string(static_cast<size_t>(filled), '#'),
                                std::string(static_cast<size_t>(bar_width - filled), '.'), view.plans_verified,
                                view.plans_total);
  if (view.waiting_checkpoints > 0) bar += fmt::format(", {} waiting for you", view.waiting_checkpoints);
  if (view.cost_usd > 0) bar += fmt::format(", ${:.2f}", view.cost_usd);
  out += fit(std::move(bar), w) + "\n";
  return out;
}

DisplayStyle choose_display(bool json, bool stdout_is_terminal, const char* term) {
  if (json) return DisplayStyle::json;
  // A terminal that names no type is not known to move its cursor (ninja decides the same way).
  const std::string_view type = term ? term : "";
  if (!stdout_is_terminal || type.empty() || type == "dumb") return DisplayStyle::lines;
  return DisplayStyle::live_table;
}

std::unique_ptr<Observer> make_display(DisplayStyle style, std::FILE* out, int width) {
  switch (style) {
  case DisplayStyle::live_table: return std::make_unique<LiveTable>(out, width);
  case DisplayStyle::lines: return std::make_unique<LineDisplay>(out);
  case DisplayStyle::json: return std::make_unique<JsonDisplay>(out);
  }
  return std::make_unique<LineDisplay>(out);
}

} // namespace harness::orchestrator
