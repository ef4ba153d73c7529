// Fuzzes the estimate path. The bytes choose a small valid model, a catalog
// cluster, a job and either a generated plan or a plan string taken from the
// remaining bytes (as `occam estimate --plan` would get it). Invariants:
// EstimateStep never crashes; errors are input errors or "infeasible";
// an estimate is finite and consistent (EstimateViolation: tokens/s x step
// time = tokens per step, MFU <= 1, HFU >= MFU, memory parts >= 0 and sum to
// the total); Evaluate and EvaluateQuick agree; results repeat exactly.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "fuzz/fdp_source.h"
#include "fuzz/fuzz_util.h"
#include "occam/step.h"
#include "step/random_specs_test_util.h"

namespace {

using occam::fuzz::Check;

void CheckEstimate(const occam::testing::RandomCase& c) {
  const occam::Result<occam::StepModel> model = occam::StepModel::Create(c.model, c.cluster, c.job);
  if (!model.ok()) {
    Check(model.status().code() != occam::StatusCode::kInternal, "StepModel::Create: internal");
    return;
  }
  const occam::Result<occam::Estimate> e = model->Evaluate(c.plan);
  if (!e.ok()) {
    Check(e.status().code() != occam::StatusCode::kInternal, "Evaluate: internal error");
    Check(!e.status().message().empty(), "Evaluate: empty error message");
    return;
  }
  const std::string violation = occam::testing::EstimateViolation(c, *e);
  if (!violation.empty())
    std::fprintf(stderr, "plan %s: %s\n", occam::FormatPlan(c.plan).c_str(), violation.c_str());
  Check(violation.empty(), "estimate invariant");
  const occam::QuickEstimate q = model->EvaluateQuick(c.plan);
  Check(q.step_time == e->step_time, "EvaluateQuick and Evaluate must agree on step time");
  Check(q.memory_total == e->memory.total(), "EvaluateQuick and Evaluate must agree on memory");
  Check(q.fits == e->fits, "EvaluateQuick and Evaluate must agree on fits");
  const occam::Result<occam::Estimate> again = model->Evaluate(c.plan);
  Check(again.ok() && again->step_time == e->step_time, "Evaluate must be deterministic");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider fdp(data, size);
  occam::fuzz::FdpSource source(fdp);
  const bool plan_from_text = fdp.ConsumeBool();
  std::optional<occam::testing::RandomCase> c;
  if (!plan_from_text) {
    c = occam::testing::DrawCase(source);
    if (!c) return 0;
  } else {
    occam::testing::RandomCase text_case;
    text_case.model = occam::testing::RandomModel(source);
    std::optional<occam::ClusterSpec> cluster = occam::testing::RandomCluster(source);
    if (!cluster) return 0;
    text_case.cluster = *std::move(cluster);
    text_case.job = occam::testing::RandomJob(source, occam::PlanSpec{});
    text_case.job.global_batch_seqs = occam::testing::PowerOfTwo(source, 0, 14);
    const occam::Result<occam::PlanSpec> plan =
        occam::ParsePlan(fdp.ConsumeRemainingBytesAsString());
    if (!plan.ok()) return 0;
    text_case.plan = *plan;
    const occam::Status valid =
        occam::ValidatePlan(text_case.model, text_case.cluster, text_case.job, text_case.plan);
    if (!valid.ok()) {
      Check(valid.code() == occam::StatusCode::kInvalidInput, "ValidatePlan: not InvalidInput");
      return 0;
    }
    c = std::move(text_case);
  }
  Check(occam::ValidateModel(c->model, "random").ok(), "generator: model must validate");
  CheckEstimate(*c);
  return 0;
}
