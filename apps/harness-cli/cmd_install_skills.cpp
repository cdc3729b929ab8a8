// harness-cli install-skills [--project DIR]: the /harness:* commands, agents, templates and
// references into the project's .claude/, and the harness MCP server into its .mcp.json.
#include "commands.hpp"
#include "project_dir.hpp"
#include "self_dir.hpp"

#include "harness/setup/cli_on_path.hpp"
#include "harness/setup/install.hpp"

#include <cstdlib>
#include <iostream>
#include <memory>

namespace harness::cli {

void add_install_skills(CLI::App& app, ExitCode& exit) {
  auto project = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("install-skills", "Install the /harness:* Claude Code skills and the MCP server entry into a project");
  add_project_option(cmd, *project);
  cmd->callback([project, &exit] {
    const auto skills = setup::find_skills_dir(self_dir(), HARNESS_SOURCE_DIR);
    if (skills.empty()) {
      std::cerr << "harness-cli: error: cannot find harness's skills directory (share/harness/skills)\n";
      exit.value = 1;
      return;
    }
    auto r = setup::install_skills(skills, project_dir(*project), self_dir() / "harness-mcp");
    if (!r) {
      std::cerr << "harness-cli: error: " << r.error().message << "\n";
      exit.value = r.error().bad_input ? 2 : 1;
      return;
    }
    for (const auto& f : r->written) std::cout << "wrote     " << f << "\n";
    for (const auto& f : r->backed_up) std::cout << "saved     " << f << ".harness-old (the file it replaced)\n";
    for (const auto& f : r->kept)
      std::cout << "kept      " << f << " (changed since installed; the new version is " << f << ".harness-new)\n";
    std::cout << r->written.size() << " file(s) written, " << r->unchanged.size() << " already up to date";
    if (!r->kept.empty()) std::cout << ", " << r->kept.size() << " kept as you changed them";
    std::cout << "\n";
    const char* path = std::getenv("PATH");
    if (auto w = setup::cli_path_warning(self_dir() / "harness-cli", path ? path : ""); !w.empty())
      std::cerr << "harness-cli: warning: " << w << "\n";
    exit.value = 0;
  });
}

} // namespace harness::cli
