#include "harness/orchestrator/display.hpp"

#include <boost/json.hpp>
#include <catch2/catch.hpp>

#include <cerrno>
#include <cstdio>

using namespace harness::orchestrator;

TEST_CASE("an event line shows time, kind, task, slot, attempt and message") {
  RunEvent e{RunEventKind::task_failed, 72.25, "execute:02-01", 1, 2, "timed out"};
  CHECK(format_event_line(e) == "[01:12.2] task_failed         execute:02-01 (slot 2) attempt 2: timed out");
  RunEvent run{RunEventKind::run_started, 0, "", -1, 0, "12 plans, 4 slots"};
  CHECK(format_event_line(run) == "[00:00.0] run_started        : 12 plans, 4 slots");
}

TEST_CASE("the clock carries rounded seconds into minutes and hours") {
  CHECK(format_clock(0) == "00:00.0");
  CHECK(format_clock(59.94) == "00:59.9");
  CHECK(format_clock(59.96) == "01:00.0");
  CHECK(format_clock(119.96) == "02:00.0");
  CHECK(format_clock(72.25) == "01:12.2");
  CHECK(format_clock(3599.96) == "01:00:00.0");
  CHECK(format_clock(3723.4) == "01:02:03.4");
  CHECK(format_clock(-0.3) == "00:00.0");
  RunEvent e{RunEventKind::task_started, 119.96, "execute:02-01", 0, 1, ""};
  CHECK(format_event_line(e).starts_with("[02:00.0] "));
}

TEST_CASE("the JSON rendering is one object with only the fields that are set") {
  auto j = boost::json::parse(format_event_json({RunEventKind::task_started, 1.5, "verify-plan:01-01", 0, 1, ""}));
  CHECK(j.at("event").as_string() == "task_started");
  CHECK(j.at("task").as_string() == "verify-plan:01-01");
  CHECK(j.at("slot").as_int64() == 1);
  CHECK_FALSE(j.as_object().contains("message"));
  for (const char* key : {"checkpoint_id", "options", "outcome", "exit_code", "session_id"}) CHECK_FALSE(j.as_object().contains(key));
  RunEvent e{RunEventKind::task_succeeded, 2.0, "execute:01-01", 1, 1, "done"};
  e.session_id = "execute-01-01-a1";
  CHECK(boost::json::parse(format_event_json(e)).at("session_id") == "execute-01-01-a1");
}

TEST_CASE("checkpoint and run_finished events carry their id, options, outcome and exit code as fields") {
  RunEvent opened{RunEventKind::checkpoint_opened, 0.5, "execute:01-01", 0, 1, "which greeting? -- answer with: ..."};
  opened.checkpoint_id = "cp-SPC-001-x-execute-01-01-abc-1";
  opened.options = {"hello", "hi there"};
  auto j = boost::json::parse(format_event_json(opened));
  CHECK(j.at("message").as_string() == opened.message); // the text stays as it was
  CHECK(j.at("checkpoint_id").as_string() == opened.checkpoint_id);
  CHECK(j.at("options") == boost::json::array{"hello", "hi there"});
  RunEvent finished{RunEventKind::run_finished, 3, "", -1, 0, "waiting_for_human after 3.0s, 6 attempts"};
  finished.outcome = "waiting_for_human";
  finished.exit_code = 3;
  j = boost::json::parse(format_event_json(finished));
  CHECK(j.at("outcome").as_string() == "waiting_for_human");
  CHECK(j.at("exit_code").as_int64() == 3);
  finished.exit_code = 0; // complete: 0 is a value, not "unset"
  CHECK(boost::json::parse(format_event_json(finished)).at("exit_code").as_int64() == 0);
  CHECK_FALSE(boost::json::parse(format_event_json(finished)).as_object().contains("unwritten"));
}

TEST_CASE("run_finished lists the documents the run could not write or commit") {
  RunEvent finished{RunEventKind::run_finished, 3, "", -1, 0, "complete after 3.0s, 6 attempts; the spec is complete, but ..."};
  finished.outcome = "complete";
  finished.exit_code = 1;
  finished.unwritten = {{"s/STATUS.md", UnwrittenDocument::Step::write, "rename: No space left on device"},
                        {"s/ROADMAP.md", UnwrittenDocument::Step::commit, "git commit failed (exit 128): fatal: ..."}};
  auto j = boost::json::parse(format_event_json(finished));
  CHECK(j.at("outcome").as_string() == "complete");
  CHECK(j.at("exit_code").as_int64() == 1);
  CHECK(j.at("unwritten") == boost::json::array{{{"file", "s/STATUS.md"}, {"step", "write"}, {"error", "rename: No space left on device"}},
                                                {{"file", "s/ROADMAP.md"}, {"step", "commit"}, {"error", "git commit failed (exit 128): fatal: ..."}}});
}

TEST_CASE("the live table has a row per slot and a progress bar") {
  RunView v;
  v.elapsed_seconds = 30;
  v.slots = {{0, "execute:01-02", 10, "Task 1/2: TaskStore"}, {1, "", 0, ""}};
  v.plans_total = 12;
  v.plans_verified = 3;
  v.waiting_checkpoints = 1;
  auto t = format_table(v, 100);
  CHECK(t.find(" slot 1  execute:01-02") != std::string::npos);
  CHECK(t.find("00:20.0  Task 1/2: TaskStore") != std::string::npos);
  CHECK(t.find(" slot 2  idle\n") != std::string::npos);
  CHECK(t.find("[#######.......................] 3/12 plans verified, 1 waiting for you") != std::string::npos);
  for (size_t start = 0, nl; (nl = t.find('\n', start)) != std::string::npos; start = nl + 1)
    CHECK(nl - start <= 100);
}

TEST_CASE("the line display writes one line per event") {
  char* buf = nullptr;
  size_t len = 0;
  std::FILE* mem = open_memstream(&buf, &len);
  auto d = make_display(DisplayStyle::lines, mem);
  d->on_event({RunEventKind::task_started, 0, "execute:01-01", 0, 1, ""}, {});
  d->on_event({RunEventKind::task_succeeded, 1, "execute:01-01", 0, 1, ""}, {});
  std::fclose(mem);
  std::string text(buf, len);
  free(buf);
  CHECK(std::count(text.begin(), text.end(), '\n') == 2);
}

TEST_CASE("the live table draws the question asked on the terminal under it, and goes back over both") {
  char* buf = nullptr;
  size_t len = 0;
  std::FILE* mem = open_memstream(&buf, &len);
  auto d = make_display(DisplayStyle::live_table, mem, 40);
  CHECK(d->draws_prompt());
  CHECK_FALSE(make_display(DisplayStyle::lines, mem)->draws_prompt());
  RunView v;
  v.slots = {{0, "execute:03-01", 0, "Task 1/2"}};
  v.plans_total = 2;
  std::size_t seen = 0; // what the test has read so far
  auto drawn = [&] { // what the display wrote since
    std::fflush(mem);
    std::string all(buf, len);
    std::string fresh = all.substr(seen);
    seen = all.size();
    return fresh;
  };
  d->on_event({RunEventKind::task_started, 0, "execute:03-01", 0, 1, ""}, v);
  CHECK(drawn().starts_with("\r\x1b[J[00:00.0] task_started")); // nothing drawn before: nothing to go back over
  // A question: drawn under the table's two rows, the cursor left after it.
  v.prompt = "\n? verification of 02-03 [verify-plan:02-03]\n  approve (y) / refuse (n): ";
  d->on_view(v);
  auto text = drawn();
  CHECK(text.starts_with("\r\x1b[2F\x1b[J"));
  CHECK(text.ends_with("~\n\n? verification of 02-03 [verify-plan:02-03]\n  approve (y) / refuse (n): ")); // the bar, cut at 40
  // Progress alone does not redraw while it waits (a redraw hides what was typed so far).
  d->on_event({RunEventKind::task_progress, 1, "execute:03-01", 0, 1, "Task 2/2"}, v);
  CHECK(drawn().empty());
  // An event goes back over the table and the question (the question's line wraps once at 40
  // columns: one row more), then draws both again.
  d->on_event({RunEventKind::task_succeeded, 2, "execute:03-01", 0, 1, "done"}, v);
  text = drawn();
  CHECK(text.starts_with("\r\x1b[5F\x1b[J[00:02.0] task_succeeded"));
  CHECK(text.ends_with("  approve (y) / refuse (n): "));
  // A line typed moved the cursor down one row: the next drawing goes back that much further.
  v.lines_typed = 1;
  v.prompt.clear();
  d->on_event({RunEventKind::checkpoint_answered, 3, "verify-plan:02-03", -1, 0, "approved"}, v);
  text = drawn();
  CHECK(text.starts_with("\r\x1b[6F\x1b[J[00:03.0] checkpoint_answered"));
  CHECK(text.ends_with("~\n")); // the table alone
  std::fclose(mem);
  free(buf);
}

TEST_CASE("a display whose output cannot be written keeps the first error and writes nothing more") {
  std::FILE* full = std::fopen("/dev/full", "w");
  REQUIRE(full);
  for (auto style : {DisplayStyle::lines, DisplayStyle::json, DisplayStyle::live_table}) {
    auto d = make_display(style, full);
    CHECK(d->output_error() == 0);
    d->on_event({RunEventKind::task_started, 0, "execute:01-01", 0, 1, ""}, {});
    CHECK(d->output_error() == ENOSPC);
    std::clearerr(full);
    d->on_event({RunEventKind::task_succeeded, 1, "execute:01-01", 0, 1, ""}, {});
    CHECK_FALSE(std::ferror(full)); // not tried again
    CHECK(d->output_error() == ENOSPC);
  }
  std::fclose(full);
}

TEST_CASE("the live table only on a terminal that moves its cursor", "[orchestrator][display]") {
  using harness::orchestrator::DisplayStyle;
  CHECK(harness::orchestrator::choose_display(false, true, "xterm-256color") == DisplayStyle::live_table);
  CHECK(harness::orchestrator::choose_display(false, true, nullptr) == DisplayStyle::lines); // TERM unset: capabilities unknown
  CHECK(harness::orchestrator::choose_display(false, true, "") == DisplayStyle::lines);
  CHECK(harness::orchestrator::choose_display(false, true, "dumb") == DisplayStyle::lines); // Emacs' shell buffer
  CHECK(harness::orchestrator::choose_display(false, false, "xterm") == DisplayStyle::lines);
  CHECK(harness::orchestrator::choose_display(true, true, "xterm") == DisplayStyle::json);
}
