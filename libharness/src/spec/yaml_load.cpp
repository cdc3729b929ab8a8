#include "harness/spec/yaml_load.hpp"

#include <yaml-cpp/eventhandler.h>

#include <optional>
#include <sstream>

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

} // namespace

YAML::Node load_yaml(const std::string& text) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  Refusals refusals;
  while (!refusals.found && parser.HandleNextDocument(refusals)) {
  }
  if (refusals.found) throw *refusals.found;
  return YAML::Load(text);
}

} // namespace harness::spec
