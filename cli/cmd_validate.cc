#include "cli/commands.h"
#include "cli/common.h"

namespace occam::cli {

void RegisterValidate(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand("validate", "(under construction)");
  cmd->callback([exit_code] { *exit_code = Fail(Internal("'validate' is under construction")); });
}

}  // namespace occam::cli
