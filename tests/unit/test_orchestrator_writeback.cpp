// STATUS.md as the orchestrator writes it must read back through the spec parser unchanged.
#include "harness/orchestrator/writeback.hpp"
#include "harness/spec/document_parsers.hpp"

#include <catch2/catch.hpp>

using namespace harness;

TEST_CASE("STATUS.md's blocked tasks round-trip through the spec parser, whatever the reason says", "[orchestrator][writeback]") {
  graph::Progress p;
  p.spec_name = "SPC-001-x";
  std::vector<spec::BlockedTask> blocked{{"execute:01-02", "worker crashed: \"boom\"\n  at line 3: {x: [1]}"},
                                         {"verify-phase:01", ""}};
  const auto text = orchestrator::render_status_md(p, "blocked", blocked);
  CHECK(text.starts_with("---\nrun: \"blocked\"\n"));
  CHECK(text.find("# Status: SPC-001-x") != std::string::npos);
  std::vector<spec::Diagnostic> diags;
  auto back = spec::parse_status_document(text, "STATUS.md", diags);
  CHECK(diags.empty());
  REQUIRE(back.blocked.size() == 2);
  CHECK(back.blocked[0].task == blocked[0].task);
  CHECK(back.blocked[0].reason == blocked[0].reason);
  CHECK(back.blocked[1].task == "verify-phase:01");
  auto none = spec::parse_status_document(orchestrator::render_status_md(p, "complete", {}), "STATUS.md", diags);
  CHECK(none.blocked.empty());
  CHECK(diags.empty());
}

TEST_CASE("commits.log gets each commit once, whoever reports it", "[orchestrator][writeback]") {
  const std::string log = "aaa 01-01 s1\nbbb 01-01 s1\n";
  auto lines = orchestrator::missing_commit_lines(log, {{"aaa", "01-01"}, {"ccc", "01-01"}, {"ccc", "01-01"}, {"ddd", "01-02"}}, "s2");
  CHECK(lines == std::vector<std::string>{"ccc 01-01 s2", "ddd 01-02 s2"});
  CHECK(orchestrator::missing_commit_lines("", {}, "s").empty());
}

TEST_CASE("the write-back takes the changed files the orchestrator wrote, never a live worker's", "[orchestrator][writeback]") {
  const std::vector<worker::GitChange> changed = {
      {false, false, "docs/specs/S/STATUS.md"},
      {false, false, "docs/specs/S/SPEC.md"},                           // the user's edit
      {true, false, "docs/specs/S/execution/phases/01-a/01-01-SUMMARY.md"}, // a live worker's
      {false, false, "docs/specs/S/execution/phases/01-a/01-02-SUMMARY.md"},
  };
  const std::set<std::string> own = {"docs/specs/S/STATUS.md", "docs/specs/S/ROADMAP.md", // unchanged: not taken
                                     "docs/specs/S/execution/phases/01-a/01-01-SUMMARY.md",
                                     "docs/specs/S/execution/phases/01-a/01-02-SUMMARY.md"};
  const std::set<std::string> live = {"docs/specs/S/execution/phases/01-a/01-01-SUMMARY.md"};
  CHECK(orchestrator::writeback_paths(changed, own, live) ==
        std::vector<std::string>{"docs/specs/S/STATUS.md", "docs/specs/S/execution/phases/01-a/01-02-SUMMARY.md"});
  CHECK(orchestrator::writeback_paths(changed, {}, {}).empty());
}

TEST_CASE("the list of uncommitted writes round-trips through the store's JSON value", "[orchestrator][writeback]") {
  const std::set<std::string> paths = {"docs/specs/S/STATUS.md", "docs/specs/S/a \"quoted\" name.md"};
  CHECK(orchestrator::decode_paths(orchestrator::encode_paths(paths)) == paths);
  CHECK(orchestrator::decode_paths(orchestrator::encode_paths({})).empty());
  // Edited by hand into something else: read as nothing, never a crash.
  CHECK(orchestrator::decode_paths("{\"a\": 1}").empty());
  CHECK(orchestrator::decode_paths("not json").empty());
  CHECK(orchestrator::decode_paths(R"(["a", 3, ""])") == std::set<std::string>{"a"});
  CHECK(orchestrator::uncommitted_writes_key("SPC-001-x") != orchestrator::uncommitted_writes_key("SPC-002-x"));
}
