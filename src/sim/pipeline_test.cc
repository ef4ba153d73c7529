// SimulatePipeline against closed forms (uniform stage times, p2p = 0) and
// published formulas. Sources: doc/cost-model.md section 7.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

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
