#pragma once
// How a command reports that it failed: a line on stderr, and with --json also a JSON object on
// stdout, so a script that parses stdout gets an object whatever happened.

#include "harness/util/json_text.hpp"

#include <boost/json.hpp>

#include <iostream>
#include <string>

namespace harness::cli {

enum class Output { text, json };

/// `{"error": "<message>"}` on stdout.
inline void print_json_error(const std::string& message) {
  std::cout << harness::util::json_text(boost::json::object{{"error", message}}) << "\n";
}

/// orchestrate's refusal as its event stream's one event: `{"event": "run_refused", ...}` on stdout.
inline void print_run_refused(const std::string& message, int exit_code) {
  std::cout << harness::util::json_text(
                   boost::json::object{{"event", "run_refused"}, {"error", message}, {"exit_code", exit_code}})
            << "\n";
}

/// `harness-cli: error: <message>` on stderr; with Output::json also `{"error": "<message>"}` on stdout.
inline void print_error(const std::string& message, Output output) {
  std::cerr << "harness-cli: error: " << message << "\n";
  if (output == Output::json) print_json_error(message);
}

} // namespace harness::cli
