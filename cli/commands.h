// Each subcommand registers itself on the CLI11 app. The callback stores the
// command's exit status in *exit_code (0 ok, 2 bad input, 1 internal error).
#pragma once

#include <CLI/CLI.hpp>

namespace occam::cli {

void RegisterList(CLI::App& app, int* exit_code);
void RegisterEstimate(CLI::App& app, int* exit_code);
void RegisterCollective(CLI::App& app, int* exit_code);
void RegisterSimulate(CLI::App& app, int* exit_code);
void RegisterBalance(CLI::App& app, int* exit_code);
void RegisterPlan(CLI::App& app, int* exit_code);  // plan and sweep
void RegisterValidate(CLI::App& app, int* exit_code);
void RegisterBudget(CLI::App& app, int* exit_code);

// Parses `argv` and runs the command; returns the exit status. main() is
// this; the flags fuzzer calls it too.
int RunCommandLine(int argc, const char* const* argv);

}  // namespace occam::cli
