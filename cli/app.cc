// The whole command line as one function, for main() and the flags fuzzer.
#include <CLI/CLI.hpp>
#include <cstdio>

#include "cli/commands.h"
#include "cli/common.h"

namespace occam::cli {

int RunCommandLine(int argc, const char* const* argv) {
  CLI::App app{"occam: plan and simulate LLM training on many accelerators"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "occam 0.1.0");
  int exit_code = 0;
  RegisterList(app, &exit_code);
  RegisterEstimate(app, &exit_code);
  RegisterCollective(app, &exit_code);
  RegisterSimulate(app, &exit_code);
  RegisterBalance(app, &exit_code);
  RegisterPlan(app, &exit_code);
  RegisterValidate(app, &exit_code);
  RegisterBudget(app, &exit_code);
  RejectNonFiniteNumbers(app);
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
                 Shorten(e.what(), kMaxMessageChars).c_str());
    return 2;
  }
  return exit_code;
}

}  // namespace occam::cli
