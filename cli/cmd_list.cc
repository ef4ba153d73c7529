#include "cli/commands.h"
#include "cli/common.h"

namespace occam::cli {

void RegisterList(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand("list", "(under construction)");
  cmd->callback([exit_code] { *exit_code = Fail(Internal("'list' is under construction")); });
}

}  // namespace occam::cli
