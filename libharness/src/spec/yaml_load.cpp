#include "harness/spec/yaml_load.hpp"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>

#include <optional>
#include <sstream>
#include <string_view>

namespace harness::spec {
namespace {

/// Finds what load_yaml refuses with one pass over the parser's events (no nodes are built).
class Refusals final : public YAML::EventHandler {
public:
  std::optional<YAML::ParserException> found;

  void OnDocumentStart(const YAML::Mark& mark) override {
    if (++m_documents > 1)
      refuse(mark, "a second YAML document starts here (after a '...' or '---' line): its keys would be lost; remove "
                   "that line");
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override {
    refuse(mark, "an alias (*name) is not read in harness's files: write the value out");
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}

private:
  void refuse(const YAML::Mark& mark, const char* why) {
    if (!found) found.emplace(mark, why);
  }
  int m_documents = 0;
};

/// Whether `text` may hold what Refusals finds. A second document needs a `---`, `...` or `%`
/// line, an alias a `*` that begins a node: after a space, a line start or a flow indicator,
/// never after a letter, digit, `/`, `.`, `_` or another `*` (a glob's `src/**/*.ts`); a text
/// with a NUL byte may be UTF-16 or UTF-32 and is always passed. Most
/// frontmatter has neither, and the event pass cost as much as the loading itself.
bool may_hold_refusal(std::string_view text) {
  // UTF-16 and UTF-32 (yaml-cpp converts them) spell `---` with NUL bytes between: the scan reads
  // UTF-8 only (review JJ F4: a config.yaml PowerShell wrote lost its second document's keys).
  if (text.find('\0') != std::string_view::npos) return true;
  auto safe_before_star = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '/' || c == '.' || c == '_' ||
           c == '*';
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '*' && (i == 0 || !safe_before_star(text[i - 1]))) return true;
    if ((i == 0 || text[i - 1] == '\n') && (c == '%' || text.substr(i, 3) == "---" || text.substr(i, 3) == "...")) return true;
  }
  return false;
}

/// Whether the double-quoted scalar whose opening quote is at `open` in `text` closes.
bool quote_closes(std::string_view text, std::size_t open) {
  for (std::size_t i = open + 1; i < text.size(); ++i) {
    if (text[i] == '\\') ++i; // an escape: `\"` is no end
    else if (text[i] == '"') return true;
  }
  return false;
}

/// yaml-cpp reads a double-quoted value that never closes to the end of a text that ends with a
/// line break, every line after it taken into the value: `title: "Second` swallowed the plan's
/// depends_on, which was then said to be missing (a `must_pass` after it would have vanished
/// without a word). Refused at the quote. Only a text holding a '"' is walked.
void refuse_unclosed_quotes(const YAML::Node& node, std::string_view text) {
  if (node.IsScalar()) {
    const auto mark = node.Mark();
    if (mark.pos < 0) return;
    // A tag or an anchor before the value (`!!str "x`, `&a "x`): its quote follows them (review QQ F6).
    auto at = static_cast<std::size_t>(mark.pos);
    while (at < text.size() && (text[at] == '!' || text[at] == '&')) {
      while (at < text.size() && text[at] != ' ' && text[at] != '\t' && text[at] != '\n') ++at;
      while (at < text.size() && (text[at] == ' ' || text[at] == '\t')) ++at;
    }
    if (at < text.size() && text[at] == '"' && !quote_closes(text, at))
      throw YAML::ParserException(mark, "this double-quoted value has no closing quote, so YAML read every line after it "
                                        "into the value: close it");
  } else if (node.IsSequence()) {
    for (const auto& item : node) refuse_unclosed_quotes(item, text);
  } else if (node.IsMap()) {
    for (const auto& kv : node) {
      refuse_unclosed_quotes(kv.first, text);
      refuse_unclosed_quotes(kv.second, text);
    }
  }
}

/// load_yaml without its translation of yaml-cpp's depth limit.
YAML::Node load_checked(const std::string& text) {
  if (!may_hold_refusal(text)) return YAML::Load(text);
  std::istringstream in(text);
  YAML::Parser parser(in);
  Refusals refusals;
  while (!refusals.found && parser.HandleNextDocument(refusals)) {
  }
  if (refusals.found) throw *refusals.found;
  return YAML::Load(text);
}

} // namespace

YAML::Node load_yaml(const std::string& text) {
  try {
    auto node = load_checked(text);
    if (text.find('"') != std::string::npos) refuse_unclosed_quotes(node, text);
    return node;
  } catch (const YAML::DeepRecursion& e) {
    // yaml-cpp's own words for it are "bad file" (review FF F10).
    throw YAML::ParserException(e.mark, "nested too deeply for the YAML reader (it stops at several hundred levels of [, { or indentation): flatten it");
  }
}

} // namespace harness::spec
