#include "harness/store/ask_orchestrator.hpp"

#include "harness/store/run_lock.hpp"

#include <boost/json.hpp>
#include <fmt/format.h>

#include <thread>

namespace harness::store {
using namespace std::chrono_literals;

std::string orchestrator_not_running(const std::filesystem::path& state_dir) {
  return fmt::format("orchestrator not running: no `harness-cli orchestrate` holds {}; start one "
                     "(harness-cli orchestrate docs/specs/SPC-...) and ask again",
                     (state_dir / "orchestrator.lock").string());
}

std::expected<std::vector<SessionRecord>, std::string> running_sessions(const std::filesystem::path& state_dir) {
  std::vector<SessionRecord> out;
  if (!running_orchestrator(state_dir)) return out;
  auto db = Store::open({.db_path = state_dir / "harness.db"});
  if (!db) return std::unexpected(db.error());
  auto all = db->list_sessions();
  if (!all) return std::unexpected(all.error());
  for (auto& s : *all)
    if (s.status == "running") out.push_back(std::move(s));
  return out;
}

std::string sessions_json(const std::vector<SessionRecord>& sessions) {
  boost::json::array list;
  for (const auto& s : sessions)
    list.push_back(boost::json::object{{"session_id", s.id}, {"task_id", s.task_id}, {"spec", s.spec}, {"slot", s.slot + 1},
                                       {"attempt", s.attempt}, {"adapter", s.adapter}});
  return boost::json::serialize(boost::json::object{{"sessions", std::move(list)}});
}

std::string sessions_text(const std::vector<SessionRecord>& sessions) {
  std::string out;
  for (const auto& s : sessions)
    out += fmt::format("{}  {}  slot {}, attempt {}, {}\n", s.id, s.task_id, s.slot + 1, s.attempt, s.adapter);
  return out;
}

std::expected<RequestAnswer, std::string> ask_orchestrator(Store& db, const std::filesystem::path& state_dir,
                                                           const std::string& kind, const std::string& target,
                                                           const std::string& body_json, std::chrono::seconds timeout,
                                                           const std::function<bool(std::chrono::milliseconds)>& wait) {
  if (!running_orchestrator(state_dir)) return std::unexpected(orchestrator_not_running(state_dir));
  auto request = db.add_request(kind, target, body_json);
  if (!request) return std::unexpected(request.error());
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  auto answered = [&]() -> std::expected<std::optional<RequestAnswer>, std::string> {
    auto row = db.request(request->id);
    if (!row) return std::unexpected(row.error());
    if (!*row || (*row)->status == "pending" || (*row)->status == "handling") return std::nullopt;
    return RequestAnswer{(*row)->status == "done", (*row)->result.value_or("{}")};
  };
  // Giving up withdraws the request, so the orchestrator never acts on a call that already
  // failed for its caller; one the orchestrator took meanwhile is waited for (it is being answered).
  auto give_up = [&](std::string why) -> std::expected<RequestAnswer, std::string> {
    const boost::json::object note{{"error", "withdrawn by the asker: " + why}};
    auto withdrawn = db.withdraw_request(request->id, boost::json::serialize(note));
    if (!withdrawn) return std::unexpected(withdrawn.error());
    if (*withdrawn) return std::unexpected(std::move(why));
    for (int i = 0; i < 250 && running_orchestrator(state_dir); ++i) {
      auto a = answered();
      if (!a) return std::unexpected(a.error());
      if (*a) return **a;
      std::this_thread::sleep_for(20ms); // not wait(): a cancelled caller's wait returns at once
    }
    if (auto a = answered(); a && *a) return **a;
    return std::unexpected(std::move(why));
  };
  for (;;) {
    auto a = answered();
    if (!a) return std::unexpected(a.error());
    if (*a) return **a;
    // Checked after the answer: an orchestrator that answered and then exited still answered.
    if (!running_orchestrator(state_dir)) return give_up("the orchestrator stopped before answering");
    if (std::chrono::steady_clock::now() >= deadline)
      return give_up(fmt::format("the orchestrator did not answer within {} s", timeout.count()));
    if (wait(20ms)) return give_up("cancelled");
  }
}

}  // namespace harness::store
