// The whole command line as one function: RunCommand for main(), the flags
// fuzzer and the Python module.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/common.h"
#include "occam/report.h"

namespace occam::cli {
namespace {

// Shell-style quoting of one word, for the command line a report states.
std::string Quoted(const std::string& word) {
  constexpr const char* kPlain =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=.,/:+@%";
  if (!word.empty() && word.find_first_not_of(kPlain) == std::string::npos) return word;
  std::string q = "'";
  for (char c : word) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

void RegisterAll(CLI::App& app, CommandOutput* output) {
  RegisterList(app, output);
  RegisterEstimate(app, output);
  RegisterCollective(app, output);
  RegisterSimulate(app, output);
  RegisterBalance(app, output);
  RegisterPlan(app, output);
  RegisterValidate(app, output);
  RegisterBudget(app, output);
  RejectNonFiniteNumbers(app);
}

}  // namespace

void CommandOutput::Finish(const Status& status) {
  if (status.ok()) {
    exit_code = 0;
    return;
  }
  err += "occam: error: " + Shorten(status.message(), kMaxMessageChars) + "\n";
  exit_code = status.code() == StatusCode::kInternal ? 1 : 2;
}

CommandOutput RunCommand(const std::vector<std::string>& args) {
  CommandOutput output;
  output.command_line = "occam";
  for (const std::string& a : args) output.command_line += " " + Quoted(a);
  CLI::App app{"occam: plan and simulate LLM training on many accelerators"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "occam " + OccamVersion());
  RegisterAll(app, &output);
  std::vector<const char*> argv = {"occam"};
  for (const std::string& a : args) argv.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::CallForHelp&) {
    output.out = app.help();
    output.exit_code = 0;
  } catch (const CLI::CallForAllHelp&) {
    output.out = app.help("", CLI::AppFormatMode::All);
    output.exit_code = 0;
  } catch (const CLI::CallForVersion& e) {
    output.out = std::string(e.what()) + "\n";
    output.exit_code = 0;
  } catch (const CLI::ParseError& e) {
    output.err = "occam: error: " + Shorten(e.what(), kMaxMessageChars) +
                 " (see 'occam --help' or 'occam <command> --help')\n";
    output.exit_code = 2;
  }
  return output;
}

int RunCommandLine(int argc, const char* const* argv) {
  const std::vector<std::string> args(argv + std::min(argc, 1), argv + argc);
  const CommandOutput output = RunCommand(args);
  std::fputs(output.out.c_str(), stdout);
  std::fputs(output.err.c_str(), stderr);
  return output.exit_code;
}

}  // namespace occam::cli
