// occam validate [--runs FILE] [--json] [--verbose]: predictions against
// published measured runs (the bundled ones by default); --html writes the
// predicted-against-measured chart; --explain ID takes one run's prediction
// apart (its row and the estimate report of its layout and job); --fit
// prints the calibration fitted on the runs (data/calibration.yaml's source).
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/common.h"
#include "occam/report.h"
#include "occam/validate.h"

namespace occam::cli {
namespace {

struct ValidateFlags {
  std::string runs_file;
  bool json = false;
  std::string html;
  bool verbose = false;
  std::vector<std::string> overrides;
  std::string cv;
  std::vector<std::string> explain;
  bool fit = false;
};

// The runs named by --explain, each with its estimate report; with --cv
// source, under the calibration its fold refitted without its source.
Status Explain(const ValidateFlags& f, const std::vector<PublishedRun>& runs,
               const ValidateOptions& options, CommandOutput& output) {
  if (f.json || !f.html.empty() || f.fit) {
    return InvalidInput("--explain prints text; drop --json, --html and --fit");
  }
  const std::string where = f.runs_file.empty() ? "the bundled runs" : f.runs_file;
  std::vector<const PublishedRun*> named;
  for (const std::string& id : f.explain) {
    const PublishedRun* run = nullptr;
    for (const PublishedRun& r : runs) {
      if (r.id == id) run = &r;
    }
    if (run == nullptr) {
      return InvalidInput("--explain '" + id + "': no run with that id in " + where +
                          " (occam validate lists the ids)");
    }
    named.push_back(run);
  }
  std::optional<CrossValidationReport> cv;
  if (!f.cv.empty()) cv = CrossValidateBySource(runs, options);
  for (size_t i = 0; i < named.size(); ++i) {
    const PublishedRun& run = *named[i];
    ValidateOptions o = options;
    std::string calibration = "in-sample calibration";
    if (cv && run.measured.kind != MetricKind::kMemoryPerChipBytes) {
      const std::string source = SourceFamily(run.source);
      const auto fold = cv->fold_overrides.find(source);
      if (fold != cv->fold_overrides.end()) {
        o.overrides.insert(o.overrides.end(), fold->second.begin(), fold->second.end());
      }
      calibration = "out of sample: the calibration refitted without " + source;
    } else if (cv) {
      calibration =
          "in-sample calibration; a memory run's out-of-sample refit (the allocator overhead) is "
          "in the --cv table";
    }
    RunExplanation x = ExplainRun(run, o);
    x.calibration = calibration;
    if (i > 0) output.out += "\n";
    output.out += ExplainText(x);
  }
  return Status::Ok();
}

Status RunValidate(const ValidateFlags& f, CommandOutput& output) {
  std::vector<PublishedRun> runs;
  if (f.runs_file.empty()) {
    OCCAM_ASSIGN_OR_RETURN(runs, BundledRuns());
    // The bundled measured-memory runs are scored beside the throughput ones.
    OCCAM_ASSIGN_OR_RETURN(std::vector<PublishedRun> memory, BundledMemoryRuns());
    runs.insert(runs.end(), memory.begin(), memory.end());
  } else {
    OCCAM_ASSIGN_OR_RETURN(std::string text, ReadInputFile(f.runs_file));
    OCCAM_ASSIGN_OR_RETURN(runs, ParseRuns(text, f.runs_file));
  }
  ValidateOptions options;
  for (const std::string& text : f.overrides) {
    OCCAM_ASSIGN_OR_RETURN(CalibrationOverride o, ParseCalibrationOverride(text));
    options.overrides.push_back(o);
  }
  if (!f.explain.empty()) return Explain(f, runs, options, output);
  if (f.fit) {
    if (!f.cv.empty() || !f.html.empty()) {
      return InvalidInput("--fit prints the calibration fit alone; drop --cv and --html");
    }
    const FitReport fit = FitCalibration(runs, options);
    output.out += f.json ? ValidateFitJson(fit) : ValidateFitText(fit);
    return Status::Ok();
  }
  const ValidationReport report = ValidateRuns(runs, options);
  if (!f.html.empty()) {
    OCCAM_RETURN_IF_ERROR(
        WriteOutputFile(f.html, ValidateHtml(report, {output.command_line}), "--html"));
  }
  if (!f.cv.empty()) {
    const CrossValidationReport cv = CrossValidateBySource(runs, options);
    output.out += f.json ? ValidateCvJson(cv, report) : ValidateCvText(cv, report);
    return Status::Ok();
  }
  output.out += f.json ? ValidateJson(report) : ValidateText(report, f.verbose);
  return Status::Ok();
}

}  // namespace

void RegisterValidate(CLI::App& app, CommandOutput* output) {
  auto flags = std::make_shared<ValidateFlags>();
  auto* cmd = app.add_subcommand("validate",
                                 "predictions against published measured runs (doc/validation.md)");
  cmd->add_option("--runs", flags->runs_file,
                  "run file in the schema of data/runs/published.json (default: the bundled runs)");
  cmd->add_flag("--json", flags->json, "print one JSON object (doc/json-output.md)");
  cmd->add_option("--html", flags->html,
                  "also write an HTML report (predicted against measured, log-log) to this file");
  cmd->add_flag("--verbose", flags->verbose, "list the values filled in for unstated fields");
  cmd->add_option("--set", flags->overrides,
                  "calibration study: try a value instead of the catalog's, e.g. "
                  "h100.gemm_efficiency=0.72 or tpu-v5e.dcn.efficiency=0.6 (repeatable)");
  cmd->add_option("--cv", flags->cv,
                  "out of sample: 'source' refits the calibration without each source family "
                  "(leave-one-source-out) and predicts that family with it")
      ->check(CLI::IsMember({"source"}));
  cmd->add_flag("--fit", flags->fit,
                "fit the calibration on the runs (the procedure behind data/calibration.yaml's "
                "fitted values and every --cv fold) and print the fitted values");
  cmd->add_option("--explain", flags->explain,
                  "take one run's prediction apart: its row and the estimate report (time and "
                  "memory breakdown) of the layout and job it was predicted on (repeatable; with "
                  "--cv source, out of sample)");
  cmd->callback([flags, output] { output->Finish(RunValidate(*flags, *output)); });
}

}  // namespace occam::cli
