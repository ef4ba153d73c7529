// Speed of one layout's evaluation: the planner calls EvaluateQuick for
// every candidate layout, so it must stay at about a microsecond.
#include <benchmark/benchmark.h>

#include "occam/spec.h"
#include "occam/step.h"

namespace {

struct Fixture {
  occam::StepModel model;
  occam::PlanSpec plan;
};

Fixture DeepSeekOnH800(const char* plan_text) {
  occam::JobSpec job;
  job.seq_len = 4096;
  job.global_batch_seqs = 15360;
  auto model = occam::CatalogModel("deepseek-v3");
  auto cluster = occam::CatalogCluster("h800", 2048);
  auto sm = occam::StepModel::Create(*model, *cluster, job);
  auto plan = occam::ParsePlan(plan_text);
  return Fixture{std::move(sm).value(), *plan};
}

void BM_EvaluateQuickDeepSeekV3(benchmark::State& state) {
  Fixture f = DeepSeekOnH800("tp=1,pp=16,ep=64,dp=128,zero=1,mbs=1,schedule=1f1b");
  f.model.EvaluateQuick(f.plan);  // warm the MoE imbalance cache
  for (auto _ : state) benchmark::DoNotOptimize(f.model.EvaluateQuick(f.plan));
}
BENCHMARK(BM_EvaluateQuickDeepSeekV3);

void BM_EvaluateQuickNoPp(benchmark::State& state) {
  Fixture f = DeepSeekOnH800("tp=8,ep=64,dp=256,zero=3,mbs=1,recompute=full");
  f.model.EvaluateQuick(f.plan);
  for (auto _ : state) benchmark::DoNotOptimize(f.model.EvaluateQuick(f.plan));
}
BENCHMARK(BM_EvaluateQuickNoPp);

// The planner's per-(shape, mbs, recompute) lower bounds (compute time and
// held activations, no collectives).
void BM_LowerBounds(benchmark::State& state) {
  Fixture f = DeepSeekOnH800("tp=1,pp=16,ep=64,dp=128,zero=1,mbs=1,schedule=1f1b");
  f.model.EvaluateQuick(f.plan);
  for (auto _ : state) benchmark::DoNotOptimize(f.model.LowerBoundsFor(f.plan));
}
BENCHMARK(BM_LowerBounds);

void BM_EvaluateFull(benchmark::State& state) {
  Fixture f = DeepSeekOnH800("tp=1,pp=16,ep=64,dp=128,zero=1,mbs=1,schedule=1f1b");
  for (auto _ : state) benchmark::DoNotOptimize(f.model.Evaluate(f.plan));
}
BENCHMARK(BM_EvaluateFull);

}  // namespace
