// harness-cli validate SPEC_DIR [--json]: exit 0 valid (warnings allowed), 2 invalid.
#include "commands.hpp"
#include "print_error.hpp"

#include "harness/spec/report.hpp"
#include "harness/spec/spec.hpp"

#include <iostream>
#include <memory>

namespace harness::cli {

void add_validate(CLI::App& app, ExitCode& exit) {
  struct Options {
    std::string spec_dir;
    bool json = false;
  };
  auto opt = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("validate", "Parse and check every document of a spec directory");
  cmd->add_option("SPEC_DIR", opt->spec_dir, "spec directory (docs/specs/SPC-NNN-name)")->required();
  cmd->add_flag("--json", opt->json, "print the result as JSON");
  cmd->callback([opt, &exit] {
    auto spec = spec::load_spec(opt->spec_dir);
    if (!spec) {
      print_error(spec.error(), opt->json ? Output::json : Output::text);
      exit.value = 2;
      return;
    }
    if (opt->json) std::cout << spec::validation_json(*spec);
    else (spec->valid() ? std::cout : std::cerr) << spec::validation_text(*spec);
    exit.value = spec->valid() ? 0 : 2;
  });
}

} // namespace harness::cli
