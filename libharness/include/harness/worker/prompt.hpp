#pragma once
// Rendering the worker prompt from skills/templates/worker-prompt.md and a task's input.

#include <expected>
#include <map>
#include <string>
#include <string_view>

namespace harness::worker {

/// Replaces every `{{name}}` in `tmpl` with `vars[name]`. A name missing from `vars` is an error
/// (a prompt with a hole would send the agent off blind); `{{{{` is not special.
std::expected<std::string, std::string> render_template(std::string_view tmpl,
                                                        const std::map<std::string, std::string>& vars);

} // namespace harness::worker
