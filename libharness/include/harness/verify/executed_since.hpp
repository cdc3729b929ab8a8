#pragma once
// A phase's (or the final) VERIFICATION file vouches for the work its plans had when it was
// written. When a run starts executing one of those plans again (after `harness-cli redo`, or a
// SUMMARY deleted to have it done again), the file says so in its frontmatter, `executed_since`,
// before the worker starts: a run killed, or waiting for a person, after the new SUMMARY exists
// must not read the old verdict as covering the new work (spec::read_done_state).

#include <expected>
#include <optional>
#include <string>
#include <string_view>

namespace harness::verify {

/// `text` with `plan` added to its frontmatter's `executed_since` list; nullopt when there is
/// nothing to add (the file has no status, so no verdict to hold; it does not cover the plan; it
/// lists it already). Fails on a file whose frontmatter harness cannot update in place;
/// `display_path` names it in the message.
std::expected<std::optional<std::string>, std::string> with_executed_since(std::string_view text, const std::string& display_path,
                                                                           const std::string& plan);

} // namespace harness::verify
