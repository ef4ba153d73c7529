// Fuzzes cluster files (ParseCluster). Invariants: errors are input errors
// naming the file; an accepted cluster validates, every collective over the
// whole cluster costs a finite, non-negative time, and a pure data-parallel
// estimate of a small model on it is finite and consistent.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz/fuzz_util.h"
#include "occam/collective.h"
#include "occam/spec.h"
#include "occam/step.h"
#include "step/random_specs_test_util.h"

namespace {

using occam::fuzz::Check;
constexpr std::string_view kOrigin = "fuzz-cluster.yaml";

// A 2-layer dense model every cluster can hold a copy of.
occam::ModelSpec TinyModel() {
  occam::ModelSpec m;
  m.name = "tiny";
  m.num_layers = 2;
  m.hidden = 256;
  m.vocab = 1024;
  m.ffn_hidden = 512;
  m.attention.num_heads = 4;
  m.attention.num_kv_heads = 4;
  m.attention.head_dim = 64;
  return m;
}

void CheckCollectives(const occam::ClusterSpec& cluster) {
  constexpr occam::CollectiveOp kOps[] = {
      occam::CollectiveOp::kAllReduce, occam::CollectiveOp::kReduceScatter,
      occam::CollectiveOp::kAllGather, occam::CollectiveOp::kAllToAll,
      occam::CollectiveOp::kBroadcast, occam::CollectiveOp::kSendRecv};
  const occam::RankGroup group{cluster.num_chips, 1};
  for (occam::CollectiveOp op : kOps) {
    const occam::CollectiveCost c =
        occam::EstimateCollective(cluster, op, occam::Bytes(64e6), group);
    occam::fuzz::CheckFiniteNonNegative(c.time.value(), "collective time must be finite, >= 0");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const occam::Result<occam::ClusterSpec> cluster = occam::ParseCluster(text, kOrigin);
  if (!cluster.ok()) {
    occam::fuzz::CheckInputError(cluster.status(), kOrigin);
    return 0;
  }
  Check(occam::ValidateCluster(*cluster, kOrigin).ok(), "ParseCluster output must validate");
  CheckCollectives(*cluster);
  occam::testing::RandomCase c;
  c.model = TinyModel();
  c.cluster = *cluster;
  c.plan.dp = cluster->num_chips;
  c.job.seq_len = 256;
  c.job.global_batch_seqs = cluster->num_chips;
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
