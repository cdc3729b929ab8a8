#pragma once
// Shared by start-session and end-session: ask the orchestrator running in the project, print its
// answer (a line, or the JSON object with --json), and set the exit code (0 done, 2 inside a
// worker of the project, 1 otherwise).
// With --json a failure is a JSON object too: the orchestrator's refusal as it sent it, or
// {"error": "..."}.

#include "commands.hpp"
#include "inside_worker.hpp"
#include "print_error.hpp"

#include "harness/util/json_text.hpp"
#include "harness/store/ask_orchestrator.hpp"
#include "harness/store/run_lock.hpp"

#include <boost/json.hpp>

#include <chrono>
#include <filesystem>
#include <functional>
#include <iostream>
#include <string>
#include <thread>

namespace harness::cli {

inline void ask_and_print(const std::filesystem::path& project, const std::string& kind, const std::string& target,
                          const boost::json::object& args, bool json, ExitCode& exit,
                          const std::function<std::string(const boost::json::object&)>& describe) {
  const Output output = json ? Output::json : Output::text;
  if (auto why = refused_inside_worker(project / ".orchestration", store::PersonsPart::steer_sessions)) {
    print_error(*why, output);
    exit.value = 2;
    return;
  }
  exit.value = 1;
  // Asked before the store is opened: opening it would create .orchestration/ in any directory.
  if (!store::running_orchestrator(project / ".orchestration")) {
    print_error(store::orchestrator_not_running(project / ".orchestration"), output);
    return;
  }
  auto db = store::Store::open_project(project);
  if (!db) {
    print_error(db.error(), output);
    return;
  }
  auto answer = store::ask_orchestrator(*db, project / ".orchestration", kind, target, boost::json::serialize(args),
                                        std::chrono::seconds(30), [](std::chrono::milliseconds step) {
                                          std::this_thread::sleep_for(step);
                                          return false;
                                        });
  if (!answer) {
    print_error(answer.error(), output);
    return;
  }
  boost::system::error_code ec;
  auto result = boost::json::parse(answer->result_json, ec);
  const boost::json::object empty;
  const boost::json::object& o = !ec && result.is_object() ? result.as_object() : empty;
  if (!answer->done) {
    const auto* why = o.if_contains("error");
    const std::string message = why && why->is_string() ? std::string(why->as_string()) : answer->result_json;
    std::cerr << "harness-cli: error: " << message << "\n";
    if (json) std::cout << (why ? harness::util::json_text(o) : harness::util::json_text(boost::json::object{{"error", message}})) << "\n";
    return;
  }
  std::cout << (json ? harness::util::json_text(o) : describe(o)) << "\n";
  exit.value = 0;
}

} // namespace harness::cli
