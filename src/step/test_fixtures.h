// Hand-built inputs shared by the step tests.
#pragma once

#include <algorithm>
#include <cstdint>

#include "occam/spec.h"

namespace occam::testing {

// An HGX H100 cluster (H100 SXM datasheet peaks, 80 GB HBM3 at 3.35 TB/s):
// 8-GPU NVLink nodes (450 GB/s per GPU) over an InfiniBand fat tree
// (50 GB/s per GPU). One node when chips <= 8.
inline ClusterSpec H100Cluster(int64_t chips) {
  ClusterSpec c;
  c.name = "h100-test";
  c.chip.key = "h100";
  c.chip.peak_bf16 = TFlops(989.4);
  c.chip.peak_fp8 = TFlops(1978.9);
  c.chip.hbm = GB(80);
  c.chip.hbm_bandwidth = GBps(3350);
  c.num_chips = chips;
  TierSpec nvlink;
  nvlink.name = "nvlink";
  nvlink.kind = TierKind::kSwitch;
  nvlink.size = std::min<int64_t>(8, chips);
  nvlink.bandwidth = GBps(450);
  nvlink.latency = Microseconds(3);
  TierSpec ib;
  ib.name = "ib";
  ib.kind = TierKind::kFatTree;
  ib.size = std::max<int64_t>(chips, 8);
  ib.bandwidth = GBps(50);
  ib.latency = Microseconds(10);
  c.tiers = {nvlink, ib};
  if (chips <= 8) c.tiers = {nvlink};
  return c;
}

// DeepSeek-V3's final training batch: 15360 sequences of 4096 tokens
// (arXiv:2412.19437 §4.2).
inline JobSpec DeepSeekV3Job() {
  JobSpec j;
  j.seq_len = 4096;
  j.global_batch_seqs = 15360;
  return j;
}

}  // namespace occam::testing
