// `occam balance` output: MaxVio (Wang et al. arXiv:2408.15664 Eq. 4) at the
// start and end of training, globally, per EP rank, and the straggler factor
// an EP layer pays. JSON schema: doc/json-output.md § balance.
#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <string>

#include "occam/report.h"

namespace occam {
namespace {

std::string Routing(const BalanceConfig& c) {
  std::string s = fmt::format("{} experts, top-{}", c.experts, c.top_k);
  if (c.groups > 1 && c.topk_groups < c.groups) {
    s += fmt::format(", at most {} of {} groups per token", c.topk_groups, c.groups);
  }
  return s + fmt::format(", EP {} ({} experts per rank)", c.ep, c.experts / c.ep);
}

std::string MethodLine(const BalanceConfig& c) {
  switch (c.method) {
    case BalanceMethod::kAuxFree:
      return fmt::format("aux-free (bias update rate u = {:g})", c.bias_rate);
    case BalanceMethod::kAuxLoss:
      return fmt::format("aux-loss (alpha = {:g}, f per micro-batch of {} sequence{})", c.alpha,
                         c.microbatch_seqs, c.microbatch_seqs == 1 ? "" : "s");
    case BalanceMethod::kGlobalAuxLoss:
      return fmt::format("global-aux-loss (alpha = {:g}, f over the global batch)", c.alpha);
    case BalanceMethod::kSeqAux:
      return fmt::format("seq-aux (alpha = {:g}, f per sequence)", c.alpha);
    case BalanceMethod::kNone:
      return "none";
  }
  return "";
}

}  // namespace

std::string BalanceText(const BalanceConfig& c, const BalanceResult& r) {
  std::string out = fmt::format("routing:   {}\n", Routing(c));
  out += fmt::format("method:    {}\n", MethodLine(c));
  out += fmt::format(
      "training:  {} steps of {} tokens (sequences of {}), skew zipf:{:g}, drift {:g}, seed {}\n",
      c.steps, c.tokens_per_step, c.seq_len, c.zipf_s, c.drift, c.seed);
  if (r.exact) {
    out += "sampling:  every token routed\n\n";
  } else {
    out += fmt::format(
        "sampling:  {} sequences x {} tokens routed per step, batch fluctuation rescaled\n\n",
        r.sample_seqs, r.sample_tokens_per_seq);
  }
  out += fmt::format("{:<34} {:>10}\n", "metric", "value");
  out +=
      fmt::format("{:<34} {:>10.3f}\n", "MaxVio_batch, first 10% of steps", r.max_vio_batch_first);
  out += fmt::format("{:<34} {:>10.3f}\n", "MaxVio_batch, last 10% of steps", r.max_vio_batch);
  out += fmt::format("{:<34} {:>10.3f}\n", "MaxVio_global, all steps", r.max_vio_global);
  out +=
      fmt::format("{:<34} {:>10.3f}\n", "MaxVio_global, last 10% of steps", r.max_vio_global_final);
  out +=
      fmt::format("{:<34} {:>10.3f}\n", "EP rank load max/mean (batch)", r.rank_load_max_over_mean);
  out += fmt::format("{:<34} {:>10.3f}\n", "straggler factor (per all-to-all)", r.straggler_factor);
  if (c.method == BalanceMethod::kAuxFree) {
    out += fmt::format("{:<34} {:>10.4f}\n", "max |bias| over training", r.bias_abs_max);
  }
  out += fmt::format(
      "\nMaxVio = (max load - mean load) / mean load over experts (Wang et al. Eq. 4).\n"
      "straggler factor: expected max/mean rank load of one all-to-all of {} x {} tokens;\n"
      "an EP layer's expert GEMMs and receive volume scale with it.\n",
      c.ep, c.tokens_per_rank);
  if (c.method == BalanceMethod::kGlobalAuxLoss) {
    out +=
        "note: an exact global-batch aux loss needs every micro-batch's forward before any\n"
        "backward: pipeline schedules are restricted to all-forward-all-backward.\n";
  }
  return out;
}

std::string BalanceJson(const BalanceConfig& c, const BalanceResult& r) {
  nlohmann::json j;
  j["experts"] = c.experts;
  j["top_k"] = c.top_k;
  j["groups"] = c.groups;
  j["topk_groups"] = c.topk_groups;
  j["ep"] = c.ep;
  j["method"] = std::string(BalanceMethodName(c.method));
  j["alpha"] = c.alpha;
  j["bias_rate"] = c.bias_rate;
  j["steps"] = c.steps;
  j["tokens_per_step"] = c.tokens_per_step;
  j["seq_len"] = c.seq_len;
  j["tokens_per_rank"] = c.tokens_per_rank;
  j["zipf_s"] = c.zipf_s;
  j["drift"] = c.drift;
  j["seed"] = c.seed;
  j["exact"] = r.exact;
  j["sample_seqs"] = r.sample_seqs;
  j["sample_tokens_per_seq"] = r.sample_tokens_per_seq;
  j["max_vio_batch"] = r.max_vio_batch;
  j["max_vio_batch_first"] = r.max_vio_batch_first;
  j["max_vio_global"] = r.max_vio_global;
  j["max_vio_global_final"] = r.max_vio_global_final;
  j["rank_load_max_over_mean"] = r.rank_load_max_over_mean;
  j["straggler_factor"] = r.straggler_factor;
  j["bias_abs_max"] = r.bias_abs_max;
  j["requires_all_forward_first"] = c.method == BalanceMethod::kGlobalAuxLoss;
  nlohmann::json series = nlohmann::json::array();
  for (const BalanceStep& s : r.series) {
    series.push_back({{"step", s.step},
                      {"max_vio_batch", s.max_vio_batch},
                      {"rank_load_max_over_mean", s.rank_load_max_over_mean},
                      {"straggler", s.straggler},
                      {"bias_abs_max", s.bias_abs_max},
                      {"displacement_abs_max", s.displacement_abs_max}});
  }
  j["series"] = std::move(series);
  return j.dump(2) + "\n";
}

std::string BalanceCsv(const BalanceResult& r) {
  std::string out =
      "step,max_vio_batch,rank_load_max_over_mean,straggler,bias_abs_max,displacement_abs_max\n";
  for (const BalanceStep& s : r.series) {
    out +=
        fmt::format("{},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g}\n", s.step, s.max_vio_batch,
                    s.rank_load_max_over_mean, s.straggler, s.bias_abs_max, s.displacement_abs_max);
  }
  return out;
}

}  // namespace occam
