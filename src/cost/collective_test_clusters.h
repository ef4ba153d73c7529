// Hand-built clusters for the collective tests. Bandwidths, efficiencies and
// latencies are the published figures of doc/hardware.md (source IDs as there);
// the templates in data/clusters/ carry the same values.
#pragma once

#include <cstdint>
#include <string>

#include "occam/spec.h"

namespace occam::testing {

// Ideal tier: no efficiency loss, no size curve; latency `alpha_us`.
inline TierSpec IdealTier(std::string name, TierKind kind, int64_t size, double gbps,
                          double alpha_us) {
  TierSpec t;
  t.name = std::move(name);
  t.kind = kind;
  t.size = size;
  t.bandwidth = GBps(gbps);
  t.latency = Microseconds(alpha_us);
  t.efficiency = 1.0;
  t.half_bandwidth_bytes = Bytes(0);
  return t;
}

// HGX H100 node (NVLink 4: 450 GB/s uni per GPU, NVLS) + NDR 400G per GPU.
// eta_ring 0.82 = 370/450 (NCCLT_212, SB_GPU); eta_nvls 0.686 = 480 busbw /
// (450 * 2*7/9) (NCCLT_212, AZURE_BENCH); IB 46/50 = 0.92 (NCCLT_290);
// half-plateau transfer 2 MB (AZURE_BENCH / MLENG_NET curves: half of the
// plateau at ~16 MB over 8 GPUs and ~64 MB over 32); latencies: NCCL
// LL128 per-step hardware latency 1.9 us NVLink, 4.0 us network (NCCL_TUNING).
inline ClusterSpec HgxCluster(int64_t chips, double nvlink_gbps = 450, double ib_gbps = 50,
                              double nvlink_eta = 0.82, double oversub = 1.0, int64_t pod = 1024) {
  ClusterSpec c;
  c.name = "hgx-test";
  c.num_chips = chips;
  TierSpec nv;
  nv.name = "nvlink";
  nv.kind = TierKind::kSwitch;
  nv.size = 8;
  nv.bandwidth = GBps(nvlink_gbps);
  nv.latency = Microseconds(1.9);
  nv.in_network_reduction = true;
  nv.efficiency = nvlink_eta;
  nv.in_network_efficiency = 0.686;
  nv.half_bandwidth_bytes = Bytes(2e6);
  TierSpec ib;
  ib.name = "ib";
  ib.kind = TierKind::kFatTree;
  ib.size = pod;
  ib.bandwidth = GBps(ib_gbps);
  ib.latency = Microseconds(4.0);
  ib.efficiency = 0.92;
  ib.half_bandwidth_bytes = Bytes(2e6);
  c.tiers = {nv, ib};
  if (chips > pod) {
    TierSpec up = ib;
    up.name = "ib-core";
    up.size = chips;
    up.oversubscription = oversub;
    c.tiers.push_back(up);
  }
  return c;
}

// DeepSeek's H800 cluster: NVLink 200 GB/s nominal, 160 measured (eta 0.8,
// DSV3_ISSUE28); CX7 400G IB per GPU (DEEPEP, DSV3_REPORT).
inline ClusterSpec H800Cluster(int64_t chips) {
  ClusterSpec c = HgxCluster(chips, 200, 50, 0.8);
  c.name = "h800-test";
  return c;
}

// 8x MI300X Infinity Fabric full mesh: 7 links x 64 GB/s; eta 0.70 =
// 312.9/448 (MLENG_NET).
inline ClusterSpec Mi300xCluster(int64_t chips) {
  ClusterSpec c = HgxCluster(chips, 448, 50, 0.70);
  c.name = "mi300x-test";
  c.tiers[0].kind = TierKind::kMesh;
  c.tiers[0].in_network_reduction = false;
  c.tiers[0].in_network_efficiency = 0;
  return c;
}

// One GB200 NVL72 rack (data/clusters/gb200.yaml): 18 NVLink 5 links x 50 GB/s
// = 900 GB/s per GPU through a single-hop non-blocking switch (NV_SUPERPOD_GB200);
// ring efficiency 0.76 = 680/900 (AZURE_BENCH, 4xGB200); half plateau at a
// 4 MB transfer (AZURE_BENCH); 1.9 us per step (NCCL_TUNING, LL128 NVLink);
// expert all-to-all by HybridEP, every peer in flight (HYBRIDEP).
inline ClusterSpec Nvl72Cluster(int64_t chips = 72) {
  ClusterSpec c = HgxCluster(chips, 900, 50, 0.76);
  c.name = "nvl72-test";
  c.tiers[0].size = 72;
  c.tiers[0].half_bandwidth_bytes = Bytes(4e6);
  c.tiers[0].in_network_efficiency = 0.486;
  c.tiers[0].alltoall_all_peers = true;  // HybridEP's kernels (HYBRIDEP)
  if (chips <= 72) c.tiers.resize(1);
  return c;
}

// A TPU slice: torus of `dims` with per-axis wraparound, per-chip bandwidth
// 2 * dims * link (v5p: 6 x 100 GB/s), 1 us per hop (SB_SHARD); ideal
// efficiency so tests can write the scaling-book formulas exactly.
inline ClusterSpec TorusCluster(std::vector<int64_t> dims, std::vector<bool> wrap, double link_gbps,
                                int64_t slices = 1, double dcn_gbps = 6.25) {
  ClusterSpec c;
  c.name = "torus-test";
  int64_t size = 1;
  for (int64_t d : dims) size *= d;
  c.num_chips = size * slices;
  TierSpec ici = IdealTier("ici", TierKind::kTorus, size,
                           link_gbps * 2.0 * static_cast<double>(dims.size()), 1.0);
  ici.torus_dims = std::move(dims);
  ici.torus_wrap = std::move(wrap);
  c.tiers = {ici};
  if (slices > 1) c.tiers.push_back(IdealTier("dcn", TierKind::kDcn, c.num_chips, dcn_gbps, 10.0));
  return c;
}

}  // namespace occam::testing
