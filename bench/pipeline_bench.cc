// Speed of the pipeline simulator. Target: 1F1B with p = 64 stages and
// m = 1024 micro-batches (131k compute passes, 129k transfers) under 20 ms;
// a PipelineCache hit well under a microsecond.
#include <benchmark/benchmark.h>

#include "occam/simulate.h"

namespace occam {
namespace {

PipelineConfig Config(Schedule s, int64_t p, int64_t v, int64_t m, double p2p_ms = 0.5) {
  PipelineConfig c;
  c.schedule = s;
  c.stages = p;
  c.vpp = v;
  c.microbatches = m;
  ChunkCost k;
  k.forward = Milliseconds(10.0 / v);
  k.backward_input = Milliseconds(10.0 / v);
  k.backward_weight = Milliseconds(10.0 / v);
  k.activation = Bytes(1e9 / v);
  c.chunks = {k};
  c.p2p = Milliseconds(p2p_ms);
  return c;
}

void Run(benchmark::State& state, const PipelineConfig& c) {
  for (auto _ : state) {
    auto r = SimulatePipeline(c);
    benchmark::DoNotOptimize(r);
  }
}

// With p2p > 0 every hop is a transfer task on the send/recv streams
// (260k tasks); with p2p = 0 hand-overs are plain dependencies (131k).
void BM_1F1B_p64_m1024(benchmark::State& s) { Run(s, Config(Schedule::k1F1B, 64, 1, 1024)); }
void BM_1F1B_p64_m1024_NoP2P(benchmark::State& s) {
  Run(s, Config(Schedule::k1F1B, 64, 1, 1024, 0.0));
}
void BM_Interleaved_p16_v2_m64(benchmark::State& s) {
  Run(s, Config(Schedule::kInterleaved, 16, 2, 64));
}
void BM_DualPipe_p16_m64(benchmark::State& s) { Run(s, Config(Schedule::kDualPipe, 16, 1, 64)); }
void BM_ZbV_p16_m64(benchmark::State& s) { Run(s, Config(Schedule::kZbV, 16, 2, 64)); }

void BM_CacheHit_1F1B_p64_m1024(benchmark::State& state) {
  PipelineCache cache;
  PipelineConfig c = Config(Schedule::k1F1B, 64, 1, 1024);
  (void)cache.Get(c);
  for (auto _ : state) {
    c.chunks[0].forward = Milliseconds(10.0);  // same shape, same relative costs
    auto r = cache.Get(c);
    benchmark::DoNotOptimize(r);
  }
}

// The planner's lookup: a hit into a caller-owned summary (no allocation).
void BM_CacheHitInto_DeepSeekLike_S32(benchmark::State& state) {
  PipelineCache cache;
  PipelineConfig c = Config(Schedule::kZbV, 16, 2, 128);
  c.chunks.resize(32, c.chunks[0]);
  c.chunks[31].forward = Milliseconds(7.0);  // uneven end chunk
  PipelineSummary out;
  (void)cache.Get(c, out);
  for (auto _ : state) {
    auto st = cache.Get(c, out);
    benchmark::DoNotOptimize(st);
    benchmark::DoNotOptimize(out);
  }
}

BENCHMARK(BM_1F1B_p64_m1024)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_1F1B_p64_m1024_NoP2P)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Interleaved_p16_v2_m64)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DualPipe_p16_m64)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ZbV_p16_m64)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CacheHit_1F1B_p64_m1024)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_CacheHitInto_DeepSeekLike_S32)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace occam
