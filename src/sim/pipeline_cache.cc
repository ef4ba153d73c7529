// PipelineCache: SimulatePipeline memoised by shape (see simulate.h).
//
// A pipeline's timing is linear in its durations: scaling every time by k
// scales every start and end by k (the engine only adds, maximises and
// compares times), and scaling every activation size by k scales the peaks
// by k. So the key holds every time divided by the first chunk's forward
// and every size divided by the first chunk's activation, as exact doubles
// (their bit patterns are the codes; no rounding here: a caller that wants
// nearby shapes to share an entry rounds first, as step/pipeline_timing.cc
// does); a hit is rescaled.
//
// A result depends only on its key: a miss simulates the values decoded
// from the codes (reference units), not the caller's, so whichever thread
// fills an entry first, every caller with that key gets the same numbers.
//
// Layout: 16 shards, each a mutex, an open-addressing table of slots
// (hash, where its codes sit in the shard's code pool, summary index) and
// the summaries. A lookup builds the codes in a fixed stack buffer, hashes
// and compares them, and allocates nothing; only a miss inserts.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <mutex>
#include <vector>

#include "occam/simulate.h"

namespace occam {
// The cache's own types, named (not anonymous) so that PipelineCache::Impl,
// which has external linkage, may hold them.
namespace pipeline_cache_internal {

constexpr size_t kShards = 16;
constexpr size_t kCodesPerChunk = 6;
constexpr size_t kHeaderCodes = 6;

int64_t Code(double relative) { return std::bit_cast<int64_t>(relative); }
double Value(int64_t code) { return std::bit_cast<double>(code); }

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

// The key's codes, in order: header (schedule, p, v, m, the two flags in
// one code, p2p), then per chunk F, B, W, forward comm,
// backward comm (times) and activation (bytes). `fn(i, code)` per code.
template <class Fn>
void ForEachCode(const PipelineConfig& c, Scale s, Fn&& fn) {
  size_t i = 0;
  fn(i++, int64_t(c.schedule));
  fn(i++, c.stages);
  fn(i++, c.vpp);
  fn(i++, c.microbatches);
  fn(i++, int64_t{c.require_all_forward_first} | int64_t{c.combined_1f1b} << 1);
  fn(i++, Code(c.p2p.value() / s.time));
  for (const ChunkCost& k : c.chunks) {
    fn(i++, Code(k.forward.value() / s.time));
    fn(i++, Code(k.backward_input.value() / s.time));
    fn(i++, Code(k.backward_weight.value() / s.time));
    fn(i++, Code(k.forward_comm.value() / s.time));
    fn(i++, Code(k.backward_comm.value() / s.time));
    fn(i++, Code(k.activation.value() / s.bytes));
  }
}

size_t CodeCount(const PipelineConfig& c) {
  return kHeaderCodes + kCodesPerChunk * c.chunks.size();
}

// The key's codes: in a fixed stack buffer (no allocation) for up to
// kInlineCodes codes (163 chunks), on the heap beyond.
constexpr size_t kInlineCodes = 1024;

class Codes {
 public:
  Codes(const PipelineConfig& c, Scale s) : n_(CodeCount(c)) {
    if (n_ > kInlineCodes) heap_.resize(n_);
    int64_t* out = data();
    ForEachCode(c, s, [out](size_t i, int64_t code) { out[i] = code; });
  }
  const int64_t* data() const { return n_ > kInlineCodes ? heap_.data() : inline_.data(); }
  int64_t* data() { return n_ > kInlineCodes ? heap_.data() : inline_.data(); }
  size_t size() const { return n_; }
  uint64_t Hash() const {
    // Multiply-xorshift per code, splitmix64 finaliser at the end.
    uint64_t h = 0x243f6a8885a308d3ULL;
    for (size_t i = 0; i < n_; ++i) {
      h = (h ^ static_cast<uint64_t>(data()[i])) * 0x9e3779b97f4a7c15ULL;
      h ^= h >> 29;
    }
    h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ULL;
    h = (h ^ (h >> 27)) * 0x94d049bb133111ebULL;
    return h ^ (h >> 31);
  }

 private:
  size_t n_;
  std::array<int64_t, kInlineCodes> inline_;  // uninitialised past n_
  std::vector<int64_t> heap_;
};

// The reference-unit config the key stands for (decoded codes).
PipelineConfig Decoded(const PipelineConfig& c, const int64_t* codes) {
  PipelineConfig ref = c;
  ref.record_timeline = false;
  auto t = [](int64_t code) { return Seconds(Value(code)); };
  ref.p2p = t(codes[5]);
  for (size_t k = 0; k < ref.chunks.size(); ++k) {
    const int64_t* x = codes + kHeaderCodes + kCodesPerChunk * k;
    ref.chunks[k] = ChunkCost{t(x[0]), t(x[1]), t(x[2]), Bytes(Value(x[5])), t(x[3]), t(x[4])};
  }
  return ref;
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

// Writes `sum` (reference units) rescaled into `out`, reusing its storage.
void RescaledInto(const PipelineSummary& sum, Scale s, PipelineSummary& out) {
  out.makespan = sum.makespan * s.time;
  out.bubble_fraction = sum.bubble_fraction;
  out.peak_inflight_microbatches = sum.peak_inflight_microbatches;
  out.peak_activation = sum.peak_activation * s.bytes;
  out.parameter_copies = sum.parameter_copies;
  out.device_peak_activation.resize(sum.device_peak_activation.size());
  for (size_t d = 0; d < sum.device_peak_activation.size(); ++d) {
    out.device_peak_activation[d] = sum.device_peak_activation[d] * s.bytes;
  }
}

struct Slot {
  uint64_t hash = 0;
  uint32_t codes = 0;   // offset into Shard::pool
  uint32_t length = 0;  // number of codes
  uint32_t value = 0;   // index into Shard::values + 1 (0 = empty)
};

struct Shard {
  std::mutex mu;
  std::vector<Slot> slots = std::vector<Slot>(64);  // power of two, <= half full
  std::vector<int64_t> pool;
  std::vector<PipelineSummary> values;
  int64_t hits = 0;

  bool Matches(const Slot& slot, const Codes& key) const {
    return slot.length == key.size() &&
           std::equal(key.data(), key.data() + key.size(), pool.data() + slot.codes);
  }

  // Index of the slot holding the key, or of the empty slot where it goes.
  size_t Find(uint64_t hash, const Codes& key) const {
    const size_t mask = slots.size() - 1;
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
      const Slot& slot = slots[i];
      if (slot.value == 0) return i;
      if (slot.hash == hash && Matches(slot, key)) return i;
    }
  }

  void Insert(uint64_t hash, const Codes& key, PipelineSummary sum) {
    if (2 * (values.size() + 1) > slots.size()) Grow();
    const size_t at = Find(hash, key);
    if (slots[at].value != 0) return;  // another thread filled it meanwhile
    const auto begin = static_cast<uint32_t>(pool.size());
    pool.insert(pool.end(), key.data(), key.data() + key.size());
    values.push_back(std::move(sum));
    slots[at] =
        Slot{hash, begin, static_cast<uint32_t>(key.size()), static_cast<uint32_t>(values.size())};
  }

  void Grow() {
    std::vector<Slot> old(slots.size() * 2);
    old.swap(slots);
    const size_t mask = slots.size() - 1;
    for (const Slot& slot : old) {
      if (slot.value == 0) continue;
      size_t i = slot.hash & mask;
      while (slots[i].value != 0) i = (i + 1) & mask;
      slots[i] = slot;
    }
  }
};

}  // namespace pipeline_cache_internal

using pipeline_cache_internal::Codes;
using pipeline_cache_internal::Decoded;
using pipeline_cache_internal::kShards;
using pipeline_cache_internal::RescaledInto;
using pipeline_cache_internal::Scale;
using pipeline_cache_internal::ScaleOf;
using pipeline_cache_internal::Shard;
using pipeline_cache_internal::Slot;
using pipeline_cache_internal::Summarize;

struct PipelineCache::Impl {
  std::array<Shard, kShards> shards;
};

PipelineCache::PipelineCache() : impl_(std::make_unique<Impl>()) {}
PipelineCache::~PipelineCache() = default;

Status PipelineCache::Get(const PipelineConfig& config, PipelineSummary& out) {
  const Scale s = ScaleOf(config);
  // Range checks happen in SimulatePipeline: a config with a non-finite
  // value is simulated directly (and rejected there).
  auto fits = [](double relative) { return std::isfinite(relative); };
  bool keyable = fits(config.p2p.value() / s.time);
  for (const ChunkCost& k : config.chunks) {
    for (Seconds t :
         {k.forward, k.backward_input, k.backward_weight, k.forward_comm, k.backward_comm}) {
      keyable = keyable && fits(t.value() / s.time);
    }
    keyable = keyable && fits(k.activation.value() / s.bytes);
  }
  if (!keyable) {
    OCCAM_ASSIGN_OR_RETURN(PipelineResult r, SimulatePipeline(config));
    out = Summarize(r);
    return Status::Ok();
  }
  const Codes key(config, s);
  const uint64_t hash = key.Hash();
  Shard& shard = impl_->shards[(hash >> 60) % kShards];
  {
    std::lock_guard<std::mutex> lock(shard.mu);
    const Slot& slot = shard.slots[shard.Find(hash, key)];
    if (slot.value != 0) {
      ++shard.hits;
      RescaledInto(shard.values[slot.value - 1], s, out);
      return Status::Ok();
    }
  }
  OCCAM_ASSIGN_OR_RETURN(PipelineResult r, SimulatePipeline(Decoded(config, key.data())));
  PipelineSummary sum = Summarize(r);
  RescaledInto(sum, s, out);
  std::lock_guard<std::mutex> lock(shard.mu);
  shard.Insert(hash, key, std::move(sum));
  return Status::Ok();
}

Result<PipelineSummary> PipelineCache::Get(const PipelineConfig& config) {
  PipelineSummary out;
  OCCAM_RETURN_IF_ERROR(Get(config, out));
  return out;
}

size_t PipelineCache::size() const {
  size_t n = 0;
  for (Shard& shard : impl_->shards) {
    std::lock_guard<std::mutex> lock(shard.mu);
    n += shard.values.size();
  }
  return n;
}

int64_t PipelineCache::hits() const {
  int64_t n = 0;
  for (Shard& shard : impl_->shards) {
    std::lock_guard<std::mutex> lock(shard.mu);
    n += shard.hits;
  }
  return n;
}

}  // namespace occam
