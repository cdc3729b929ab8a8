#pragma once
// A failure in words for a person and as the errno behind them, so that a decision about it (out
// of descriptors? of processes?) does not depend on the words.

#include <string>

namespace harness::util {

/// What failed and why ("pipe: Too many open files"), and the errno behind it: 0 when no system
/// call failed (an empty command, a program not on PATH).
struct SystemError {
  std::string message;
  int error_number = 0;
};

} // namespace harness::util
