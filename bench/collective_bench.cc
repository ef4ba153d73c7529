// EstimateCollective speed: the planner calls it for every axis of every
// layout, so one call must stay well under a microsecond and allocate nothing.
#include <benchmark/benchmark.h>

#include <cstdlib>

#include "occam/collective.h"
#include "occam/spec.h"

namespace occam {
namespace {

ClusterSpec Catalog(const char* name, int64_t chips) {
  Result<ClusterSpec> c = CatalogCluster(name, chips);
  if (!c.ok()) std::abort();  // a broken catalog is a bug, not a benchmark result
  return *c;
}

void Run(benchmark::State& state, const ClusterSpec& cluster, CollectiveOp op, RankGroup group,
         const CollectiveOptions& options = {}) {
  double bytes = 1e6;
  for (auto _ : state) {
    const CollectiveCost c = EstimateCollective(cluster, op, Bytes(bytes), group, options);
    benchmark::DoNotOptimize(c);
    bytes = bytes < 1e10 ? bytes * 1.5 : 1e6;  // vary the size: no constant folding
  }
}

void BM_NvlinkNodeAllReduce(benchmark::State& state) {
  const ClusterSpec c = Catalog("h100", 2048);
  Run(state, c, CollectiveOp::kAllReduce, RankGroup{8, 1});
}
BENCHMARK(BM_NvlinkNodeAllReduce);

void BM_DataParallelAllReduceAcrossNodes(benchmark::State& state) {
  const ClusterSpec c = Catalog("h100", 2048);
  Run(state, c, CollectiveOp::kAllReduce, RankGroup{256, 8});
}
BENCHMARK(BM_DataParallelAllReduceAcrossNodes);

void BM_HierarchicalReduceScatter(benchmark::State& state) {
  const ClusterSpec c = Catalog("h100", 2048);
  Run(state, c, CollectiveOp::kReduceScatter, RankGroup{2048, 1});
}
BENCHMARK(BM_HierarchicalReduceScatter);

void BM_ExpertAllToAllNodeLimited(benchmark::State& state) {
  const ClusterSpec c = Catalog("h800", 2048);
  CollectiveOptions o;
  o.top_k = 8;
  o.max_units_per_token = 4;
  o.imbalance = 1.2;
  Run(state, c, CollectiveOp::kAllToAll, RankGroup{64, 1}, o);
}
BENCHMARK(BM_ExpertAllToAllNodeLimited);

void BM_TorusAllGatherThreeAxes(benchmark::State& state) {
  const ClusterSpec c = Catalog("tpu-v5p", 4096);
  Run(state, c, CollectiveOp::kAllGather, RankGroup{4096, 1});
}
BENCHMARK(BM_TorusAllGatherThreeAxes);

void BM_MultisliceAllReduce(benchmark::State& state) {
  const ClusterSpec c = Catalog("tpu-v5p", 12288);
  Run(state, c, CollectiveOp::kAllReduce, RankGroup{12288, 1});
}
BENCHMARK(BM_MultisliceAllReduce);

}  // namespace
}  // namespace occam
