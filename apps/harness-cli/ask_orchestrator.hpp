#pragma once
// Shared by start-session and end-session: ask the orchestrator running in the project, print its
// answer (a line, or the JSON object with --json), and set the exit code (0 done, 1 otherwise).

#include "commands.hpp"

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
  // Asked before the store is opened: opening it would create .orchestration/ in any directory.
  if (!store::running_orchestrator(project / ".orchestration")) {
    std::cerr << "harness-cli: error: " << store::orchestrator_not_running(project / ".orchestration") << "\n";
    exit.value = 1;
    return;
  }
  auto db = store::Store::open_project(project);
  if (!db) {
    std::cerr << "harness-cli: error: " << db.error() << "\n";
    exit.value = 1;
    return;
  }
  auto answer = store::ask_orchestrator(*db, project / ".orchestration", kind, target, boost::json::serialize(args),
                                        std::chrono::seconds(30), [](std::chrono::milliseconds step) {
                                          std::this_thread::sleep_for(step);
                                          return false;
                                        });
  if (!answer) {
    std::cerr << "harness-cli: error: " << answer.error() << "\n";
    exit.value = 1;
    return;
  }
  boost::system::error_code ec;
  auto result = boost::json::parse(answer->result_json, ec);
  const boost::json::object empty;
  const boost::json::object& o = !ec && result.is_object() ? result.as_object() : empty;
  if (!answer->done) {
    const auto* why = o.if_contains("error");
    std::cerr << "harness-cli: error: " << (why && why->is_string() ? std::string(why->as_string()) : answer->result_json) << "\n";
    exit.value = 1;
    return;
  }
  std::cout << (json ? boost::json::serialize(o) : describe(o)) << "\n";
  exit.value = 0;
}

} // namespace harness::cli
