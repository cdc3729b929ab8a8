// What a plan's checkpoints: and autonomous: ask of a person (plan_checkpoints.hpp), and the
// warning for a value that would ask nobody.
#include "harness/spec/plan_checkpoints.hpp"
#include "harness/spec/plan_parser.hpp"

#include <catch2/catch.hpp>

using namespace harness::spec;

namespace {

Plan plan(std::vector<std::string> checkpoints, bool autonomous = true) {
  Plan p;
  p.id = "01-01";
  p.checkpoints = std::move(checkpoints);
  p.autonomous = autonomous;
  return p;
}

} // namespace

TEST_CASE("checkpoint values: harness's names, GSD's names and GSD's checkpoint: prefix", "[spec][checkpoints]") {
  CHECK(parse_checkpoint_kind("verification") == CheckpointKind::verification);
  CHECK(parse_checkpoint_kind("human-verify") == CheckpointKind::verification);
  CHECK(parse_checkpoint_kind("checkpoint:human-verify") == CheckpointKind::verification);
  CHECK(parse_checkpoint_kind("decision") == CheckpointKind::decision);
  CHECK(parse_checkpoint_kind("checkpoint:decision") == CheckpointKind::decision);
  CHECK(parse_checkpoint_kind("action") == CheckpointKind::action);
  CHECK(parse_checkpoint_kind("human-action") == CheckpointKind::action);
  CHECK_FALSE(parse_checkpoint_kind("review"));
  CHECK_FALSE(parse_checkpoint_kind("Verification"));
  CHECK(checkpoint_kinds(plan({"decision", "review", "human-verify", "checkpoint:decision"})) ==
        std::vector<CheckpointKind>{CheckpointKind::decision, CheckpointKind::verification});
}

TEST_CASE("a plan that needs a person is approved by one after its checks", "[spec][checkpoints]") {
  CHECK_FALSE(needs_approval(plan({}), ExecutorAsked::no));
  CHECK(needs_approval(plan({"verification"}), ExecutorAsked::yes));
  CHECK(needs_approval(plan({"human-verify"}), ExecutorAsked::no));
  CHECK(needs_approval(plan({}, false), ExecutorAsked::yes)); // autonomous: false
  // A decision or action its executor asked was put to a person already; one never asked was not.
  CHECK_FALSE(needs_approval(plan({"decision"}), ExecutorAsked::yes));
  CHECK(needs_approval(plan({"decision"}), ExecutorAsked::no));
  CHECK(needs_approval(plan({"human-action"}), ExecutorAsked::no));
  // A value harness does not know asks nobody (validate warns, H033).
  CHECK_FALSE(needs_approval(plan({"review"}), ExecutorAsked::no));
}

TEST_CASE("validate warns (H033) on each checkpoint value harness does not know, on its line", "[spec][checkpoints]") {
  std::vector<Diagnostic> diags;
  auto p = parse_plan("---\nplan_id: '01-01'\ndepends_on: []\nfiles_modified: [a]\n"
                      "checkpoints: ['human-verify', 'review', 'checkpoint:human-action', 'later']\n---\n# 01-01\n\n### Task 1: a\n",
                      "p.md", PlanDialect::harness, diags);
  REQUIRE(p);
  CHECK(p->checkpoints.size() == 4);
  std::vector<std::string> warned;
  for (const auto& d : diags) {
    CHECK(d.severity == Severity::warning);
    CHECK(d.code == "H033");
    CHECK(d.line == 5);
    warned.push_back(d.message.substr(0, d.message.find(" is not")));
  }
  CHECK(warned == std::vector<std::string>{"checkpoints value 'review'", "checkpoints value 'later'"});
}
