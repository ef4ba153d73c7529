// The step's collective caches return exactly what a direct call returns,
// whatever the order of the calls and from two threads at once; the
// StepModel's results do not depend on what it evaluated before.
#include "step/comm.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "occam/spec.h"
#include "occam/step.h"

namespace occam::step_internal {
namespace {

// An HGX-like cluster: 8-chip NVLink switch nodes over a fat tree.
ClusterSpec TwoTier(int64_t chips) {
  ClusterSpec c;
  c.name = "two-tier";
  c.num_chips = chips;
  TierSpec node;
  node.name = "node";
  node.kind = TierKind::kSwitch;
  node.size = 8;
  node.bandwidth = GBps(450);
  node.latency = Microseconds(3);
  node.efficiency = 0.8;
  node.half_bandwidth_bytes = Bytes(1 << 20);
  TierSpec net = node;
  net.name = "net";
  net.kind = TierKind::kFatTree;
  net.size = chips;
  net.bandwidth = GBps(50);
  net.latency = Microseconds(10);
  c.tiers = {node, net};
  return c;
}

struct Call {
  CollectiveOp op;
  Bytes bytes;
  RankGroup group;
  CollectiveOptions options;
};

std::vector<Call> Calls() {
  CollectiveOptions expert;
  expert.top_k = 8;
  expert.max_units_per_token = 4;
  expert.imbalance = 1.3;
  std::vector<Call> calls;
  for (CollectiveOp op : {CollectiveOp::kAllReduce, CollectiveOp::kReduceScatter,
                          CollectiveOp::kAllGather, CollectiveOp::kAllToAll}) {
    for (RankGroup g : {RankGroup{8, 1}, RankGroup{2, 8}, RankGroup{64, 2}, RankGroup{16, 4}}) {
      for (double bytes : {1e3, 3e6, 3e6 + 1, 7e8}) {
        calls.push_back({op, Bytes(bytes), g, {}});
        if (op == CollectiveOp::kAllToAll) calls.push_back({op, Bytes(bytes), g, expert});
      }
    }
  }
  return calls;
}

void ExpectSame(const CommCost& a, const CommCost& b) {
  EXPECT_EQ(a.time, b.time);
  EXPECT_EQ(a.tier, b.tier);
}

void ExpectSame(const CommLoad& a, const CommLoad& b) {
  EXPECT_EQ(a.time, b.time);
  EXPECT_EQ(a.tier, b.tier);
  EXPECT_EQ(a.busy, b.busy);
}

// Two calls issued together (the dense and the expert gradient reductions):
// on different tiers they run side by side, on one tier its links carry
// both, one after the other.
TEST(TogetherTime, SideBySideOnDifferentLinksOneAfterTheOtherOnTheSame) {
  CommLoad inside{Seconds(1.0), 0}, across{Seconds(2.0), 1}, across_too{Seconds(1.5), 1};
  inside.busy[0] = Seconds(0.9);
  across.busy[1] = Seconds(1.8);
  across.busy[0] = Seconds(0.2);  // a ring across nodes also crosses the node switch
  across_too.busy[1] = Seconds(1.4);
  EXPECT_DOUBLE_EQ(TogetherTime(inside, across).value(), 2.0);      // max(1, 2, 0.9 + 0.2)
  EXPECT_DOUBLE_EQ(TogetherTime(across, across_too).value(), 3.2);  // 1.8 + 1.4 on tier 1
  EXPECT_DOUBLE_EQ(TogetherTime(across, CommLoad{}).value(), 2.0);
  // Real calls: a data-parallel reduce-scatter inside the nodes and an
  // expert-data-parallel one across them take no longer together than the
  // slower alone would with the other's busy time added on its tier.
  const ClusterSpec cluster = TwoTier(1024);
  const CommLoad a =
      CollectiveLoad(cluster, CollectiveOp::kReduceScatter, Bytes(4e9), RankGroup{8, 1});
  const CommLoad b =
      CollectiveLoad(cluster, CollectiveOp::kReduceScatter, Bytes(4e9), RankGroup{64, 8});
  const Seconds both = TogetherTime(a, b);
  EXPECT_GE(both, Max(a.time, b.time));
  EXPECT_LT(both, a.time + b.time);
  const CommLoad b2 =
      CollectiveLoad(cluster, CollectiveOp::kReduceScatter, Bytes(4e9), RankGroup{64, 16});
  EXPECT_GT(TogetherTime(b, b2), 1.5 * Max(b.time, b2.time));  // both bound by the NICs
}

// Behind a window whose links also carry the window's own traffic (an
// expert all-to-all over the same NICs), the reductions get only what that
// traffic leaves; traffic on links they do not cross takes nothing away.
TEST(ExcessOver, OnlyTrafficOnTheSameLinksShrinksTheWindow) {
  CommLoad across{Seconds(2.0), 1};
  across.busy[1] = Seconds(1.8);
  const Seconds window(3.0);
  TierSeconds other{};
  EXPECT_DOUBLE_EQ(ExcessOver(across, CommLoad{}, window, other).value(), 0.0);
  other[0] = Seconds(5.0);  // NVLink traffic: the NICs are free
  EXPECT_DOUBLE_EQ(ExcessOver(across, CommLoad{}, window, other).value(), 0.0);
  other[1] = Seconds(1.5);  // an all-to-all over the NICs: 1.8 + 1.5 - 3
  EXPECT_NEAR(ExcessOver(across, CommLoad{}, window, other).value(), 0.3, 1e-12);
  other[1] = Seconds(10.0);  // never past the pair's own time after the window
  EXPECT_DOUBLE_EQ(ExcessOver(across, CommLoad{}, window, other).value(), 2.0);
  // Without other traffic it is the pair's time past the window.
  CommLoad too = across;
  EXPECT_NEAR(ExcessOver(across, too, window, TierSeconds{}).value(),
              (TogetherTime(across, too) - window).value(), 1e-12);
}

TEST(CollectiveCache, HitsAndMissesEqualDirectCalls) {
  const ClusterSpec cluster = TwoTier(1024);
  auto groups = std::make_unique<GroupCache>();
  auto costs = std::make_unique<CollectiveCache>();
  const std::vector<Call> calls = Calls();
  for (int pass = 0; pass < 2; ++pass) {  // misses, then hits
    for (const Call& c : calls) {
      const CommCost want = Collective(cluster, c.op, c.bytes, c.group, c.options);
      ExpectSame(costs->Get(cluster, *groups, c.op, c.bytes, c.group, c.options), want);
      PreparedGroup scratch;
      ExpectSame(
          Collective(cluster, c.op, c.bytes, groups->Get(cluster, c.group, scratch), c.options),
          want);
      // The loads' table, and the load's time and tier are the cost's.
      const CommLoad load = CollectiveLoad(cluster, c.op, c.bytes, c.group, c.options);
      ExpectSame(costs->GetLoad(cluster, *groups, c.op, c.bytes, c.group, c.options), load);
      EXPECT_EQ(load.time, want.time);
      EXPECT_EQ(load.tier, want.tier);
    }
  }
  // The uniform and the expert all-to-all of one size are different keys.
  const Call& last = calls.back();
  ASSERT_EQ(last.op, CollectiveOp::kAllToAll);
  EXPECT_NE(costs->Get(cluster, *groups, last.op, last.bytes, last.group, {}).time,
            costs->Get(cluster, *groups, last.op, last.bytes, last.group, last.options).time);
}

TEST(CollectiveCache, TwoThreadsSeeDirectResults) {
  const ClusterSpec cluster = TwoTier(1024);
  auto groups = std::make_unique<GroupCache>();
  auto costs = std::make_unique<CollectiveCache>();
  const std::vector<Call> calls = Calls();
  std::vector<CommCost> want;
  for (const Call& c : calls)
    want.push_back(Collective(cluster, c.op, c.bytes, c.group, c.options));
  auto run = [&](bool reverse, std::vector<CommCost>* got) {
    for (int pass = 0; pass < 20; ++pass) {
      for (size_t k = 0; k < calls.size(); ++k) {
        const size_t i = reverse ? calls.size() - 1 - k : k;
        const Call& c = calls[i];
        (*got)[i] = costs->Get(cluster, *groups, c.op, c.bytes, c.group, c.options);
      }
    }
  };
  std::vector<CommCost> a(calls.size()), b(calls.size());
  std::thread t1(run, false, &a), t2(run, true, &b);
  t1.join();
  t2.join();
  for (size_t i = 0; i < calls.size(); ++i) {
    ExpectSame(a[i], want[i]);
    ExpectSame(b[i], want[i]);
  }
}

// One StepModel evaluating layouts forwards, one backwards, one fresh model
// per layout: the per-model caches must not change any number.
TEST(CollectiveCache, StepResultsIndependentOfEvaluationOrder) {
  JobSpec job;
  job.seq_len = 4096;
  job.global_batch_seqs = 4096;
  job.moe_imbalance = 1.1;
  const ModelSpec model = CatalogModel("deepseek-v3").value();
  const ClusterSpec cluster = CatalogCluster("h800", 2048).value();
  std::vector<PlanSpec> plans;
  for (const char* text :
       {"tp=1,pp=16,ep=64,dp=128,zero=1,mbs=1,schedule=1f1b",
        "tp=1,pp=8,vpp=2,dp=256,ep=32,zero=1,mbs=1,schedule=dualpipev",
        "tp=8,ep=64,dp=256,zero=3,mbs=1,recompute=full",
        "tp=4,cp=2,pp=8,vpp=4,ep=16,dp=32,zero=2,mbs=1,schedule=interleaved,a2a_overlap=true",
        "tp=2,pp=16,ep=32,dp=64,zero=1,mbs=2,schedule=dualpipe",
        "tp=1,pp=16,ep=64,dp=128,zero=1,mbs=2,schedule=1f1b"}) {
    plans.push_back(ParsePlan(text).value());
  }
  StepModel forward = StepModel::Create(model, cluster, job).value();
  StepModel backward = StepModel::Create(model, cluster, job).value();
  std::vector<QuickEstimate> f(plans.size()), b(plans.size());
  for (size_t i = 0; i < plans.size(); ++i) f[i] = forward.EvaluateClosedForm(plans[i]);
  for (size_t k = plans.size(); k-- > 0;) b[k] = backward.EvaluateClosedForm(plans[k]);
  for (size_t i = 0; i < plans.size(); ++i) {
    const QuickEstimate fresh =
        StepModel::Create(model, cluster, job).value().EvaluateClosedForm(plans[i]);
    for (const QuickEstimate* q : {&f[i], &b[i]}) {
      EXPECT_EQ(q->step_time.value(), fresh.step_time.value()) << i;
      EXPECT_EQ(q->mfu, fresh.mfu) << i;
      EXPECT_EQ(q->memory_total.value(), fresh.memory_total.value()) << i;
      EXPECT_EQ(q->fits, fresh.fits) << i;
    }
    EXPECT_GT(fresh.step_time.value(), 0) << i;
  }
}

}  // namespace
}  // namespace occam::step_internal
