// SimulatePipeline against closed forms (uniform stage times, p2p = 0) and
// published formulas. Sources: doc/cost-model.md section 7.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include "occam/simulate.h"

namespace occam {
namespace {

constexpr double kTol = 1e-9;

// Chunk times in units of 1: F, B (input part), W; activation 1 byte per
// chunk unless given.
PipelineConfig Uniform(Schedule s, int64_t p, int64_t v, int64_t m, double f, double b, double w,
                       double act = 1) {
  PipelineConfig c;
  c.schedule = s;
  c.stages = p;
  c.vpp = v;
  c.microbatches = m;
  ChunkCost k;
  k.forward = Seconds(f);
  k.backward_input = Seconds(b);
  k.backward_weight = Seconds(w);
  k.activation = Bytes(act);
  c.chunks = {k};
  return c;
}

PipelineResult Sim(const PipelineConfig& c) {
  auto r = SimulatePipeline(c);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? *r : PipelineResult{};
}

// GPipe and 1F1B: makespan (m + p - 1)(F + B), bubble (p - 1)/(m + p - 1)
// of the makespan (Huang et al. arXiv:1811.06965; Narayanan et al.
// arXiv:2104.04473 §2.2).
TEST(Pipeline, GpipeAnd1F1BBubbleMatchesClosedForm) {
  for (Schedule s : {Schedule::kGpipe, Schedule::k1F1B}) {
    for (auto [p, m] : {std::pair{4, 8}, {8, 32}, {3, 1}, {6, 5}}) {
      SCOPED_TRACE(std::string(ScheduleName(s)) + " p=" + std::to_string(p));
      const double f = 1.0, b = 1.5, w = 0.5;  // full backward 2
      const PipelineResult r = Sim(Uniform(s, p, 1, m, f, b, w));
      EXPECT_NEAR(r.makespan.value(), (m + p - 1) * (f + b + w), kTol);
      EXPECT_NEAR(r.bubble_fraction, double(p - 1) / (m + p - 1), kTol);
      EXPECT_EQ(r.parameter_copies, 1);
    }
  }
}

// Peak in-flight micro-batches: m on every stage for GPipe; p - s on stage
// s for 1F1B (arXiv:2104.04473 §2.2).
TEST(Pipeline, PeakInflightGpipeIsMAnd1F1BIsPMinusStage) {
  const int64_t p = 4, m = 12;
  const PipelineResult g = Sim(Uniform(Schedule::kGpipe, p, 1, m, 1, 1, 1));
  const PipelineResult o = Sim(Uniform(Schedule::k1F1B, p, 1, m, 1, 1, 1));
  for (int64_t s = 0; s < p; ++s) {
    EXPECT_EQ(g.peak_inflight_microbatches[s], m);
    EXPECT_EQ(o.peak_inflight_microbatches[s], p - s);
    EXPECT_NEAR(o.peak_activation[s].value(), double(p - s), kTol);
  }
}

// Interleaved 1F1B with v chunks of 1/v of a stage: makespan
// m(F+B) + (p-1)(F+B)/v, i.e. bubble (p-1)/(v m + p - 1) of the makespan
// (arXiv:2104.04473 §2.2.2); first-device activation p + (p-1)/v stages'
// worth (Korthikanti et al. arXiv:2205.05198 §4.2.3).
TEST(Pipeline, InterleavedBubbleAndMemoryMatchClosedForm) {
  for (auto [p, v, m] : {std::tuple{4, 2, 8}, {4, 4, 16}, {8, 2, 16}, {3, 3, 9}}) {
    SCOPED_TRACE("p=" + std::to_string(p) + " v=" + std::to_string(v));
    const double f = 1.0 / v, bfull = 2.0 / v;
    const PipelineResult r =
        Sim(Uniform(Schedule::kInterleaved, p, v, m, f, bfull / 2, bfull / 2, 1.0 / v));
    EXPECT_NEAR(r.makespan.value(), m * 3.0 + (p - 1) * 3.0 / v, kTol);
    EXPECT_NEAR(r.bubble_fraction, double(p - 1) / (v * m + p - 1), kTol);
    EXPECT_NEAR(r.peak_activation[0].value(), p + double(p - 1) / v, kTol);
    EXPECT_EQ(r.peak_inflight_chunks[0], (v + 1) * p - 1);
  }
}

// ZB-H1: bubble (p-1)(F + B - W) with B the input-gradient part (Qi et al.
// arXiv:2401.10241 §3.1), with 1F1B's peak of p micro-batches.
TEST(Pipeline, ZbH1MatchesPublishedBubbleAndKeeps1F1BMemory) {
  for (auto [p, m] : {std::pair{4, 8}, {4, 16}, {8, 24}}) {
    SCOPED_TRACE("p=" + std::to_string(p));
    const double f = 1, b = 1, w = 1;  // T_F = T_B = T_W, the paper's setting
    const PipelineResult r = Sim(Uniform(Schedule::kZbH1, p, 1, m, f, b, w));
    EXPECT_NEAR(r.makespan.value(), m * (f + b + w) + (p - 1) * (f + b - w), kTol);
    for (int64_t s = 0; s < p; ++s) EXPECT_LE(r.peak_inflight_microbatches[s], p);
    EXPECT_EQ(r.peak_inflight_microbatches[0], p);
  }
}

}  // namespace
}  // namespace occam

namespace occam {
namespace {

Seconds MaxIdle(const PipelineResult& r) {
  Seconds worst;
  for (Seconds b : r.busy) worst = Max(worst, r.makespan - b);
  return worst;
}

PipelineConfig WithComm(PipelineConfig c, double fc, double bc) {
  c.chunks[0].forward_comm = Seconds(fc);
  c.chunks[0].backward_comm = Seconds(bc);
  return c;
}

// DualPipe (PP = p devices) and DualPipeV (PP = 2p chunks on p devices):
// bubble (PP/2 - 1)(F&B + B - 3W), B the full backward, F&B an overlapped
// pair (deepseek-ai/DualPipe README table). The README's figure draws F and
// the input-gradient B as equal cells; with T_F = T_B(input) the simulator's
// worst device idles exactly this long, for any W and any overlap.
TEST(Pipeline, DualPipeFamilyMatchesPublishedBubble) {
  struct Case {
    double w, fc, bc;
  };
  for (const Case k : {Case{1, 0, 0}, Case{0.2, 0, 0}, Case{1, 0.3, 0.6}, Case{0.5, 0.5, 0.5}}) {
    for (int64_t pp : {4, 8, 16}) {
      SCOPED_TRACE("pp=" + std::to_string(pp) + " w=" + std::to_string(k.w));
      const double f = 1, b_in = 1, b_full = b_in + k.w;
      const double comm = k.fc + k.bc;
      const double fb = std::max(f + b_full - comm, comm);  // overlapped pair
      const double expected = (pp / 2 - 1) * (fb + b_full - 3 * k.w);
      const PipelineResult dp =
          Sim(WithComm(Uniform(Schedule::kDualPipe, pp, 1, 2 * pp + 4, f, b_in, k.w), k.fc, k.bc));
      EXPECT_NEAR(MaxIdle(dp).value(), expected, 1e-9);
      EXPECT_EQ(dp.parameter_copies, 2);
      const PipelineResult dpv =
          Sim(WithComm(Uniform(Schedule::kDualPipeV, pp / 2, 2, 2 * pp, f, b_in, k.w), k.fc, k.bc));
      EXPECT_NEAR(MaxIdle(dpv).value(), expected, 1e-9);
      EXPECT_EQ(dpv.parameter_copies, 1);
    }
  }
}

// Peak activation PP + 1 chunks per device for both (README table), against
// PP for 1F1B; neither grows with m ("neither the bubbles nor activation
// memory will increase as the number of micro-batches grows").
TEST(Pipeline, DualPipeFamilyPeakActivationIsPPPlusOne) {
  for (int64_t pp : {4, 8}) {
    for (int64_t m : {2 * pp, 4 * pp}) {
      const PipelineResult dp = Sim(Uniform(Schedule::kDualPipe, pp, 1, m, 1, 1, 1));
      const PipelineResult dpv = Sim(Uniform(Schedule::kDualPipeV, pp / 2, 2, m, 1, 1, 1));
      for (int64_t c : dp.peak_inflight_chunks) EXPECT_EQ(c, pp + 1);
      EXPECT_EQ(dpv.peak_inflight_chunks[0], pp + 1);
    }
  }
}

// ZB-V at T_F = T_B = T_W: every device idles (p - 1) chunk-forwards, the
// unavoidable wait of the last device for its first input, and holds 2p
// half-stage chunks = p stages of activations, 1F1B's peak (Qi et al.
// arXiv:2405.15362; reference table: "p (same as 1F1B)").
TEST(Pipeline, ZbVReachesTheWarmupBoundWith1F1BMemory) {
  for (auto [p, m] : {std::pair{4, 8}, {4, 16}, {8, 24}}) {
    const double f = 1;
    const PipelineResult r = Sim(Uniform(Schedule::kZbV, p, 2, m, f, f, f, 0.5));
    for (Seconds b : r.busy) EXPECT_NEAR((r.makespan - b).value(), (p - 1) * f, 1e-9);
    for (Bytes a : r.peak_activation) EXPECT_LE(a.value(), p + 1e-9);
    EXPECT_NEAR(r.peak_activation[0].value(), p, 1e-9);
  }
}

// The makespan can never beat the busiest device's own work, for any
// schedule, uneven chunks and a p2p delay.
TEST(Pipeline, MakespanIsAtLeastTheBusiestDevicesWork) {
  for (Schedule s : {Schedule::kGpipe, Schedule::k1F1B, Schedule::kInterleaved, Schedule::kZbH1,
                     Schedule::kZbV, Schedule::kDualPipe, Schedule::kDualPipeV}) {
    const bool two = s == Schedule::kZbV || s == Schedule::kDualPipeV;
    const int64_t p = 4, v = (s == Schedule::kInterleaved || two) ? 2 : 1, m = 8;
    PipelineConfig c = Uniform(s, p, v, m, 1, 1, 1);
    c.chunks.clear();
    const int64_t n = s == Schedule::kDualPipe ? p : p * v;
    for (int64_t i = 0; i < n; ++i) {
      ChunkCost k;
      k.forward = Seconds(1.0 + 0.37 * (i % 3));
      k.backward_input = Seconds(1.1 + 0.2 * (i % 2));
      k.backward_weight = Seconds(0.4 + 0.1 * i);
      k.activation = Bytes(1);
      c.chunks.push_back(k);
    }
    c.p2p = Seconds(0.25);
    const PipelineResult r = Sim(c);
    Seconds busiest;
    for (Seconds b : r.busy) busiest = Max(busiest, b);
    EXPECT_GE(r.makespan.value(), busiest.value() - 1e-12) << ScheduleName(s);
    EXPECT_GT(r.bubble_fraction, 0) << ScheduleName(s);
  }
}

// One micro-batch through p stages with a p2p delay c: the chain
// p F + p B + 2 (p - 1) c.
TEST(Pipeline, P2PDelayAddsTwoHopsPerBoundary) {
  const int64_t p = 5;
  PipelineConfig c = Uniform(Schedule::k1F1B, p, 1, 1, 1.0, 1.5, 0.5);
  c.p2p = Seconds(0.1);
  EXPECT_NEAR(Sim(c).makespan.value(), p * 1.0 + p * 2.0 + 2 * (p - 1) * 0.1, kTol);
}

TEST(Pipeline, GlobalBatchAuxLossRejectsInterleavingSchedules) {
  PipelineConfig c = Uniform(Schedule::k1F1B, 4, 1, 8, 1, 1, 1);
  c.require_all_forward_first = true;
  const auto r = SimulatePipeline(c);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(r.status().message().find("1f1b"), std::string::npos);
  EXPECT_NE(r.status().message().find("gpipe"), std::string::npos);
  c.schedule = Schedule::kGpipe;
  EXPECT_TRUE(SimulatePipeline(c).ok());
}

TEST(Pipeline, BadInputsAreInputErrors) {
  PipelineConfig c = Uniform(Schedule::k1F1B, 4, 1, 8, 1, 1, 1);
  c.chunks.push_back(c.chunks[0]);  // 2 entries for 4 chunks
  EXPECT_EQ(SimulatePipeline(c).status().code(), StatusCode::kInvalidInput);
  c = Uniform(Schedule::k1F1B, 4, 1, 8, -1, 1, 1);
  EXPECT_EQ(SimulatePipeline(c).status().code(), StatusCode::kInvalidInput);
  c = Uniform(Schedule::k1F1B, 4, 1, 8, 1, 1, 1);
  c.chunks.clear();
  EXPECT_EQ(SimulatePipeline(c).status().code(), StatusCode::kInvalidInput);
  c = Uniform(Schedule::k1F1B, 1000, 1, 100000, 1, 1, 1);
  EXPECT_EQ(SimulatePipeline(c).status().code(), StatusCode::kInvalidInput);
}

TEST(Pipeline, TimelineIsDeterministicAndComplete) {
  PipelineConfig c = Uniform(Schedule::kInterleaved, 4, 2, 8, 0.5, 0.5, 0.5);
  c.p2p = Seconds(0.1);
  c.record_timeline = true;
  const PipelineResult a = Sim(c), b = Sim(c);
  ASSERT_EQ(a.timeline.size(), b.timeline.size());
  for (size_t i = 0; i < a.timeline.size(); ++i) {
    EXPECT_EQ(a.timeline[i].name, b.timeline[i].name);
    EXPECT_EQ(a.timeline[i].start, b.timeline[i].start);
  }
  // 2 passes per (micro-batch, chunk) on compute; a send and a recv per hop.
  const int64_t hops = 8 * (2 * (4 * 2 - 1));
  EXPECT_EQ(int64_t(a.timeline.size()), 8 * 8 * 2 + 2 * hops);
}

TEST(PipelineCache, HitsAreRescaledExactly) {
  PipelineCache cache;
  const PipelineConfig base = Uniform(Schedule::k1F1B, 4, 1, 8, 1e-3, 2e-3, 1e-3, 5e8);
  PipelineConfig scaled = Uniform(Schedule::k1F1B, 4, 1, 8, 3e-3, 6e-3, 3e-3, 1e9);
  const auto a = cache.Get(base);
  const auto b = cache.Get(scaled);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_EQ(cache.hits(), 1);
  const PipelineResult direct = Sim(scaled);
  EXPECT_NEAR(b->makespan.value(), direct.makespan.value(), 1e-12);
  EXPECT_NEAR(b->bubble_fraction, direct.bubble_fraction, 1e-12);
  EXPECT_NEAR(b->peak_activation.value(), direct.peak_activation[0].value(), 1e-3);
  EXPECT_EQ(b->peak_inflight_microbatches, 4);
  scaled.microbatches = 16;  // another shape: a miss
  ASSERT_TRUE(cache.Get(scaled).ok());
  EXPECT_EQ(cache.size(), 2u);
}

// Two configs that differ by a time scale share one entry (their relative
// costs are equal doubles), and a hit returns what a miss in a fresh cache
// returns for the same config, bit for bit.
TEST(PipelineCache, HitAndMissGiveIdenticalValues) {
  PipelineConfig a = Uniform(Schedule::k1F1B, 4, 1, 8, 1.0, 2.0, 1.0);
  a.chunks.resize(4, a.chunks[0]);
  a.chunks[3].backward_input = Seconds(2.5);
  PipelineConfig b = a;  // every time x 0.75: the same relative costs
  for (ChunkCost& k : b.chunks) {
    k.forward = k.forward * 0.75;
    k.backward_input = k.backward_input * 0.75;
    k.backward_weight = k.backward_weight * 0.75;
  }
  PipelineCache first, second;
  PipelineSummary aa, ab, bb;
  ASSERT_TRUE(first.Get(a, aa).ok());
  ASSERT_TRUE(first.Get(b, ab).ok());   // hit
  ASSERT_TRUE(second.Get(b, bb).ok());  // miss in another cache
  EXPECT_EQ(first.hits(), 1);
  EXPECT_EQ(ab.makespan.value(), bb.makespan.value());
  EXPECT_EQ(ab.device_peak_activation, bb.device_peak_activation);
  EXPECT_NEAR(aa.makespan.value(), Sim(a).makespan.value(), 1e-12 * aa.makespan.value());
  EXPECT_NEAR(ab.makespan.value(), 0.75 * aa.makespan.value(), 1e-12 * aa.makespan.value());
}

// Threads filling one cache see what a single thread sees.
TEST(PipelineCache, ThreadsAgreeWithOneThread) {
  std::vector<PipelineConfig> configs;
  for (int64_t p : {2, 4, 8}) {
    for (int64_t m : {8, 16, 24}) {
      for (double b : {1.0, 1.5, 2.0})
        configs.push_back(Uniform(Schedule::k1F1B, p, 1, m, 1, b, 1));
    }
  }
  PipelineCache alone;
  std::vector<double> want;
  for (const PipelineConfig& c : configs) want.push_back(alone.Get(c)->makespan.value());
  PipelineCache shared;
  std::vector<std::vector<double>> got(4, std::vector<double>(configs.size()));
  std::vector<std::thread> threads;
  for (size_t t = 0; t < got.size(); ++t) {
    threads.emplace_back([&, t] {
      for (size_t k = 0; k < configs.size(); ++k) {
        const size_t i = (k + 7 * t) % configs.size();
        PipelineSummary s;
        if (shared.Get(configs[i], s).ok()) got[t][i] = s.makespan.value();
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (const auto& g : got) EXPECT_EQ(g, want);
  EXPECT_EQ(shared.size(), configs.size());
}

}  // namespace
}  // namespace occam
