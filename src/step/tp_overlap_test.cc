// Tensor-parallel communication of a block: which collectives are exposed and
// which hide behind the backward GEMMs (Megatron-LM's
// LinearWithGradAccumulationAndAsyncCommunication; doc/cost-model.md §6).
// Expected values are built from the collective model directly.
#include <gtest/gtest.h>

#include <string>

#include "cost/test_models.h"
#include "occam/collective.h"
#include "occam/step.h"
#include "step/test_fixtures.h"

namespace occam {
namespace {

// One 8-GPU NVLink node (the shared H100 test cluster): every tp group lives
// on it. Large-message plateau from about a 2 MB ring step, as the catalog's
// NVLink tiers: the hidden collectives are then well shorter than the
// backward GEMMs.
ClusterSpec Node() {
  ClusterSpec c = testing::H100Cluster(8);
  c.tiers[0].half_bandwidth_bytes = Bytes(2e6);
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

// Zero-bubble schedules run the weight-gradient pass apart (doc/cost-model.md
// §6): the input gradient's all-reduce has no weight-gradient GEMM beside it
// and is exposed in B, so no tp collective hides. Under 1F1B the same layout
// hides it, one per linear pair of the stage's 16 blocks and micro-batch.
TEST(TpOverlap, ZeroBubbleSchedulesExposeTheInputGradientAllReduce) {
  const Bytes bytes(4096.0 * 4096.0 * 2.0);
  const double ar =
      EstimateCollective(Node(), CollectiveOp::kAllReduce, bytes, RankGroup{4, 1}).time.value();
  const TpTimes zb = TpItem("tp=4,pp=2,dp=1,zero=1,mbs=1,sp=false,schedule=zb-h1");
  const TpTimes one = TpItem("tp=4,pp=2,dp=1,zero=1,mbs=1,sp=false,schedule=1f1b");
  ASSERT_GT(zb.total, 0);
  EXPECT_NEAR(zb.exposed, zb.total, 1e-9 * zb.total);
  EXPECT_NEAR(one.total, zb.total, 1e-9 * zb.total);
  EXPECT_NEAR(one.total - one.exposed, kMicroBatches * (kLayers / 2) * 2 * ar, 1e-6 * one.total);
}

}  // namespace
}  // namespace occam
