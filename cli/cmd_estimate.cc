#include "cli/commands.h"
#include "cli/common.h"

namespace occam::cli {

void RegisterEstimate(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand("estimate", "(under construction)");
  cmd->callback([exit_code] { *exit_code = Fail(Internal("'estimate' is under construction")); });
}

}  // namespace occam::cli
