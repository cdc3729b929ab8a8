#pragma once
// A PLAN.md: typed YAML frontmatter plus facts counted from the Markdown body.

#include "harness/spec/check.hpp"
#include "harness/spec/phase_number.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace harness::spec {

/// Seed 003's governance block.
struct Automation {
  std::string type;  ///< conceptual | mechanical | mixed
  std::string scope; ///< bounded | unbounded
  std::string ralph; ///< allowed | discouraged | forbidden
  std::string ecc;   ///< suggested | optional | unnecessary
};

/// GSD `must_haves.artifacts` entry.
struct Artifact {
  std::string path;
  std::string provides;
  std::optional<int> min_lines;
  std::vector<std::string> contains;
  std::vector<std::string> exports;
  int line = 0;
};

/// GSD `must_haves.key_links` entry: `pattern` must be found in `from`.
struct KeyLink {
  std::string from;
  std::string to;
  std::string via;
  std::string pattern;
  int line = 0;
};

struct MustHaves {
  std::vector<std::string> truths;
  std::vector<Artifact> artifacts;
  std::vector<KeyLink> key_links;
  bool empty() const { return truths.empty() && artifacts.empty() && key_links.empty(); }
};

/// A task in the plan body (GSD `<task>` element or a Markdown task heading).
struct PlanTask {
  std::string name;
  int line = 0;
};

/// A fenced code block in the plan body (the `script` worker runs those tagged sh/bash).
struct CodeBlock {
  std::string info; ///< the fence's info string, e.g. "bash"
  std::string code;
  int line = 0;     ///< line of the opening fence
};

struct Plan {
  std::string id;  ///< "03-02" or "02.1-01"
  PhaseNumber phase;
  int number = 0;  ///< the MM of NN-MM
  std::string file;       ///< PLAN path relative to the spec directory
  std::string phase_slug; ///< "03-auth" (the phase directory name)

  std::vector<std::string> depends_on;
  std::vector<std::string> files_modified; ///< globs allowed, relative to the project root
  std::vector<std::string> files_read;
  std::vector<std::string> checkpoints;    ///< verification | decision | action
  bool autonomous = true;
  std::vector<Check> must_pass;
  std::optional<double> estimate_minutes;
  std::optional<Automation> automation;

  // GSD fields
  std::string type;                 ///< execute | tdd | ...
  std::optional<int> wave;          ///< informational only; the graph decides
  std::string phase_key;            ///< `phase:` as written ("03-auth"); the directory decides (H037)
  std::string plan_key;             ///< `plan:` as written ("02"); the file name decides (H037)
  std::vector<std::string> requirements;
  MustHaves must_haves;
  std::vector<std::string> user_setup; ///< each entry as compact text
  bool gap_closure = false;
  /// A `checkpoint:human-verify` task's `<what-built>` and `<how-to-verify>`, on one line ("built:
  /// ...; to check: ..."): what the person asked to approve the plan's verification is told.
  std::string human_check;

  // Body
  std::string title;               ///< `title:`, else the first `# ` heading, else the objective's first sentence
  std::vector<PlanTask> tasks;
  std::vector<CodeBlock> code_blocks;
  std::string objective;           ///< text of an <objective> element or "## Objective" section

  std::map<std::string, int> key_lines; ///< line of every top-level frontmatter key
  int body_line = 0;                    ///< first line of the body
};

} // namespace harness::spec
