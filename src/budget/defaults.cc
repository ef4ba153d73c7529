// Defaults of the whole-run model. Each value carries the source that
// doc/budget.md § Defaults gives in full; source IDs as in
// doc/input-formats.md (chips) and doc/budget.md (runs, failures, energy).
#include "budget/defaults.h"

#include <string_view>

namespace occam::budget {
namespace {

struct ChipPower {
  std::string_view key;
  double watts;
  std::string_view source;
};

// Chip power: TDP or maximum board power as the vendor or a system
// description states it (hardware reference §1).
constexpr ChipPower kChipPower[] = {
    {"a100", 400, "NVIDIA A100 SXM 400 W max TDP (NV_A100, MLENG_ACCEL)"},
    {"a100-40g", 400, "NVIDIA A100 SXM 400 W max TDP (NV_A100, MLENG_ACCEL)"},
    {"h100", 700, "NVIDIA H100 SXM 700 W TDP (NV_H100; Llama 3.1 model card)"},
    {"h100-96g", 500, "H100 96 GB at its 500 W cap (TORCHTITAN_PERF)"},
    {"h800", 700, "assumed equal to H100 SXM 700 W (no H800 datasheet retrieved)"},
    {"h200", 700, "H200 SXM 700 W TGP (MLPERF_H200 system description)"},
    {"b200", 1000, "B200 1000 W TGP (MLPERF_B200 system description)"},
    {"gb200", 1200, "GB200 1200 W per GPU maximum (MLENG_ACCEL)"},
    {"gb300", 1400, "GB300 1400 W per GPU (NVIDIA rack planning example; MLENG_ACCEL)"},
    {"mi300x", 750, "AMD MI300X 750 W peak typical board power (AMD_MI300X)"},
    {"mi325x", 1000, "AMD MI325X 1000 W peak typical board power (AMD_MI325X)"},
    {"mi355x", 1400, "AMD MI355X 1400 W board power (TH_MI355X)"},
    {"tpu-v4", 192,
     "TPU v4 192 W measured max (90/170/192 W min/mean/max; Jouppi et al. ISCA 2023)"},
};

struct ChipNode {
  std::string_view key;
  double chips;
  std::string_view source;
};

constexpr ChipNode kChipsPerNode[] = {
    {"gb200", 4, "NVL72 compute tray: 4 GPUs (NV_GB200)"},
    {"gb300", 4, "NVL72 compute tray: 4 GPUs (NV_GB300 rack planning example)"},
    {"tpu-v4", 4, "4 chips per TPU v4 host (GC_V4)"},
    {"tpu-v5p", 4, "4 chips per TPU v5p host (GC_V5P)"},
    {"tpu-v5e", 8, "8 chips per TPU v5e host (GC_V5E)"},
    {"tpu-v6e", 8, "8 chips per TPU v6e host (GC_V6E)"},
};

}  // namespace

std::optional<Cited> DefaultChipWatts(const ChipSpec& chip) {
  for (const auto& p : kChipPower) {
    if (p.key == chip.key) return Cited{p.watts, std::string(p.source)};
  }
  return std::nullopt;
}

Cited DefaultChipsPerNode(const ChipSpec& chip) {
  for (const auto& n : kChipsPerNode) {
    if (n.key == chip.key) return {n.chips, std::string(n.source)};
  }
  if (chip.is_tpu) return {4, "assumed 4 chips per host, as TPU v4/v5p (GC_V4, GC_V5P)"};
  return {8, "8-GPU server (HGX/DGX baseboard; Llama 3's 8-GPU nodes, L3 §3.3)"};
}

Cited DefaultPue(const ChipSpec& chip) {
  if (chip.is_tpu) return {1.10, "Google fleet PUE 2023 (GOOG_ENV24)"};
  return {1.58, "industry average PUE 2023, Uptime Institute survey (UPTIME)"};
}

Cited DefaultHostPowerShare() {
  // SemiAnalysis: a 24K-H100 cluster draws ~30 MW IT, ~1.25 kW per GPU all-in
  // (host, network, storage): 1.25 / 0.7 - 1 = 0.79.
  return {0.79, "1.25 kW IT per 700 W H100 in a 24K-GPU cluster (SemiAnalysis, via SEMI_POWER)"};
}

Cited DefaultBusyPowerFraction() {
  return {1.0, "chip-hours x TDP, the Llama 2/3.1 model-card and BLOOM convention (L31_MC, L2_MC)"};
}

Cited DefaultWaitPowerFraction() {
  return {1.0, "chip-hours x TDP, the model-card convention (L31_MC); set lower for idle chips"};
}

// Llama 3 (arXiv:2407.21783 §3.3.4, Table 5): 419 unexpected interruptions
// in 54 days on 16,384 H100 = 21,233,664 GPU-hours in 2,048 8-GPU nodes.
// GPU rows (faulty GPU 148, HBM3 72, SRAM 19, system processor 17, silent
// data corruption 6, thermal interface 6) = 268 per GPU-hour; the other 151
// (software, network, host, NIC, ...) per node-hour.
Cited DefaultChipFailuresPerHour() {
  return {268.0 / (16384.0 * 54 * 24),
          "Llama 3 405B: 268 GPU-class interruptions / 21,233,664 H100-hours (L3 Table 5)"};
}

Cited DefaultNodeFailuresPerHour() {
  return {
      151.0 / (2048.0 * 54 * 24),
      "Llama 3 405B: 151 other unexpected interruptions / (2,048 nodes x 1,296 h) (L3 Table 5)"};
}

Cited DefaultStorageGbps() {
  return {2000, "Llama 3 Tectonic storage: 2 TB/s sustained (L3 §3.3.1)"};
}

Cited DefaultRestartOverheadS() {
  return {600, "failure detection by the ~10 min default collective timeout (BYTEROBUST)"};
}

Cited DefaultAsyncStallS() {
  return {0.78, "PyTorch DCP async save, staging 0.78 s (Llama3-70B, 1,856 H200; PT_6X)"};
}

Cited DefaultSpareFraction() { return {0, "no spares billed (BLOOM kept 7.7%, BLOOM_TR11)"}; }

}  // namespace occam::budget
