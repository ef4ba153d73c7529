// Property tests over random valid inputs (seeded, so every run checks the
// same cases): invariants any estimate and any pipeline simulation must meet,
// whatever the model, cluster, job and layout.
//
//   - tokens/s x step time = tokens per step; MFU <= 1; HFU >= MFU; memory
//     components >= 0 and summing to the total (EstimateViolation);
//   - more FLOP/s or more bandwidth (HBM or any network tier), lower latency
//     or a larger switched fast domain never makes a step slower;
//   - Evaluate and EvaluateQuick agree, and repeated evaluations are identical;
//   - the simulator's makespan is at least the busiest device's work.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "occam/simulate.h"
#include "occam/step.h"
#include "step/random_specs_test_util.h"

namespace occam {
namespace {

using testing::DrawCase;
using testing::EstimateViolation;
using testing::PrngSource;
using testing::RandomCase;

constexpr int kDraws = 250;
// At least this many draws must be valid, or the properties test too little.
constexpr int kMinValid = 80;

// The valid random cases, drawn once for the whole file.
const std::vector<RandomCase>& Cases() {
  static const std::vector<RandomCase> cases = [] {
    std::vector<RandomCase> out;
    PrngSource source(20260501);
    for (int i = 0; i < kDraws; ++i) {
      if (std::optional<RandomCase> c = DrawCase(source)) out.push_back(*std::move(c));
    }
    return out;
  }();
  return cases;
}

std::string Describe(const RandomCase& c) {
  return c.model.name + " L=" + std::to_string(c.model.num_layers) +
         " h=" + std::to_string(c.model.hidden) + (c.model.moe ? " moe" : " dense") + " on " +
         c.cluster.name + " x" + std::to_string(c.cluster.num_chips) +
         " seq=" + std::to_string(c.job.seq_len) +
         " batch=" + std::to_string(c.job.global_batch_seqs) + " plan " + FormatPlan(c.plan);
}

Result<Estimate> Evaluate(const RandomCase& c) {
  return EstimateStep(c.model, c.cluster, c.job, c.plan);
}

TEST(StepInvariants, EnoughRandomCasesAreValid) { EXPECT_GE(Cases().size(), size_t{kMinValid}); }

TEST(StepInvariants, EveryEstimateIsFiniteAndConsistent) {
  for (const RandomCase& c : Cases()) {
    const Result<Estimate> e = Evaluate(c);
    ASSERT_TRUE(e.ok()) << Describe(c) << ": " << e.status().message();
    EXPECT_EQ(EstimateViolation(c, *e), "") << Describe(c);
  }
}

// memory_per_device has one entry per pipeline device, and `memory` is the
// fullest of them (the device the estimate reports).
TEST(StepInvariants, MemoryPerDeviceHoldsTheFullestDevice) {
  for (const RandomCase& c : Cases()) {
    const Result<Estimate> e = Evaluate(c);
    ASSERT_TRUE(e.ok()) << Describe(c);
    ASSERT_EQ(e->memory_per_device.size(), static_cast<size_t>(c.plan.pp)) << Describe(c);
    double fullest = 0;
    for (const MemoryBreakdown& m : e->memory_per_device) {
      EXPECT_GT(m.weights.value(), 0) << Describe(c);
      fullest = std::max(fullest, m.total().value());
    }
    EXPECT_EQ(fullest, e->memory.total().value()) << Describe(c);
  }
}

TEST(StepInvariants, QuickAgreesWithFullAndRepeatsExactly) {
  for (const RandomCase& c : Cases()) {
    const Result<StepModel> model = StepModel::Create(c.model, c.cluster, c.job);
    ASSERT_TRUE(model.ok()) << Describe(c);
    const Result<Estimate> a = model->Evaluate(c.plan);
    const Result<Estimate> b = model->Evaluate(c.plan);
    ASSERT_TRUE(a.ok() && b.ok()) << Describe(c);
    EXPECT_EQ(a->step_time, b->step_time) << Describe(c);
    EXPECT_EQ(a->memory.total(), b->memory.total()) << Describe(c);
    const QuickEstimate q = model->EvaluateQuick(c.plan);
    EXPECT_EQ(q.step_time, a->step_time) << Describe(c);
    EXPECT_EQ(q.memory_total, a->memory.total()) << Describe(c);
    EXPECT_EQ(q.fits, a->fits) << Describe(c);
  }
}

// `faster` is `c` with one resource doubled; its step must not be slower.
void ExpectNotSlower(const RandomCase& c, const RandomCase& faster, const char* what) {
  const Result<Estimate> base = Evaluate(c);
  const Result<Estimate> fast = Evaluate(faster);
  ASSERT_TRUE(base.ok() && fast.ok()) << Describe(c);
  // A simulated pipeline (pp > 1) is not exactly monotone: more FLOP/s can
  // shift exposed communication between a pass's forward, input-gradient
  // and weight-gradient parts, and the makespan depends on that split
  // (doc/cost-model.md §6); seen up to 0.3%. Without a pipeline, a
  // host-bound MoE block (AddHostBound) keeps its time, the dispatcher's
  // host time, as a faster network shortens its work, but the idle is split
  // over its passes by FLOPs and the data-parallel tail hides behind the
  // passes one by one (DataParallelTail): seen up to 1e-6.
  const double tolerance = c.plan.pp > 1 ? 1e-2 : 1e-5;
  EXPECT_LE(fast->step_time.value(), base->step_time.value() * (1 + tolerance))
      << what << " made the step slower: " << Describe(c);
}

// ZB-V and ZB-H1 included: their weight-gradient pass has its own overlap
// window (PlanContext::split_w), so a faster chip shortens B and W each.
// (Before, a backward window's exposure was split over B and W in proportion
// to their compute, and B, ZB-V's critical path, grew by 0.2% at 2x FLOP/s
// on a comm-bound FSDP layout, L=28 h=2048 on 32 H200.)
TEST(StepInvariants, MoreFlopsNeverMakesAStepSlower) {
  for (const RandomCase& c : Cases()) {
    RandomCase faster = c;
    faster.cluster.chip.peak_bf16 = c.cluster.chip.peak_bf16 * 2;
    faster.cluster.chip.peak_fp8 = c.cluster.chip.peak_fp8 * 2;
    ExpectNotSlower(c, faster, "doubling peak FLOP/s");
  }
}

TEST(StepInvariants, MoreHbmBandwidthNeverMakesAStepSlower) {
  for (const RandomCase& c : Cases()) {
    RandomCase faster = c;
    faster.cluster.chip.hbm_bandwidth = c.cluster.chip.hbm_bandwidth * 2;
    ExpectNotSlower(c, faster, "doubling HBM bandwidth");
  }
}

TEST(StepInvariants, MoreNetworkBandwidthNeverMakesAStepSlower) {
  for (const RandomCase& c : Cases()) {
    for (size_t tier = 0; tier < c.cluster.tiers.size(); ++tier) {
      RandomCase faster = c;
      faster.cluster.tiers[tier].bandwidth = c.cluster.tiers[tier].bandwidth * 2;
      ExpectNotSlower(c, faster, ("doubling tier " + c.cluster.tiers[tier].name).c_str());
    }
  }
}

TEST(StepInvariants, LowerLatencyNeverMakesAStepSlower) {
  for (const RandomCase& c : Cases()) {
    RandomCase faster = c;
    for (TierSpec& t : faster.cluster.tiers) t.latency = t.latency * 0.5;
    ExpectNotSlower(c, faster, "halving every tier's latency");
  }
}

// A larger switched fast domain (tier 0 doubled while the next tier still
// holds whole units, as `occam sweep --vary scale-up-size` grows it) never
// makes a step slower: every group keeps its ranks, and a non-blocking switch
// gives any subset of its unit the full per-chip rate (doc/hardware.md § 7.2),
// so traffic only moves off slower tiers. Meshes are left out: the same
// per-chip bandwidth over more peers means thinner pair links.
//
// The all-to-all is costed with every peer in flight (doc/cost-model.md §
// 4.7): the templates' pairwise rule makes a larger domain slower for EP
// groups that grow into it (CollectiveMonotone's known break (1)).
// The small all-reduces' tree chain inside the domain no longer grows with
// it: a larger domain may run the smaller one's schedule (doc/cost-model.md
// § 4.6.1).
TEST(StepInvariants, LargerFastDomainNeverMakesAStepSlower) {
  int checked = 0;
  for (RandomCase c : Cases()) {
    for (TierSpec& t : c.cluster.tiers) t.alltoall_all_peers = true;
    const auto& tiers = c.cluster.tiers;
    if (tiers.size() < 2 || tiers[0].kind != TierKind::kSwitch) continue;
    const int64_t size = tiers[0].size * 2;
    if (size > tiers[1].size || tiers[1].size % size != 0) continue;
    RandomCase larger = c;
    larger.cluster.tiers[0].size = size;
    ExpectNotSlower(c, larger, "doubling the fast domain");
    ++checked;
  }
  EXPECT_GE(checked, 20);
}

// Large factors too: the issue-19 repro was a 10x FLOP/s chip (a DualPipeV
// layout on 128 H100s got 0.6% slower). DualPipe and DualPipeV are checked
// apart: their exposed all-to-all is charged to F and B only, so a faster
// chip shrinks the W that fills bubbles (doc/hardening.md, "DualPipe(V): more
// FLOP/s, a longer step"); enable the second test when that is fixed.
void ExpectTenTimesFlopsNotSlower(bool dual) {
  for (const RandomCase& c : Cases()) {
    const bool is_dual =
        c.plan.schedule == Schedule::kDualPipe || c.plan.schedule == Schedule::kDualPipeV;
    if (is_dual != dual) continue;
    RandomCase faster = c;
    faster.cluster.chip.peak_bf16 = c.cluster.chip.peak_bf16 * 10;
    faster.cluster.chip.peak_fp8 = c.cluster.chip.peak_fp8 * 10;
    ExpectNotSlower(c, faster, "10x peak FLOP/s");
  }
}

TEST(StepInvariants, TenTimesTheFlopsNeverMakesAStepSlower) { ExpectTenTimesFlopsNotSlower(false); }

TEST(StepInvariants, TenTimesTheFlopsNeverMakesADualPipeStepSlower) {
  ExpectTenTimesFlopsNotSlower(true);
}

// Inputs at the edges of their plausible ranges (doc/input-formats.md §
// Ranges) still give finite, consistent estimates: the ranges are what keeps
// every printed number finite and non-negative.
TEST(StepInvariants, EstimatesAtTheRangeEdgesAreFinite) {
  using Edit = void (*)(RandomCase&);
  const std::pair<const char*, Edit> kEdges[] = {
      {"0.001 TFLOP/s",
       [](RandomCase& c) { c.cluster.chip.peak_bf16 = c.cluster.chip.peak_fp8 = TFlops(1e-3); }},
      {"1e6 TFLOP/s",
       [](RandomCase& c) { c.cluster.chip.peak_bf16 = c.cluster.chip.peak_fp8 = TFlops(1e6); }},
      {"1e-4 TB/s HBM", [](RandomCase& c) { c.cluster.chip.hbm_bandwidth = BytesPerSecond(1e8); }},
      {"1e4 TB/s HBM", [](RandomCase& c) { c.cluster.chip.hbm_bandwidth = BytesPerSecond(1e16); }},
      {"0.01 GB/s links, 1e5 us, efficiency 0.01",
       [](RandomCase& c) {
         for (TierSpec& t : c.cluster.tiers) {
           t.bandwidth = GBps(0.01);
           t.latency = Microseconds(1e5);
           t.efficiency = 0.01;
           t.oversubscription = 1000;
         }
       }},
      {"1e5 GB/s links, 0 us",
       [](RandomCase& c) {
         for (TierSpec& t : c.cluster.tiers) {
           t.bandwidth = GBps(1e5);
           t.latency = Microseconds(0);
         }
       }},
      {"moe_imbalance 1024, headroom 0.99",
       [](RandomCase& c) {
         c.job.moe_imbalance = 1024;
         c.job.memory_headroom = 0.99;
       }},
  };
  for (const auto& [what, edit] : kEdges) {
    for (size_t i = 0; i < Cases().size(); i += 3) {
      RandomCase c = Cases()[i];
      edit(c);
      ASSERT_TRUE(ValidateCluster(c.cluster, "edge").ok()) << what;
      ASSERT_TRUE(ValidateJob(c.job, "edge").ok()) << what;
      const Result<Estimate> e = Evaluate(c);
      ASSERT_TRUE(e.ok()) << what << " " << Describe(c) << ": " << e.status().message();
      EXPECT_EQ(EstimateViolation(c, *e), "") << what << " " << Describe(c);
    }
  }
}

// ------------------------------------------------------------ simulator ---

// Model chunks per step, per the PipelineConfig contract: stages * vpp, but
// stages for DualPipe (its two directions share the stages).
int64_t ModelChunks(const PipelineConfig& c) {
  return c.schedule == Schedule::kDualPipe ? c.stages : c.stages * c.vpp;
}

// A random valid pipeline with equal chunks and no hideable communication,
// so every device's work is m * (F + B + W) * chunks / stages.
PipelineConfig RandomPipeline(PrngSource& s) {
  PipelineConfig c;
  constexpr Schedule kSchedules[] = {Schedule::kGpipe,    Schedule::k1F1B, Schedule::kInterleaved,
                                     Schedule::kZbH1,     Schedule::kZbV,  Schedule::kDualPipe,
                                     Schedule::kDualPipeV};
  c.schedule = kSchedules[s.Range(0, 6)];
  c.stages = int64_t{1} << s.Range(1, 3);
  c.vpp = 1;
  if (c.schedule == Schedule::kInterleaved) c.vpp = s.Range(2, 3);
  if (c.schedule == Schedule::kZbV || c.schedule == Schedule::kDualPipeV) c.vpp = 2;
  const int64_t unit = c.schedule == Schedule::kInterleaved ? c.stages : 2;
  c.microbatches = unit * s.Range(c.stages, 2 * c.stages + 2);
  ChunkCost k;
  k.forward = Milliseconds(static_cast<double>(s.Range(1, 100)));
  k.backward_input = Milliseconds(static_cast<double>(s.Range(1, 100)));
  k.backward_weight = Milliseconds(static_cast<double>(s.Range(0, 100)));
  c.chunks = {k};
  c.p2p = Milliseconds(static_cast<double>(s.Range(0, 10)) / 10.0);
  c.record_timeline = true;
  return c;
}

TEST(SimulatorInvariants, MakespanIsAtLeastTheBusiestDevicesWork) {
  PrngSource source(7);
  int simulated = 0;
  for (int i = 0; i < 200; ++i) {
    const PipelineConfig c = RandomPipeline(source);
    const Result<PipelineResult> r = SimulatePipeline(c);
    if (!r.ok()) continue;  // a shape the schedule does not support
    ++simulated;
    const ChunkCost& k = c.chunks[0];
    const double per_device = static_cast<double>(c.microbatches * ModelChunks(c)) /
                              static_cast<double>(c.stages) *
                              (k.forward + k.backward_input + k.backward_weight).value();
    const double makespan = r->makespan.value();
    const std::string what = std::string(ScheduleName(c.schedule)) +
                             " p=" + std::to_string(c.stages) + " v=" + std::to_string(c.vpp) +
                             " m=" + std::to_string(c.microbatches);
    EXPECT_GE(makespan, per_device * (1 - 1e-9)) << what;
    std::vector<double> compute(static_cast<size_t>(c.stages), 0.0);
    for (const TimelineEvent& ev : r->timeline) {
      if (ev.stream == 0) compute[static_cast<size_t>(ev.device)] += (ev.end - ev.start).value();
    }
    for (int64_t d = 0; d < c.stages; ++d) {
      EXPECT_NEAR(compute[d], per_device, 1e-9 * per_device) << what << " device " << d;
      EXPECT_LE(compute[d], makespan * (1 + 1e-9)) << what << " device " << d;
    }
    for (Seconds busy : r->busy) EXPECT_LE(busy.value(), makespan * (1 + 1e-9)) << what;
  }
  EXPECT_GE(simulated, 100);
}

}  // namespace
}  // namespace occam
