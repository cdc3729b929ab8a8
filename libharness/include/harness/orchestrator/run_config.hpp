#pragma once
// How `.orchestration/config.yaml` turns into run settings. Precedence, lowest first: built-in
// defaults (RunOptions), the project's config.yaml, then the flags the user typed (the caller
// applies those after this).

#include "harness/orchestrator/run_options.hpp"
#include "harness/spec/diagnostic.hpp"
#include "harness/spec/layout.hpp"
#include "harness/store/config.hpp"

#include <expected>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace harness::orchestrator {

/// The phase gate's lookahead as written by a user: an integer 0..16, or "unlimited" (nullopt).
/// The error says what is accepted.
std::expected<std::optional<int>, std::string> parse_lookahead(std::string_view text);

/// Applies every key `config` sets onto `options`; keys it leaves out keep their value.
void apply_config(const store::OrchestrationConfig& config, RunOptions& options);

/// The workers a run launches, for its run_started line: "script worker", or with `adapters:`
/// giving some roles another worker "script worker, command for executor" (config.yaml's role names).
std::string describe_workers(const RunOptions& options);

/// The note a run with a cost limit starts with when some of its workers report no cost (codex,
/// command): the limit cannot stop what it cannot see. Empty when there is nothing to say.
std::string cost_limit_note(const RunOptions& options);

/// The note a run in a GSD project starts with when `.planning/config.json` is there: harness
/// reads none of it (its slots, its verifier switch), and says where its own settings go. Empty
/// otherwise.
std::string gsd_config_note(const spec::Layout& layout);

/// Whether some task of the run uses the command worker (its template is read only then).
bool uses_command_worker(const RunOptions& options);

/// Reads `<project>/.orchestration/config.yaml` for `options.spec_dir` (project = nearest ancestor
/// holding .git) and applies it. A missing file changes nothing; a malformed one is an error with
/// file:line:col diagnostics.
std::expected<void, std::vector<spec::Diagnostic>> apply_project_config(RunOptions& options);
/// The same for a spec already found: `<layout.project_root>/.orchestration/config.yaml`. status and
/// simulate read it too, so that their "ready now" and their prediction are the run's (the gate,
/// the slots), not the built-in defaults (review RR F3).
std::expected<void, std::vector<spec::Diagnostic>> apply_project_config(RunOptions& options, const spec::Layout& layout);

} // namespace harness::orchestrator
