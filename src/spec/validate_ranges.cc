// Plausible ranges of the physical and job inputs, and the cluster and job
// validators built on them. Every bound and its reason is listed in
// doc/input-formats.md § Ranges; a value outside its range is an input error
// naming the key (or the CLI flag) and the range, so no estimate is computed
// from an absurd number and every printed result stays finite.
#include <fmt/format.h>

#include <array>
#include <cmath>
#include <string>

#include "occam/ranges.h"
#include "occam/spec.h"

namespace occam {
namespace {

// Clusters larger than this are typos (and would overflow chip products).
constexpr int64_t kMaxChips = int64_t{1} << 24;

struct RangeRule {
  std::string_view key;
  double lo;
  double hi;
  bool zero_allowed;  // 0 means "not set / derive it"
};

// Reasons: doc/input-formats.md § Ranges. Units are those of the file keys.
constexpr std::array kRules = {
    RangeRule{"cluster.num_chips", 1, double(kMaxChips), false},
    RangeRule{"cluster.chip.bf16_tflops", 1e-3, 1e6, false},
    RangeRule{"cluster.chip.fp8_tflops", 1e-3, 1e6, false},
    RangeRule{"cluster.chip.hbm_gb", 1, 1e5, false},
    RangeRule{"cluster.chip.hbm_tbps", 1e-4, 1e4, false},
    RangeRule{"cluster.chip.gemm_efficiency", 0.01, 1, false},
    RangeRule{"cluster.chip.gemm_half_tokens", 0, 1e6, false},
    RangeRule{"cluster.tiers[].size", 1, double(kMaxChips), false},
    RangeRule{"cluster.tiers[].bandwidth_gbps", 0.01, 1e5, false},
    RangeRule{"cluster.tiers[].latency_us", 0, 1e5, false},
    RangeRule{"cluster.tiers[].efficiency", 0.01, 1.5, false},
    RangeRule{"cluster.tiers[].oversubscription", 1, 1e3, false},
    RangeRule{"cluster.tiers[].half_bandwidth_mb", 1e-6, 1e4, false},
    RangeRule{"cluster.tiers[].in_network_efficiency", 0, 1.5, false},
    RangeRule{"job.seq_len", 1, double(int64_t{1} << 26), false},
    RangeRule{"job.global_batch_seqs", 0, double(int64_t{1} << 30), false},
    RangeRule{"job.moe_imbalance", 1, 1024, true},
    RangeRule{"job.capacity_factor", 1, 1024, true},
    RangeRule{"job.memory_headroom", 0, 0.99, false},
};

// Whole numbers in full (67108864, not 6.71089e+07); others with 6 digits.
std::string Num(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15)
    return fmt::format("{:.0f}", v);
  return fmt::format("{:g}", v);
}

Status ValidateChip(const ChipSpec& chip, const std::string& o) {
  const std::string at = o + "cluster.chip.";
  OCCAM_RETURN_IF_ERROR(CheckInputRange("cluster.chip.bf16_tflops", chip.peak_bf16.value() / 1e12,
                                        at + "bf16_tflops"));
  OCCAM_RETURN_IF_ERROR(
      CheckInputRange("cluster.chip.fp8_tflops", chip.peak_fp8.value() / 1e12, at + "fp8_tflops"));
  OCCAM_RETURN_IF_ERROR(
      CheckInputRange("cluster.chip.hbm_gb", chip.hbm.value() / 1e9, at + "hbm_gb"));
  OCCAM_RETURN_IF_ERROR(
      CheckInputRange("cluster.chip.hbm_tbps", chip.hbm_bandwidth.value() / 1e12, at + "hbm_tbps"));
  OCCAM_RETURN_IF_ERROR(CheckInputRange("cluster.chip.gemm_efficiency", chip.gemm_efficiency,
                                        at + "gemm_efficiency"));
  return CheckInputRange("cluster.chip.gemm_half_tokens", chip.gemm_half_tokens,
                         at + "gemm_half_tokens");
}

Status ValidateTierValues(const TierSpec& t, const std::string& at) {
  for (auto [key, v] : {std::pair<std::string_view, double>{"size", double(t.size)},
                        {"bandwidth_gbps", t.bandwidth.value() / 1e9},
                        {"latency_us", t.latency.value() * 1e6},
                        {"efficiency", t.efficiency},
                        {"oversubscription", t.oversubscription},
                        {"half_bandwidth_mb", t.half_bandwidth_bytes.value() / 1e6},
                        {"in_network_efficiency", t.in_network_efficiency}}) {
    OCCAM_RETURN_IF_ERROR(
        CheckInputRange("cluster.tiers[]." + std::string(key), v, at + "." + std::string(key)));
  }
  return Status::Ok();
}

Status ValidateTierNesting(const ClusterSpec& c, size_t i, const std::string& at) {
  const TierSpec& t = c.tiers[i];
  const bool last = i + 1 == c.tiers.size();
  if (!last && t.size > c.num_chips) {
    return InvalidInput(at + ".size (" + std::to_string(t.size) + ") exceeds num_chips (" +
                        std::to_string(c.num_chips) +
                        "); only the outermost tier may be larger than the cluster");
  }
  if (!last && c.tiers[i + 1].size % t.size != 0) {
    return InvalidInput(at + ".size (" + std::to_string(t.size) +
                        ") must divide the next tier's size (" +
                        std::to_string(c.tiers[i + 1].size) + "); tiers nest, innermost first");
  }
  if (last && t.size < c.num_chips) {
    return InvalidInput(at + ".size (" + std::to_string(t.size) + ") is smaller than num_chips (" +
                        std::to_string(c.num_chips) +
                        "); the outermost tier must span the cluster");
  }
  if (t.kind == TierKind::kTorus) {
    int64_t product = 1;
    for (int64_t d : t.torus_dims) {
      product = d >= 1 && d <= t.size / product ? product * d : -1;  // no overflow
      if (product < 0) break;
    }
    if (t.torus_dims.empty() || product != t.size || t.torus_wrap.size() != t.torus_dims.size()) {
      return InvalidInput(at + ".torus_dims must multiply to size (" + std::to_string(t.size) +
                          ") with one torus_wrap flag per axis");
    }
  }
  return Status::Ok();
}

}  // namespace

Status CheckInputRange(std::string_view key, double value, const std::string& name) {
  for (const RangeRule& r : kRules) {
    if (r.key != key) continue;
    if ((value >= r.lo && value <= r.hi) || (r.zero_allowed && value == 0)) return Status::Ok();
    return InvalidInput(fmt::format(
        "{} must be {}in [{}, {}] (got {}); see the ranges in "
        "doc/input-formats.md",
        name, r.zero_allowed ? "0 (derive it) or " : "", Num(r.lo), Num(r.hi), Num(value)));
  }
  return Internal("no input range for '" + std::string(key) + "'");
}

Status ValidateCluster(const ClusterSpec& c, std::string_view origin) {
  const std::string o = std::string(origin) + ": ";
  OCCAM_RETURN_IF_ERROR(
      CheckInputRange("cluster.num_chips", double(c.num_chips), o + "cluster.num_chips"));
  OCCAM_RETURN_IF_ERROR(ValidateChip(c.chip, o));
  if (c.tiers.empty()) return InvalidInput(o + "cluster.tiers must list at least one tier");
  for (size_t i = 0; i < c.tiers.size(); ++i) {
    const std::string at = o + "cluster.tiers[" + std::to_string(i) + "]";
    OCCAM_RETURN_IF_ERROR(ValidateTierValues(c.tiers[i], at));
    OCCAM_RETURN_IF_ERROR(ValidateTierNesting(c, i, at));
  }
  return Status::Ok();
}

Status ValidateJob(const JobSpec& j, std::string_view origin) {
  const std::string o = std::string(origin) + ": job.";
  for (auto [key, v] : {std::pair<std::string_view, double>{"seq_len", double(j.seq_len)},
                        {"global_batch_seqs", double(j.global_batch_seqs)},
                        {"moe_imbalance", j.moe_imbalance},
                        {"capacity_factor", j.capacity_factor},
                        {"memory_headroom", j.memory_headroom}}) {
    OCCAM_RETURN_IF_ERROR(CheckInputRange("job." + std::string(key), v, o + std::string(key)));
  }
  return Status::Ok();
}

}  // namespace occam
