#include "cli/commands.h"
#include "cli/common.h"

namespace occam::cli {

void RegisterSimulate(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand("simulate", "(under construction)");
  cmd->callback([exit_code] { *exit_code = Fail(Internal("'simulate' is under construction")); });
}

}  // namespace occam::cli
