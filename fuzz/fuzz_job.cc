// Fuzzes job files (ParseJob). Invariants: errors are input errors naming
// the file; an accepted job validates, and a data-parallel estimate of a
// small model under it on an 8-chip catalog cluster is finite and consistent.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz/fuzz_util.h"
#include "occam/spec.h"
#include "occam/step.h"
#include "step/random_specs_test_util.h"

namespace {
using occam::fuzz::Check;
constexpr std::string_view kOrigin = "fuzz-job.yaml";
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const occam::Result<occam::JobSpec> job = occam::ParseJob(text, kOrigin);
  if (!job.ok()) {
    occam::fuzz::CheckInputError(job.status(), kOrigin);
    return 0;
  }
  Check(occam::ValidateJob(*job, kOrigin).ok(), "ParseJob output must validate");
  static const occam::Result<occam::ClusterSpec> kCluster = occam::CatalogCluster("h100", 8);
  static const occam::Result<occam::ModelSpec> kModel = [] {
    return occam::ParseModel(
        "model: {layers: 2, hidden: 256, vocab: 1024, ffn_hidden: 512, attention: {heads: 4},"
        " moe: {experts: 8, top_k: 2, expert_ffn: 128}}",
        "tiny.yaml");
  }();
  Check(kCluster.ok() && kModel.ok(), "the fixed cluster and model must load");
  occam::testing::RandomCase c{*kModel, *kCluster, *job, occam::PlanSpec{}};
  c.plan.dp = 8;
  c.plan.ep = 8;
  if (!occam::ValidatePlan(c.model, c.cluster, c.job, c.plan).ok()) return 0;
  const occam::Result<occam::Estimate> e = occam::EstimateStep(c.model, c.cluster, c.job, c.plan);
  if (!e.ok()) {
    Check(e.status().code() != occam::StatusCode::kInternal, "EstimateStep: internal error");
    return 0;
  }
  const std::string violation = occam::testing::EstimateViolation(c, *e);
  if (!violation.empty()) std::fprintf(stderr, "%s\n", violation.c_str());
  Check(violation.empty(), "estimate invariant");
  return 0;
}
