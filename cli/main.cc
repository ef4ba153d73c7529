// occam: plan and simulate the training of large language models on many
// accelerators. See README.md and doc/.
#include <CLI/CLI.hpp>
#include <cstdio>

#include "cli/commands.h"

int main(int argc, char** argv) {
  CLI::App app{"occam: plan and simulate LLM training on many accelerators"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "occam 0.1.0");
  int exit_code = 0;
  occam::cli::RegisterList(app, &exit_code);
  occam::cli::RegisterEstimate(app, &exit_code);
  occam::cli::RegisterCollective(app, &exit_code);
  occam::cli::RegisterSimulate(app, &exit_code);
  occam::cli::RegisterBalance(app, &exit_code);
  occam::cli::RegisterPlan(app, &exit_code);
  occam::cli::RegisterValidate(app, &exit_code);
  occam::cli::RegisterBudget(app, &exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "occam: error: %s (see 'occam --help' or 'occam <command> --help')\n",
                 e.what());
    return 2;
  }
  return exit_code;
}
