#pragma once
// Progress displays for `harness-cli orchestrate`: a live table on a terminal, one line per event
// otherwise, JSON lines with --json.

#include "harness/orchestrator/run_event.hpp"

#include <cstdio>
#include <memory>
#include <string>

namespace harness::orchestrator {

enum class DisplayStyle { live_table, lines, json };

/// The display a run uses: JSON lines when asked; the live table on a terminal that moves its
/// cursor; else one line per event (a pipe, a file, TERM=dumb, as Emacs' shell buffer sets it,
/// where the table's escape sequences showed as text: review II F10, or TERM unset or empty,
/// review KK F9). `term`: $TERM, or null.
DisplayStyle choose_display(bool json, bool stdout_is_terminal, const char* term);

/// A display writing to `out` (not owned). `width` bounds the live table's lines.
std::unique_ptr<Observer> make_display(DisplayStyle style, std::FILE* out, int width = 100);

/// Elapsed time as `MM:SS.s`, or `HH:MM:SS.s` from one hour on, rounded to tenths of a second
/// (119.96 s is `02:00.0`); negative or NaN reads as zero.
std::string format_clock(double seconds);
/// `[00:12.3] started execute:02-01 (slot 2)`: the line style's rendering of one event.
std::string format_event_line(const RunEvent& event);
/// The JSON-lines rendering of one event (no trailing newline).
std::string format_event_json(const RunEvent& event);
/// The live table as text: one row per slot, then a progress bar of plans verified / total.
std::string format_table(const RunView& view, int width);

} // namespace harness::orchestrator
