// occam validate [--runs FILE] [--json] [--verbose]: predictions against
// published measured runs (the bundled ones by default).
#include <cstdio>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "cli/common.h"
#include "occam/report.h"
#include "occam/validate.h"

namespace occam::cli {
namespace {

struct ValidateFlags {
  std::string runs_file;
  bool json = false;
  bool verbose = false;
  std::vector<std::string> overrides;
  std::string cv;
};

int RunValidate(const ValidateFlags& f) {
  Result<std::vector<PublishedRun>> runs = BundledRuns();
  if (runs.ok() && f.runs_file.empty()) {
    // The bundled measured-memory runs are scored beside the throughput ones.
    Result<std::vector<PublishedRun>> memory = BundledMemoryRuns();
    if (!memory.ok()) return Fail(memory.status());
    runs->insert(runs->end(), memory->begin(), memory->end());
  }
  if (!f.runs_file.empty()) {
    Result<std::string> text = ReadInputFile(f.runs_file);
    if (!text.ok()) return Fail(text.status());
    runs = ParseRuns(*text, f.runs_file);
  }
  if (!runs.ok()) return Fail(runs.status());
  ValidateOptions options;
  for (const std::string& text : f.overrides) {
    Result<CalibrationOverride> o = ParseCalibrationOverride(text);
    if (!o.ok()) return Fail(o.status());
    options.overrides.push_back(*o);
  }
  const ValidationReport report = ValidateRuns(*runs, options);
  if (!f.cv.empty()) {
    const CrossValidationReport cv = CrossValidateBySource(*runs, options);
    const std::string text = f.json ? ValidateCvJson(cv, report) : ValidateCvText(cv, report);
    std::fputs(text.c_str(), stdout);
    return 0;
  }
  const std::string out = f.json ? ValidateJson(report) : ValidateText(report, f.verbose);
  std::fputs(out.c_str(), stdout);
  return 0;
}

}  // namespace

void RegisterValidate(CLI::App& app, int* exit_code) {
  auto flags = std::make_shared<ValidateFlags>();
  auto* cmd = app.add_subcommand("validate",
                                 "predictions against published measured runs (doc/validation.md)");
  cmd->add_option("--runs", flags->runs_file,
                  "run file in the schema of data/runs/published.json (default: the bundled runs)");
  cmd->add_flag("--json", flags->json, "print one JSON object (doc/json-output.md)");
  cmd->add_flag("--verbose", flags->verbose, "list the values filled in for unstated fields");
  cmd->add_option("--set", flags->overrides,
                  "calibration study: try a value instead of the catalog's, e.g. "
                  "h100.gemm_efficiency=0.72 or tpu-v5e.dcn.efficiency=0.6 (repeatable)");
  cmd->add_option("--cv", flags->cv,
                  "out of sample: 'source' refits the calibration without each source family "
                  "(leave-one-source-out) and predicts that family with it")
      ->check(CLI::IsMember({"source"}));
  cmd->callback([flags, exit_code] { *exit_code = RunValidate(*flags); });
}

}  // namespace occam::cli
