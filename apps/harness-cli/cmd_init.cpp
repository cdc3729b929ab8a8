// harness-cli init [--spec NAME] [--project DIR] [--allow-same-name]: a new numbered spec directory with its SPEC.md.
#include "commands.hpp"
#include "project_dir.hpp"
#include "self_dir.hpp"

#include "harness/orchestrator/preflight.hpp"
#include "harness/setup/install.hpp"
#include "harness/spec/layout.hpp"

#include <iostream>
#include <memory>

namespace harness::cli {

void add_init(CLI::App& app, ExitCode& exit) {
  struct Options {
    std::string spec = "new feature";
    std::string project;
    bool allow_same_name = false;
  };
  auto opt = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("init", "Create docs/specs/SPC-NNN-name/SPEC.md from the spec template");
  cmd->add_option("--spec", opt->spec, "the spec's name, e.g. \"user sign-in\"");
  add_project_option(cmd, opt->project);
  cmd->add_flag("--allow-same-name", opt->allow_same_name, "number a new spec even when one with this name exists");
  cmd->callback([opt, &exit] {
    const auto skills = setup::find_skills_dir(self_dir(), HARNESS_SOURCE_DIR);
    if (skills.empty()) {
      std::cerr << "harness-cli: error: cannot find harness's skills directory (share/harness/skills)\n";
      exit.value = 1;
      return;
    }
    const auto project = project_dir(opt->project);
    auto dir = setup::init_spec(project, opt->spec, skills,
                                opt->allow_same_name ? setup::SameName::allow : setup::SameName::refuse);
    if (!dir) {
      std::cerr << "harness-cli: error: " << dir.error().message << "\n";
      exit.value = dir.error().bad_input ? 2 : 1;
      return;
    }
    // Claude Code runs in the project root: the command names the spec from there.
    std::cout << "created " << (*dir / "SPEC.md").string() << "\nnext: describe the feature there, then run /harness:plan-spec "
              << dir->lexically_relative(project).string() << " in Claude Code\n";
    // A project that ignores `*.log` ignores commits.log too, and orchestrate would refuse to start.
    if (auto layout = spec::discover_layout(*dir, project))
      if (const auto ignored = orchestrator::ignored_documents(*layout); !ignored.empty())
        std::cerr << "note: git ignores " << ignored.front()
                  << (ignored.size() > 1 ? " (and " + std::to_string(ignored.size() - 1) + " more of the spec's files)" : "")
                  << ", which harness commits; orchestrate will not start until a .gitignore rule lets it through, e.g. "
                  << "add the line '!" << ignored.front() << "' (git check-ignore -v " << ignored.front()
                  << " names the rule)\n";
    exit.value = 0;
  });
}

} // namespace harness::cli
