#include "cli/commands.h"
#include "cli/common.h"

namespace occam::cli {

void RegisterPlan(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand("plan", "(under construction)");
  cmd->callback([exit_code] { *exit_code = Fail(Internal("'plan' is under construction")); });
}

}  // namespace occam::cli
