// load_yaml: aliases and a second document are refused where they are (review FF F1, F2, F6).
#include "harness/spec/yaml_load.hpp"

#include <catch2/catch.hpp>

#include <string>

using harness::spec::load_yaml;

namespace {

/// The refusal's message and 1-based line, or an empty message when the text loads.
std::pair<std::string, int> refusal(const std::string& text) {
  try {
    (void)load_yaml(text);
  } catch (const YAML::Exception& e) {
    return {e.msg, e.mark.line + 1};
  }
  return {"", 0};
}

} // namespace

TEST_CASE("load_yaml reads plain YAML as YAML::Load does", "[spec][yaml]") {
  const auto n = load_yaml("a: 1\nb: [x, y]\nc: {d: e}\nanchored: &k plain\n");
  CHECK(n["a"].as<int>() == 1);
  CHECK(n["b"].size() == 2);
  CHECK(n["c"]["d"].as<std::string>() == "e");
  CHECK(n["anchored"].as<std::string>() == "plain"); // an anchor alone changes nothing
  CHECK(load_yaml("").IsNull());
  CHECK(refusal("---\na: 1\n").first.empty()); // one document, with its start marker
}

TEST_CASE("load_yaml refuses aliases, which could make the nodes a cycle or an exponential tree", "[spec][yaml]") {
  auto [msg, line] = refusal("a: 1\nx: &a [*a]\n");
  CHECK(msg.find("an alias (*name) is not read") != std::string::npos);
  CHECK(line == 2);
  std::string laughs = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 9; ++i) {
    laughs += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int j = 0; j < 10; ++j) laughs += std::string(j ? ", " : "") + "*a" + std::to_string(i - 1);
    laughs += "]\n";
  }
  CHECK(refusal(laughs).second == 2);
}

TEST_CASE("load_yaml refuses a second document, whose keys YAML::Load drops", "[spec][yaml]") {
  for (const char* marker : {"...", "---"}) {
    INFO(marker);
    auto [msg, line] = refusal(std::string("plan_id: '01-02'\n") + marker + "\nmust_pass: []\n");
    CHECK(msg.find("a second YAML document starts here") != std::string::npos);
    CHECK(line >= 2);
  }
}

TEST_CASE("load_yaml finds an alias wherever a node can begin, and reads globs without one", "[spec][yaml]") {
  // The event pass is skipped for texts that cannot hold an alias or a second document: every
  // place an alias can stand must still be found.
  for (const char* text : {"a: &x 1\nb: *x\n", "a: &x 1\nb: [c,*x]\n", "a: &x 1\nb: {c: *x}\n", "{\"a\": &x 1, \"b\":*x}\n",
                           "a: &x 1\nb:\n  - *x\n", "a: &x 1\nb:\t*x\n", "a: &x 1\n? *x\n: 2\n",
                           "a: &x 1\n*x : 2\n"}) {
    INFO(text);
    const auto [msg, line] = refusal(text);
    CHECK(msg.find("an alias (*name) is not read") != std::string::npos); // YAML::Load alone would take it
  }
  const auto n = load_yaml("files_modified: [src/**/*.ts, \"**/x.md\", 'docs/*', a.*]\nnote: 2*3 is 6\n");
  CHECK(n["files_modified"].size() == 4);
  CHECK(n["files_modified"][0].as<std::string>() == "src/**/*.ts");
  CHECK(n["files_modified"][1].as<std::string>() == "**/x.md");
  CHECK(n["note"].as<std::string>() == "2*3 is 6");
  CHECK(refusal("a: 1\n%YAML 1.2\n---\nb: 2\n").second >= 2); // a directive begins another document
  // UTF-16, as PowerShell writes it (review JJ F4): yaml-cpp reads it; the second document is found.
  std::string utf16 = "\xFF\xFE";
  for (char c : std::string("a: 1\n---\nb: 2\n")) utf16 += std::string{c, '\0'};
  CHECK(refusal(utf16).first.find("a second YAML document starts here") != std::string::npos);
}

TEST_CASE("load_yaml says what yaml-cpp's depth limit means", "[spec][yaml]") {
  // yaml-cpp's own message is "bad file" (review FF F10).
  std::string deep;
  for (int i = 0; i < 100000; ++i) deep += "{a: ";
  const auto [msg, line] = refusal("k: " + deep + "1\n");
  CHECK(msg.find("nested too deeply for the YAML reader") != std::string::npos);
  CHECK(line == 1);
}

TEST_CASE("load_yaml refuses a double-quoted value that never closes, which took the rest of the text", "[spec][yaml]") {
  // yaml-cpp itself read `b: 1` into a's value when the text ended with a line break.
  auto [msg, line] = refusal("plan_id: '01-02'\ntitle: \"Second\ndepends_on: ['01-01']\n");
  CHECK(msg.find("has no closing quote") != std::string::npos);
  CHECK(line == 2);
  CHECK_FALSE(refusal("a: [\"x\", \"y\nb: 1\n").first.empty()); // in a flow list yaml-cpp itself refuses it
  // Closed ones, escapes and quotes inside other scalars load as before.
  const auto n = load_yaml("a: \"say \\\"hi\\\"\"\nb: 'it''s \"quoted\"'\nc: plain \"q\nd: \"x\n  y\"\n");
  CHECK(n["a"].as<std::string>() == "say \"hi\"");
  CHECK(n["b"].as<std::string>() == "it's \"quoted\"");
  CHECK(n["c"].as<std::string>() == "plain \"q");
  CHECK(n["d"].as<std::string>() == "x y");
  // Behind a tag or an anchor too (review QQ F6: `!!str "x` still swallowed must_pass).
  CHECK(refusal("title: !!str \"Second\nmust_pass: []\n").first.find("has no closing quote") != std::string::npos);
  CHECK(refusal("title: &t \"Second\nmust_pass: []\n").first.find("has no closing quote") != std::string::npos);
  CHECK(load_yaml("title: !!str \"closed\"\n")["title"].as<std::string>() == "closed");
}
