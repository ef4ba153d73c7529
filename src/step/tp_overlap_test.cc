// Tensor-parallel communication of a block: which collectives are exposed and
// which hide behind the backward GEMMs (Megatron-LM's
// LinearWithGradAccumulationAndAsyncCommunication; doc/cost-model.md §6).
// Expected values are built from the collective model directly.
#include <gtest/gtest.h>

#include <string>

#include "cost/test_models.h"
#include "occam/collective.h"
#include "occam/step.h"

namespace occam {
namespace {

// One 8-GPU NVLink node: every tp group lives on it.
ClusterSpec Node() {
  ClusterSpec c;
  c.name = "node-test";
  c.chip.key = "h100";
  c.chip.peak_bf16 = TFlops(989.4);
  c.chip.peak_fp8 = TFlops(1978.9);
  c.chip.hbm = GB(80);
  c.chip.hbm_bandwidth = GBps(3350);
  c.num_chips = 8;
  TierSpec nvlink;
  nvlink.name = "nvlink";
  nvlink.kind = TierKind::kSwitch;
  nvlink.size = 8;
  nvlink.bandwidth = GBps(450);
  nvlink.latency = Microseconds(3);
  // Large-message plateau from about a 2 MB ring step, as the catalog's NVLink
  // tiers: the hidden collectives are then well shorter than the backward GEMMs.
  nvlink.half_bandwidth_bytes = Bytes(2e6);
  c.tiers = {nvlink};
  return c;
}

struct TpTimes {
  double total = 0, exposed = 0;
};

TpTimes TpItem(const std::string& plan_text) {
  const ModelSpec model = testing::Llama8B();
  JobSpec job;
  job.seq_len = 4096;
  job.global_batch_seqs = 8;
  auto plan = ParsePlan(plan_text);
  EXPECT_TRUE(plan.ok());
  auto e = EstimateStep(model, Node(), job, *plan);
  EXPECT_TRUE(e.ok()) << e.status().message();
  TpTimes t;
  for (const TimeItem& i : e->breakdown) {
    if (i.axis == "tp") {
      t.total += i.total.value();
      t.exposed += i.exposed.value();
    }
  }
  return t;
}

double Seconds(CollectiveOp op) {
  // One micro-batch's activations: 4096 tokens x hidden 4096 x 2 bytes.
  const Bytes bytes(4096.0 * 4096.0 * 2.0);
  return EstimateCollective(Node(), op, bytes, RankGroup{8, 1}).time.value();
}

constexpr double kLayers = 32, kMicroBatches = 8;

TEST(TpOverlap, SequenceParallelHidesTheBackwardReduceScatterAndRegather) {
  const double ag = Seconds(CollectiveOp::kAllGather);
  const double rs = Seconds(CollectiveOp::kReduceScatter);
  // Per block, two linear pairs. Forward AG + RS and backward AG (row-parallel
  // output gradient) exposed; backward RS (input gradient) and AG (re-gather
  // for the weight gradient) hidden behind the backward GEMMs. Embedding and
  // head: one exposed AG + RS each over the step's passes.
  const double exposed = kLayers * 2 * (ag + rs + ag) + 2 * (ag + rs);
  const double total = kLayers * 2 * (ag + rs + ag + rs + ag) + 2 * (ag + rs);
  const TpTimes t = TpItem("tp=8,dp=1,zero=1,mbs=1,sp=true");
  EXPECT_NEAR(t.exposed, kMicroBatches * exposed, 1e-6 * t.exposed);
  EXPECT_NEAR(t.total, kMicroBatches * total, 1e-6 * t.total);
}

TEST(TpOverlap, WithoutSequenceParallelTheBackwardAllReduceHides) {
  const double ar = Seconds(CollectiveOp::kAllReduce);
  // Forward: one all-reduce per pair, exposed; backward: the column-parallel
  // input gradient's all-reduce, hidden; embedding and head: one each.
  const double exposed = kLayers * 2 * ar + 2 * ar;
  const double total = kLayers * 2 * 2 * ar + 2 * ar;
  const TpTimes t = TpItem("tp=8,dp=1,zero=1,mbs=1,sp=false");
  EXPECT_NEAR(t.exposed, kMicroBatches * exposed, 1e-6 * t.exposed);
  EXPECT_NEAR(t.total, kMicroBatches * total, 1e-6 * t.total);
}

TEST(TpOverlap, FullRecomputeRepeatsTheForwardCommunicationExposed) {
  const double ar = Seconds(CollectiveOp::kAllReduce);
  // Embedding and head repeat their forward all-reduce too: 1.5 each.
  const double exposed = kLayers * 2 * (ar + ar) + 2 * 1.5 * ar;
  const TpTimes t = TpItem("tp=8,dp=1,zero=1,mbs=1,sp=false,recompute=full");
  EXPECT_NEAR(t.exposed, kMicroBatches * exposed, 1e-6 * t.exposed);
}

}  // namespace
}  // namespace occam
