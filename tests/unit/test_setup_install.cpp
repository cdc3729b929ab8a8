// install-skills and init against temporary projects and the real skills/ directory.
#include "harness/setup/install.hpp"
#include "harness/util/atomic_file.hpp"
#include "spec_test_util.hpp"

#include <boost/json.hpp>
#include <catch2/catch.hpp>

using namespace harness;
namespace fs = std::filesystem;

namespace {
const fs::path skills = fs::path(HARNESS_SOURCE_DIR) / "skills";
}

TEST_CASE("install-skills puts commands, agents, templates and references in place, twice the same", "[setup]") {
  test::TempDir dir;
  auto first = setup::install_skills(skills, dir.path, "/opt/harness/bin/harness-mcp");
  REQUIRE(first);
  CHECK(first->unchanged.empty());
  CHECK(fs::exists(dir.path / ".claude/commands/harness/status.md"));
  CHECK(fs::exists(dir.path / ".claude/commands/harness/orchestrate.md"));
  CHECK(fs::exists(dir.path / ".claude/agents/harness-planner.md"));
  CHECK(fs::exists(dir.path / ".claude/harness/templates/plan.md"));
  CHECK(fs::exists(dir.path / ".claude/harness/references/goal-backward.md"));
  auto mcp = boost::json::parse(util::read_file(dir.path / ".mcp.json").value());
  CHECK(mcp.at("mcpServers").at("harness").at("command").as_string() == "/opt/harness/bin/harness-mcp");
  auto second = setup::install_skills(skills, dir.path, "/opt/harness/bin/harness-mcp");
  REQUIRE(second);
  CHECK(second->written.empty()); // idempotent
  CHECK(second->unchanged.size() == first->written.size());
}

TEST_CASE("install-skills keeps a file the user changed since it was installed, and saves one it never installed", "[setup]") {
  test::TempDir dir;
  REQUIRE(setup::install_skills(skills, dir.path, "/opt/harness/bin/harness-mcp"));
  const auto status = dir.path / ".claude/commands/harness/status.md";
  const std::string ours = util::read_file(status).value();
  dir.write(".claude/commands/harness/status.md", ours + "my note\n");
  // A file of that name from before installs were recorded (or the user's own): replaced, saved.
  const auto planner = dir.path / ".claude/agents/harness-planner.md";
  fs::remove(dir.path / ".claude/harness/installed.json");
  dir.write(".claude/agents/harness-planner.md", "my own planner\n");
  auto again = setup::install_skills(skills, dir.path, "/opt/harness/bin/harness-mcp");
  REQUIRE(again);
  // Without the record the edited status.md cannot be told from an old version: saved, replaced.
  CHECK(again->backed_up == std::vector<std::string>{".claude/commands/harness/status.md", ".claude/agents/harness-planner.md"});
  CHECK(util::read_file(planner.string() + ".harness-old").value() == "my own planner\n");
  CHECK(util::read_file(status).value() == ours);
  // With the record (written by that install), a later edit is the user's: it stays.
  dir.write(".claude/commands/harness/status.md", ours + "my note\n");
  auto third = setup::install_skills(skills, dir.path, "/opt/harness/bin/harness-mcp");
  REQUIRE(third);
  CHECK(third->kept == std::vector<std::string>{".claude/commands/harness/status.md"});
  CHECK(third->written.empty());
  CHECK(util::read_file(status).value() == ours + "my note\n");
  CHECK(util::read_file(status.string() + ".harness-new").value() == ours);
  // Put back as installed, it is harness's again and updates as before.
  dir.write(".claude/commands/harness/status.md", ours);
  auto fourth = setup::install_skills(skills, dir.path, "/opt/harness/bin/harness-mcp");
  REQUIRE(fourth);
  CHECK(fourth->kept.empty());
  CHECK(fourth->backed_up.empty());
}

TEST_CASE(".mcp.json keeps the user's other servers and keys; a broken one is not touched", "[setup]") {
  auto merged = setup::merge_mcp_json(R"({"mcpServers": {"db": {"command": "db-mcp", "args": ["--ro"]},
                                          "harness": {"command": "/old/harness-mcp"}}, "other": 1})",
                                      "/new/harness-mcp");
  REQUIRE(merged);
  auto j = boost::json::parse(*merged);
  CHECK(j.at("other").as_int64() == 1);
  CHECK(j.at("mcpServers").at("db").at("args").at(0).as_string() == "--ro");
  CHECK(j.at("mcpServers").at("harness").at("command").as_string() == "/new/harness-mcp");
  CHECK(setup::merge_mcp_json("", "/x").has_value());
  CHECK_FALSE(setup::merge_mcp_json("[1, 2]", "/x").has_value());
  CHECK_FALSE(setup::merge_mcp_json(R"({"mcpServers": 3})", "/x").has_value());

  test::TempDir dir;
  dir.write(".mcp.json", "{ not json");
  auto r = setup::install_skills(skills, dir.path, "/x/harness-mcp");
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().message.find(".mcp.json") != std::string::npos);
  CHECK(r.error().bad_input); // the user's file: fixable by the user, exit 2
  CHECK(util::read_file(dir.path / ".mcp.json").value() == "{ not json");
  CHECK_FALSE(fs::exists(dir.path / ".claude")); // nothing half-installed
}

TEST_CASE("init numbers new specs after the highest existing one and refuses to overwrite", "[setup]") {
  test::TempDir dir;
  auto first = setup::init_spec(dir.path, "User sign-in!", skills);
  REQUIRE(first);
  CHECK(first->filename() == "SPC-001-user-sign-in");
  const auto text = util::read_file(*first / "SPEC.md").value();
  CHECK(text.starts_with("# SPC-001: User sign-in!\n"));
  CHECK(text.find("{{") == std::string::npos);
  fs::create_directories(dir.path / "docs/specs/SPC-041-old");
  CHECK(setup::init_spec(dir.path, "next", skills).value().filename() == "SPC-042-next");
  CHECK_FALSE(setup::init_spec(dir.path, "???", skills).has_value());
  CHECK(setup::slug("  Ünïcode & Co  ") == "unicode-co");
}

TEST_CASE("a spec name's accented Latin letters become their base letters in the directory name", "[setup]") {
  CHECK(setup::slug("façade") == "facade");
  CHECK(setup::slug("Über Straße") == "uber-strasse");
  CHECK(setup::slug("Ærø Ångström Łódź Ñandú") == "aero-angstrom-lodz-nandu");
  CHECK(setup::slug("Œuvre ĳs Čeština") == "oeuvre-ijs-cestina");
  CHECK(setup::slug("2×3÷4") == "2-3-4"); // signs of Latin-1, not letters
  CHECK(setup::slug("café 日本 ☕ x") == "cafe-x"); // other scripts and emoji separate words
  CHECK(setup::slug("bad\xff\xc3" "byte") == "bad-byte"); // invalid UTF-8 too
  test::TempDir dir;
  CHECK(setup::init_spec(dir.path, "Façade", skills).value().filename() == "SPC-001-facade");
  auto none = setup::init_spec(dir.path, "日本語", skills);
  REQUIRE_FALSE(none);
  CHECK(none.error().bad_input);
  CHECK(none.error().message.find("gives no usable directory name") != std::string::npos);
  CHECK_FALSE(fs::exists(dir.path / "docs/specs/SPC-002-"));
}

TEST_CASE("init refuses a name too long for a directory as bad input, not a failed write", "[setup]") {
  test::TempDir dir;
  auto long_name = setup::init_spec(dir.path, std::string(300, 'a'), skills);
  REQUIRE_FALSE(long_name);
  CHECK(long_name.error().bad_input); // exit 2
  CHECK(long_name.error().message.find("the spec's name is too long: its directory name would have 300 characters") == 0);
  CHECK_FALSE(fs::exists(dir.path / "docs/specs"));
  CHECK(setup::init_spec(dir.path, std::string(setup::max_slug_length, 'a'), skills));
}

TEST_CASE("init refuses a name an existing spec has, naming it, unless told to allow it", "[setup]") {
  test::TempDir dir;
  fs::create_directories(dir.path / "docs/specs/SPC-003-notifications");
  fs::create_directories(dir.path / "docs/specs/SPC-004-notifications-v2");
  auto again = setup::init_spec(dir.path, "Notifications", skills);
  REQUIRE_FALSE(again);
  CHECK(again.error().bad_input); // exit 2
  CHECK(again.error().message.find("docs/specs/SPC-003-notifications") != std::string::npos);
  CHECK_FALSE(fs::exists(dir.path / "docs/specs/SPC-005-notifications"));
  auto second = setup::init_spec(dir.path, "notifications", skills, setup::SameName::allow);
  REQUIRE(second);
  CHECK(second->filename() == "SPC-005-notifications");
  // A longer name that starts the same is another spec.
  CHECK(setup::init_spec(dir.path, "notifications v3", skills).value().filename() == "SPC-006-notifications-v3");
}

TEST_CASE("init takes any name: one holding a template key, a huge SPC number beside it", "[setup]") {
  test::TempDir dir;
  fs::create_directories(dir.path / "docs/specs/SPC-99999999999999999999-imported");
  auto made = setup::init_spec(dir.path, "{{title}} page {{number}}", skills);
  REQUIRE(made);
  CHECK(made->filename() == "SPC-001-title-page-number");
  CHECK(util::read_file(*made / "SPEC.md").value().starts_with("# SPC-001: {{title}} page {{number}}\n"));
}

TEST_CASE("init and install-skills say whether the user's input or the machine failed", "[setup]") {
  test::TempDir dir;
  auto typo = setup::init_spec(dir.path / "typo", "x", skills);
  REQUIRE_FALSE(typo);
  CHECK(typo.error().bad_input);
  CHECK_FALSE(fs::exists(dir.path / "typo")); // a mistyped --project creates nothing
  auto not_dir = setup::install_skills(skills, dir.path / "typo", "/x/harness-mcp");
  REQUIRE_FALSE(not_dir);
  CHECK(not_dir.error().bad_input);
  auto no_skills = setup::init_spec(dir.path, "x", dir.path / "no-skills");
  REQUIRE_FALSE(no_skills);
  CHECK_FALSE(no_skills.error().bad_input); // an installation problem, exit 1
  CHECK_FALSE(setup::install_skills(dir.path / "no-skills", dir.path, "/x/harness-mcp").error().bad_input);
}

TEST_CASE("the skills directory is found beside an installed binary or in the source tree", "[setup]") {
  CHECK(setup::find_skills_dir("/nonexistent/bin", HARNESS_SOURCE_DIR) == fs::canonical(skills));
  test::TempDir dir;
  CHECK(setup::find_skills_dir(dir.path / "bin", dir.path / "src").empty());
}
