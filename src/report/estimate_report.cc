// occam estimate: text and JSON rendering of one layout's estimate.
// JSON schema: doc/json-output.md § estimate.
#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "occam/cost.h"
#include "occam/memory_error.h"
#include "occam/report.h"

namespace occam {
namespace {

using nlohmann::json;

std::string Billions(int64_t n) { return fmt::format("{:.2f}B", static_cast<double>(n) / 1e9); }

std::string ParamsLine(const Estimate& e, const ModelSpec& model) {
  const ParamCounts c = CountParams(model);
  std::string s =
      fmt::format("{} total, {} active", Billions(e.params_total), Billions(e.params_active));
  if (c.mtp > 0) {
    s += fmt::format(" (MTP modules not included: +{} total, +{} active; HF checkpoint {})",
                     Billions(c.mtp), Billions(c.mtp_active),
                     Billions(e.params_total + c.mtp + c.embedding + c.lm_head));
  }
  return s;
}

std::string JobLine(const JobSpec& job, const ModelSpec& model) {
  std::string s = fmt::format(
      "seq {}, {} seqs/step ({:.2f}M tokens), {}", job.seq_len, job.global_batch_seqs,
      static_cast<double>(job.global_batch_tokens()) / 1e6, PrecisionName(job.precision));
  if (model.moe) s += fmt::format(", {} balancing", BalanceMethodName(job.balance));
  return s;
}

std::string MemoryText(const Estimate& e) {
  const MemoryBreakdown& m = e.memory;
  std::string s = "memory per chip (most loaded device)\n";
  const struct {
    const char* name;
    Bytes b;
  } rows[] = {{"weights", m.weights},         {"grads", m.grads},   {"optimizer", m.optimizer},
              {"activations", m.activations}, {"logits", m.logits}, {"other", m.other}};
  for (const auto& r : rows) s += fmt::format("  {:<14}{:>12}\n", r.name, FormatBytes(r.b));
  const std::string verdict =
      e.fits ? fmt::format("fits ({} usable)", FormatBytes(e.memory_capacity))
             : fmt::format("does not fit (needs {}, chip has {} usable)", FormatBytes(m.total()),
                           FormatBytes(e.memory_capacity));
  s += fmt::format("  {:<14}{:>12}  {}\n", "total", FormatBytes(m.total()), verdict);
  // Headroom and the verdict in the light of the validated error
  // (occam/memory_error.h, doc/validation.md "Memory per chip").
  const double headroom = e.memory_capacity.value() - m.total().value();
  s += fmt::format("  {:<14}{:>12}  {} (validated memory error +-{:.0f}%)\n", "headroom",
                   (headroom < 0 ? "-" : "") + FormatBytes(Bytes(std::fabs(headroom))),
                   MemoryFitName(ClassifyMemoryFit(m.total(), e.memory_capacity)),
                   100.0 * kMemoryErrorBand);
  return s;
}

std::string BreakdownText(const Estimate& e) {
  std::string s = "time breakdown (per step, slowest pipeline device)\n";
  s += fmt::format("  {:<36}{:<6}{:<10}{:>12}{:>12}{:>8}\n", "what", "axis", "tier", "total",
                   "exposed", "share");
  const double step = e.step_time.value();
  for (const TimeItem& i : e.breakdown) {
    s += fmt::format("  {:<36}{:<6}{:<10}{:>12}{:>12}{:>7.1f}%\n", i.what, i.axis, i.tier,
                     FormatSeconds(i.total), FormatSeconds(i.exposed),
                     step > 0 ? 100.0 * i.exposed.value() / step : 0.0);
  }
  return s;
}

}  // namespace

std::string EstimateText(const Estimate& e, const ModelSpec& model, const ClusterSpec& cluster,
                         const JobSpec& job) {
  std::string s;
  s += fmt::format("{:<10}{} on {} x {} ({})\n", "estimate", model.name, cluster.name,
                   cluster.num_chips,
                   cluster.chip.name.empty() ? cluster.chip.key : cluster.chip.name);
  s += fmt::format("{:<10}{}\n", "plan", FormatPlan(e.plan));
  s += fmt::format("{:<10}{}\n", "params", ParamsLine(e, model));
  s += fmt::format("{:<10}{}\n\n", "job", JobLine(job, model));
  s += fmt::format("{:<22}{}\n", "step time", FormatSeconds(e.step_time));
  s += fmt::format("{:<22}{:.0f} total, {:.1f} per chip\n", "tokens/s", e.tokens_per_s,
                   e.tokens_per_s_per_chip);
  s += fmt::format("{:<22}{:.1f}\n", "model TFLOP/s/chip", e.model_flops_per_chip.value() / 1e12);
  s += fmt::format("{:<22}{:.1f}% / {:.1f}%\n", "MFU / HFU", 100 * e.mfu, 100 * e.hfu);
  s += fmt::format("{:<22}{:.4g} GFLOP\n\n", "model FLOPs/token",
                   e.model_flops_per_token.value() / 1e9);
  s += MemoryText(e) + "\n";
  s += BreakdownText(e) + "\n";
  s += fmt::format("bottleneck: {}\n", e.bottleneck);
  if (!e.assumptions.empty()) {
    s += "assumptions:\n";
    for (const std::string& a : e.assumptions) s += "  - " + a + "\n";
  }
  return s;
}

std::string EstimateJson(const Estimate& e, const ModelSpec& model, const ClusterSpec& cluster,
                         const JobSpec& job) {
  const ParamCounts c = CountParams(model);
  const MemoryBreakdown& m = e.memory;
  json breakdown = json::array();
  for (const TimeItem& i : e.breakdown) {
    breakdown.push_back({{"what", i.what},
                         {"axis", i.axis},
                         {"tier", i.tier},
                         {"total_s", i.total.value()},
                         {"exposed_s", i.exposed.value()}});
  }
  json j = {
      {"model", model.name},
      {"cluster", cluster.name},
      {"chip", cluster.chip.key},
      {"chips", cluster.num_chips},
      {"plan", FormatPlan(e.plan)},
      {"job",
       {{"seq_len", job.seq_len},
        {"global_batch_seqs", job.global_batch_seqs},
        {"global_batch_tokens", job.global_batch_tokens()},
        {"precision", PrecisionName(job.precision)},
        {"balance", BalanceMethodName(job.balance)},
        {"attention", AttentionImplName(job.attention)},
        {"cross_entropy", CrossEntropyImplName(job.cross_entropy)},
        {"dropout", job.dropout},
        {"overlap_grad_reduce", job.overlap_grad_reduce},
        {"grad_accumulation_fusion", job.grad_accumulation_fusion},
        {"tp_comm_overlap", job.tp_comm_overlap},
        {"moe_host_sync", job.moe_host_sync},
        {"fsdp_per_tensor", job.fsdp_per_tensor},
        {"fsdp_overlap", job.fsdp_overlap},
        {"fp8_output_proj", job.fp8_output_proj},
        {"fp8_dynamic_scaling", job.fp8_dynamic_scaling}}},
      {"step_time_s", e.step_time.value()},
      {"tokens_per_s", e.tokens_per_s},
      {"tokens_per_s_per_chip", e.tokens_per_s_per_chip},
      {"model_tflops_per_chip", e.model_flops_per_chip.value() / 1e12},
      {"mfu", e.mfu},
      {"hfu", e.hfu},
      {"model_flops_per_token", e.model_flops_per_token.value()},
      {"params_total", e.params_total},
      {"params_active", e.params_active},
      {"params_mtp", c.mtp},
      {"params_include_mtp", false},
      {"memory_per_chip_bytes",
       {{"weights", m.weights.value()},
        {"grads", m.grads.value()},
        {"optimizer", m.optimizer.value()},
        {"activations", m.activations.value()},
        {"logits", m.logits.value()},
        {"other", m.other.value()},
        {"total", m.total().value()}}},
      {"memory_capacity_bytes", e.memory_capacity.value()},
      {"memory_headroom_bytes", e.memory_capacity.value() - m.total().value()},
      {"memory_fit", MemoryFitName(ClassifyMemoryFit(m.total(), e.memory_capacity))},
      {"memory_error_band", kMemoryErrorBand},
      {"fits", e.fits},
      {"bubble_s", e.bubble.value()},
      {"breakdown_s", breakdown},
      {"bottleneck", e.bottleneck},
      {"assumptions", e.assumptions},
  };
  return j.dump(2);
}

}  // namespace occam
