#pragma once
// respond, start-session and end-session in a worker's shell (harness-cli is first on its PATH):
// what only a person does is refused there (store::refuse_inside_worker).

#include "harness/store/worker_refusal.hpp"

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

namespace harness::cli {

/// Why `part` is refused in this process, read from the worker variables it inherited, or
/// nullopt (a person's shell, or a worker of another project than `state_dir`'s).
inline std::optional<std::string> refused_inside_worker(const std::filesystem::path& state_dir, store::PersonsPart part) {
  const char* session = std::getenv("HARNESS_SESSION_ID");
  const char* worker_state = std::getenv("HARNESS_STATE_DIR");
  return store::refuse_inside_worker(state_dir, worker_state ? worker_state : "", session ? session : "", part);
}

} // namespace harness::cli
