#include "cli/commands.h"
#include "cli/common.h"

namespace occam::cli {

void RegisterBalance(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand("balance", "(under construction)");
  cmd->callback([exit_code] { *exit_code = Fail(Internal("'balance' is under construction")); });
}

}  // namespace occam::cli
