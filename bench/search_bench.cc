// Planner speed targets (doc/search.md § Performance): a full search for
// DeepSeek-V3 on 2048 H800 and Kimi K2 on 16384 TPU v5p, single-layout
// EvaluateQuick throughput, and search time across cluster sizes.
#include <benchmark/benchmark.h>

#include <string>

#include "occam/search.h"
#include "occam/step.h"

namespace occam {
namespace {

struct Setup {
  ModelSpec model;
  ClusterSpec cluster;
  JobSpec job;
};

// 4096 sequences of 4096 tokens per step (16.8M tokens). The EP load
// imbalance is given (1.1) so that the routing simulation that derives it by
// default (benchmarked in balance_bench.cc) stays out of the planner's time.
Setup Make(const char* model, const char* cluster, int64_t chips) {
  Setup s{CatalogModel(model).value(), CatalogCluster(cluster, chips).value(), JobSpec{}};
  s.job.seq_len = 4096;
  s.job.global_batch_seqs = 4096;
  s.job.moe_imbalance = 1.1;
  return s;
}

void RunSearch(benchmark::State& state, const char* model, const char* cluster, int64_t chips,
               int threads) {
  const Setup s = Make(model, cluster, chips);
  SearchOptions o;
  o.threads = threads;
  int64_t evaluated = 0, candidates = 0;
  for (auto _ : state) {
    auto r = SearchLayouts(s.model, s.cluster, s.job, o);
    if (!r.ok()) {
      state.SkipWithError(r.status().message().c_str());
      return;
    }
    evaluated = r->layouts_evaluated;
    candidates = r->layouts_candidates;
    benchmark::DoNotOptimize(r->best);
  }
  state.counters["layouts_evaluated"] = static_cast<double>(evaluated);
  state.counters["layouts_candidates"] = static_cast<double>(candidates);
  state.counters["layouts_per_s"] = benchmark::Counter(
      static_cast<double>(evaluated), benchmark::Counter::kIsIterationInvariantRate);
}

void BM_SearchDeepSeekV3H800x2048(benchmark::State& state) {
  RunSearch(state, "deepseek-v3", "h800", 2048, static_cast<int>(state.range(0)));
}
BENCHMARK(BM_SearchDeepSeekV3H800x2048)
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_SearchKimiK2TpuV5px16384(benchmark::State& state) {
  RunSearch(state, "kimi-k2", "tpu-v5p", 16384, static_cast<int>(state.range(0)));
}
BENCHMARK(BM_SearchKimiK2TpuV5px16384)
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// Search time by cluster size (DeepSeek-V3 on H800, two threads).
void BM_SearchScaling(benchmark::State& state) {
  RunSearch(state, "deepseek-v3", "h800", state.range(0), 2);
}
BENCHMARK(BM_SearchScaling)
    ->Arg(1024)
    ->Arg(16384)
    ->Arg(131072)
    ->Arg(1048576)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// One layout evaluated again and again by `evaluate` (a StepModel method):
// arg 0 a 1F1B layout, arg 1 a DualPipeV one.
template <typename Evaluate>
void EvaluateLayout(benchmark::State& state, Evaluate evaluate) {
  const Setup s = Make("deepseek-v3", "h800", 2048);
  auto step = StepModel::Create(s.model, s.cluster, s.job);
  if (!step.ok()) {
    state.SkipWithError(step.status().message().c_str());
    return;
  }
  auto plan = ParsePlan(state.range(0) == 0
                            ? "tp=1,pp=16,dp=128,ep=64,zero=1,mbs=1,schedule=1f1b"
                            : "tp=1,pp=8,vpp=2,dp=256,ep=32,zero=1,mbs=2,schedule=dualpipev");
  for (auto _ : state) benchmark::DoNotOptimize(evaluate(*step, *plan));
  state.SetItemsProcessed(state.iterations());
}

// One layout: the planner's inner loop.
void BM_EvaluateQuick(benchmark::State& state) {
  EvaluateLayout(state, [](const StepModel& m, const PlanSpec& p) { return m.EvaluateQuick(p); });
}
BENCHMARK(BM_EvaluateQuick)->Arg(0)->Arg(1);

// The planner's ranking pass: the same layouts with the pipeline's closed forms.
void BM_EvaluateClosedForm(benchmark::State& state) {
  EvaluateLayout(state,
                 [](const StepModel& m, const PlanSpec& p) { return m.EvaluateClosedForm(p); });
}
BENCHMARK(BM_EvaluateClosedForm)->Arg(0)->Arg(1);

}  // namespace
}  // namespace occam
