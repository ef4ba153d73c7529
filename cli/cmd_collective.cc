#include "cli/commands.h"
#include "cli/common.h"

namespace occam::cli {

void RegisterCollective(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand("collective", "(under construction)");
  cmd->callback([exit_code] { *exit_code = Fail(Internal("'collective' is under construction")); });
}

}  // namespace occam::cli
