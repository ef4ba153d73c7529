// Fuzzes the pipeline simulator (SimulatePipeline) with any schedule, shape
// and chunk costs. Invariants: errors are input errors; a result has a
// finite makespan no shorter than any device's compute (busy) time and no
// shorter than the events on its timeline; the bubble fraction is in [0, 1].
#include <fuzzer/FuzzedDataProvider.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "fuzz/fuzz_util.h"
#include "occam/simulate.h"

namespace {

using occam::fuzz::Check;

occam::ChunkCost RandomChunk(FuzzedDataProvider& fdp) {
  occam::ChunkCost k;
  k.forward = occam::Seconds(fdp.ConsumeIntegralInRange<int>(0, 1000) * 1e-3);
  k.backward_input = occam::Seconds(fdp.ConsumeIntegralInRange<int>(0, 1000) * 1e-3);
  k.backward_weight = occam::Seconds(fdp.ConsumeIntegralInRange<int>(0, 1000) * 1e-3);
  k.activation = occam::Bytes(fdp.ConsumeIntegralInRange<int>(0, 1 << 20));
  k.forward_comm = k.forward * (fdp.ConsumeIntegralInRange<int>(0, 4) / 4.0);
  k.backward_comm =
      (k.backward_input + k.backward_weight) * (fdp.ConsumeIntegralInRange<int>(0, 4) / 4.0);
  return k;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider fdp(data, size);
  occam::PipelineConfig c;
  c.schedule = static_cast<occam::Schedule>(fdp.ConsumeIntegralInRange<int>(0, 7));
  c.stages = fdp.ConsumeIntegralInRange<int64_t>(0, 12);
  c.vpp = fdp.ConsumeIntegralInRange<int64_t>(0, 4);
  c.microbatches = fdp.ConsumeIntegralInRange<int64_t>(0, 48);
  c.p2p = occam::Seconds(fdp.ConsumeIntegralInRange<int>(0, 100) * 1e-4);
  c.require_all_forward_first = fdp.ConsumeBool();
  c.record_timeline = true;
  const int n = fdp.ConsumeBool() ? 1 : fdp.ConsumeIntegralInRange<int>(0, 48);
  for (int i = 0; i < n; ++i) c.chunks.push_back(RandomChunk(fdp));
  const occam::Result<occam::PipelineResult> r = occam::SimulatePipeline(c);
  if (!r.ok()) {
    occam::fuzz::CheckInputError(r.status(), "");
    return 0;
  }
  const double makespan = r->makespan.value();
  Check(std::isfinite(makespan) && makespan >= 0, "makespan must be finite and >= 0");
  const double slack = 1e-9 * (makespan + 1);
  for (occam::Seconds busy : r->busy) {
    Check(busy.value() >= 0 && busy.value() <= makespan + slack,
          "makespan must be >= every device's busy time");
  }
  Check(r->bubble_fraction >= -1e-12 && r->bubble_fraction <= 1 + 1e-12,
        "bubble fraction must be in [0, 1]");
  std::vector<double> compute(static_cast<size_t>(c.stages), 0.0);
  for (const occam::TimelineEvent& ev : r->timeline) {
    Check(ev.end >= ev.start && ev.start.value() >= -slack && ev.end.value() <= makespan + slack,
          "timeline events lie inside [0, makespan]");
    Check(ev.device >= 0 && ev.device < c.stages, "timeline device in range");
    if (ev.stream == 0) compute[static_cast<size_t>(ev.device)] += (ev.end - ev.start).value();
  }
  for (double work : compute) Check(work <= makespan + slack, "device compute exceeds makespan");
  return 0;
}
