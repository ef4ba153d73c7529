// Speed of the MoE balance simulation: the 2000 steps of a 1M-token
// batch over 256 experts should take seconds; a planner's default-imbalance
// lookup is one short simulation per distinct query, then a cache hit.
#include <benchmark/benchmark.h>

#include "occam/simulate.h"

namespace occam {
namespace {

void BM_SimulateBalanceDeepSeekV3(benchmark::State& state) {
  BalanceConfig c;
  c.experts = 256;
  c.top_k = 8;
  c.groups = 8;
  c.topk_groups = 4;
  c.ep = 64;
  c.method = static_cast<BalanceMethod>(state.range(0));
  c.steps = 2000;
  c.tokens_per_step = 1 << 20;
  c.zipf_s = 1.2;
  for (auto _ : state) {
    auto r = SimulateBalance(c);
    benchmark::DoNotOptimize(r);
  }
  state.SetLabel(std::string(BalanceMethodName(c.method)));
}
BENCHMARK(BM_SimulateBalanceDeepSeekV3)
    ->Arg(static_cast<int>(BalanceMethod::kAuxFree))
    ->Arg(static_cast<int>(BalanceMethod::kAuxLoss))
    ->Unit(benchmark::kSecond)
    ->Iterations(1);

MoeImbalanceQuery V3Query() {
  MoeImbalanceQuery q;
  q.experts = 256;
  q.top_k = 8;
  q.groups = 8;
  q.topk_groups = 4;
  q.ep = 64;
  q.tokens_per_rank = 4096;
  return q;
}

void BM_DefaultMoeImbalanceMiss(benchmark::State& state) {
  const MoeImbalanceQuery q = V3Query();
  for (auto _ : state) benchmark::DoNotOptimize(DefaultMoeImbalance(q));
}
BENCHMARK(BM_DefaultMoeImbalanceMiss)->Unit(benchmark::kMillisecond);

void BM_DefaultMoeImbalanceCacheHit(benchmark::State& state) {
  MoeImbalanceCache cache;
  const MoeImbalanceQuery q = V3Query();
  (void)cache.Get(q);
  for (auto _ : state) benchmark::DoNotOptimize(cache.Get(q));
}
BENCHMARK(BM_DefaultMoeImbalanceCacheHit);

}  // namespace
}  // namespace occam
