// The commands of the occam shell. RunCommand parses one command line and
// runs it in-process, returning what it printed and its exit status; the
// `occam` executable prints that (RunCommandLine), the Python module
// (python/) returns it. Each subcommand registers itself on the CLI11 app;
// its callback appends to the CommandOutput and records its status.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "occam/status.h"

namespace occam::cli {

// What one command line produced.
struct CommandOutput {
  std::string command_line;  // "occam plan --model ...", shell-quoted (HTML reports state it)
  std::string out;           // standard output
  std::string err;           // standard error: warnings, notes, the error message
  int exit_code = 0;         // 0 ok, 2 bad input, 1 internal error
  // Records a command's outcome: on error, "occam: error: <message>" on
  // `err` and exit status 2 for input errors, 1 for internal ones.
  void Finish(const Status& status);
};

void RegisterList(CLI::App& app, CommandOutput* output);
void RegisterEstimate(CLI::App& app, CommandOutput* output);
void RegisterCollective(CLI::App& app, CommandOutput* output);
void RegisterSimulate(CLI::App& app, CommandOutput* output);
void RegisterBalance(CLI::App& app, CommandOutput* output);
void RegisterPlan(CLI::App& app, CommandOutput* output);  // plan and sweep
void RegisterValidate(CLI::App& app, CommandOutput* output);
void RegisterBudget(CLI::App& app, CommandOutput* output);

// Runs `occam <args...>` (args without the program name) in-process.
CommandOutput RunCommand(const std::vector<std::string>& args);

// Parses `argv`, runs the command, prints its output and returns the exit
// status. main() is this; the flags fuzzer calls it too.
int RunCommandLine(int argc, const char* const* argv);

}  // namespace occam::cli
