#include "harness/store/ask_orchestrator.hpp"

#include "harness/store/run_lock.hpp"

#include <fmt/format.h>

namespace harness::store {
using namespace std::chrono_literals;

std::string orchestrator_not_running(const std::filesystem::path& state_dir) {
  return fmt::format("orchestrator not running: no `harness-cli orchestrate` holds {}; start one "
                     "(harness-cli orchestrate docs/specs/SPC-...) and ask again",
                     (state_dir / "orchestrator.lock").string());
}

std::expected<RequestAnswer, std::string> ask_orchestrator(Store& db, const std::filesystem::path& state_dir,
                                                           const std::string& kind, const std::string& target,
                                                           const std::string& body_json, std::chrono::seconds timeout,
                                                           const std::function<bool(std::chrono::milliseconds)>& wait) {
  if (!running_orchestrator(state_dir)) return std::unexpected(orchestrator_not_running(state_dir));
  auto request = db.add_request(kind, target, body_json);
  if (!request) return std::unexpected(request.error());
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    auto row = db.request(request->id);
    if (!row) return std::unexpected(row.error());
    if (*row && (*row)->status != "pending") return RequestAnswer{(*row)->status == "done", (*row)->result.value_or("{}")};
    // Checked after the answer: an orchestrator that answered and then exited still answered.
    if (!running_orchestrator(state_dir)) return std::unexpected("the orchestrator stopped before answering");
    if (std::chrono::steady_clock::now() >= deadline)
      return std::unexpected(fmt::format("the orchestrator did not answer within {} s", timeout.count()));
    if (wait(20ms)) return std::unexpected("cancelled");
  }
}

}  // namespace harness::store
