// PipelineCache: SimulatePipeline memoised by shape (see simulate.h).
//
// A pipeline's timing is linear in its durations: scaling every time by k
// scales every start and end by k (the engine only adds and compares
// times), and scaling every activation size by k scales the peaks by k. So
// the key stores times relative to the first chunk's forward and sizes
// relative to the first chunk's activation; a hit is rescaled.
#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "occam/simulate.h"

namespace occam {

struct PipelineCache::Impl {
  mutable std::mutex mu;
  std::map<std::vector<int64_t>, PipelineSummary> entries;  // in reference units
  int64_t hits = 0;
};

namespace {

constexpr double kKeyResolution = 1e6;  // relative values rounded to 1e-6

int64_t Rounded(double relative) { return std::llround(relative * kKeyResolution); }

struct Scale {
  double time = 1;
  double bytes = 1;
};

Scale ScaleOf(const PipelineConfig& c) {
  Scale s;
  if (!c.chunks.empty()) {
    if (c.chunks[0].forward.value() > 0) s.time = c.chunks[0].forward.value();
    if (c.chunks[0].activation.value() > 0) s.bytes = c.chunks[0].activation.value();
  }
  return s;
}

std::vector<int64_t> KeyOf(const PipelineConfig& c, Scale s) {
  std::vector<int64_t> key = {int64_t(c.schedule),
                              c.stages,
                              c.vpp,
                              c.microbatches,
                              c.require_all_forward_first,
                              Rounded(c.p2p.value() / s.time)};
  for (const ChunkCost& k : c.chunks) {
    for (Seconds t :
         {k.forward, k.backward_input, k.backward_weight, k.forward_comm, k.backward_comm}) {
      key.push_back(Rounded(t.value() / s.time));
    }
    key.push_back(Rounded(k.activation.value() / s.bytes));
  }
  return key;
}

PipelineSummary Summarize(const PipelineResult& r) {
  PipelineSummary sum{r.makespan, r.bubble_fraction, 0, Bytes(0), r.parameter_copies, {}};
  for (int64_t x : r.peak_inflight_microbatches) {
    sum.peak_inflight_microbatches = std::max(sum.peak_inflight_microbatches, x);
  }
  for (Bytes b : r.peak_activation) sum.peak_activation = Max(sum.peak_activation, b);
  sum.device_peak_activation = r.peak_activation;
  return sum;
}

PipelineSummary Rescaled(PipelineSummary sum, double time, double bytes) {
  sum.makespan = sum.makespan * time;
  sum.peak_activation = sum.peak_activation * bytes;
  for (Bytes& b : sum.device_peak_activation) b = b * bytes;
  return sum;
}

}  // namespace

PipelineCache::PipelineCache() : impl_(std::make_unique<Impl>()) {}
PipelineCache::~PipelineCache() = default;

Result<PipelineSummary> PipelineCache::Get(const PipelineConfig& config) {
  const Scale s = ScaleOf(config);
  // Range checks happen in SimulatePipeline; values too large to key are
  // simulated directly.
  for (const ChunkCost& k : config.chunks) {
    if (!(k.forward.value() / s.time < 1e9) || !(k.activation.value() / s.bytes < 1e9)) {
      OCCAM_ASSIGN_OR_RETURN(PipelineResult r, SimulatePipeline(config));
      return Summarize(r);
    }
  }
  const std::vector<int64_t> key = KeyOf(config, s);
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    auto it = impl_->entries.find(key);
    if (it != impl_->entries.end()) {
      ++impl_->hits;
      return Rescaled(it->second, s.time, s.bytes);
    }
  }
  PipelineConfig ref = config;  // in reference units
  ref.record_timeline = false;
  ref.p2p = config.p2p / s.time;
  for (ChunkCost& k : ref.chunks) {
    for (Seconds* t :
         {&k.forward, &k.backward_input, &k.backward_weight, &k.forward_comm, &k.backward_comm}) {
      *t = *t / s.time;
    }
    k.activation = k.activation / s.bytes;
  }
  OCCAM_ASSIGN_OR_RETURN(PipelineResult r, SimulatePipeline(ref));
  const PipelineSummary sum = Summarize(r);
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    impl_->entries.emplace(key, sum);
  }
  return Rescaled(sum, s.time, s.bytes);
}

size_t PipelineCache::size() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->entries.size();
}

int64_t PipelineCache::hits() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->hits;
}

}  // namespace occam
