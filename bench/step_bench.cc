// Speed of one layout's evaluation: the planner calls EvaluateQuick for
// every candidate layout, so it must stay at about a microsecond.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

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

// The planner's ranking pass over many distinct valid layouts in turn (tp,
// pp, ep, mbs, ZeRO stage, schedule), so that no per-layout result repeats
// back to back: the per-StepModel group layouts are shared, the per-layout
// work is not.
void BM_EvaluateClosedFormMixed(benchmark::State& state) {
  Fixture f = DeepSeekOnH800("tp=1,pp=16,ep=64,dp=128,zero=1,mbs=1,schedule=1f1b");
  std::vector<occam::PlanSpec> plans;
  for (int tp : {1, 2, 4, 8}) {
    for (int pp : {1, 2, 4, 8, 16}) {
      for (int ep : {8, 32, 64}) {
        for (int zero : {0, 1, 3}) {
          for (const char* sched : {"1f1b", "dualpipev", "interleaved"}) {
            if (pp == 1 && std::string(sched) != "1f1b") continue;
            const int dp = 2048 / (tp * pp);
            std::string text = "tp=" + std::to_string(tp) + ",pp=" + std::to_string(pp) +
                               ",ep=" + std::to_string(ep) + ",dp=" + std::to_string(dp) +
                               ",zero=" + std::to_string(zero) + ",mbs=1";
            if (pp > 1) {
              text += std::string(",schedule=") + sched;
              if (std::string(sched) != "1f1b") text += ",vpp=2";
            }
            auto plan = occam::ParsePlan(text);
            if (plan.ok() && f.model.Evaluate(*plan).ok()) plans.push_back(*plan);
          }
        }
      }
    }
  }
  if (plans.empty()) {
    state.SkipWithError("no valid layout");
    return;
  }
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(f.model.EvaluateClosedForm(plans[i]));
    i = i + 1 == plans.size() ? 0 : i + 1;
  }
  state.counters["layouts"] = static_cast<double>(plans.size());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EvaluateClosedFormMixed);

}  // namespace
