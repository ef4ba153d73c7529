// `occam validate --explain ID`: one run's prediction taken apart — the row
// `occam validate --verbose` prints for it, then the estimate report (time
// and memory breakdown, bottleneck, assumptions) of the layout and job occam
// predicted it on, so a prediction can be checked term by term against the
// source's own profile.
#include <fmt/format.h>

#include <string>

#include "occam/report.h"

namespace occam {

std::string ExplainText(const RunExplanation& x) {
  const RunValidation& v = x.row;
  std::string out = fmt::format("run       {}\n", v.id);
  out += fmt::format("metric    {} ({})\n", MetricKindName(v.kind), v.metric);
  if (!v.predicted || !x.estimate) {
    out += fmt::format("skipped   {}\n", v.skipped_reason);
    return out;
  }
  if (v.kind == MetricKind::kMemoryPerChipBytes) {
    constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
    out += fmt::format("measured  {:.1f} GiB ({})\npredicted {:.1f} GiB ({:+.1f}%, {})\n",
                       v.measured / kGiB, v.memory_definition, *v.predicted / kGiB,
                       100.0 * *v.rel_error, x.calibration);
  } else {
    out += fmt::format("measured  {:.4g}\npredicted {:.4g} ({:+.1f}%, {})\n", v.measured,
                       *v.predicted, 100.0 * *v.rel_error, x.calibration);
  }
  if (v.kind != MetricKind::kMemoryPerChipBytes && v.measured > 0 && *v.predicted > 0) {
    // Step time and chip-hours grow with the step; the other metrics are
    // rates, inverse to it: the step the measurement implies on the same
    // batch, beside the predicted one whose breakdown follows.
    const bool grows =
        v.kind == MetricKind::kStepTimeS || v.kind == MetricKind::kChipHoursPerTrillionTokens;
    const double ratio = grows ? v.measured / *v.predicted : *v.predicted / v.measured;
    out += fmt::format("step      predicted {:.4g} s; the measured value implies {:.4g} s\n",
                       v.predicted_step_time_s, v.predicted_step_time_s * ratio);
  }
  out += fmt::format("layout    {}\n", v.plan);
  for (const auto& [field, how] : v.filled) out += fmt::format("filled    {}: {}\n", field, how);
  out += "\n";
  out += EstimateText(*x.estimate, x.model, x.cluster, x.job);
  return out;
}

}  // namespace occam
