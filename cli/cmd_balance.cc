// occam balance: MoE routing balance over training steps (SimulateBalance).
//
//   occam balance --experts 256 --topk 8 --groups 8 --topk-groups 4 --ep 64
//     --method aux-free --steps 2000 --tokens-per-step 1M --skew zipf:1.2
//     [--alpha 0.001] [--bias-rate 0.001] [--seed N] [--json] [--csv series.csv]
#include <cmath>
#include <cstdio>
#include <string>

#include "cli/commands.h"
#include "cli/common.h"
#include "occam/report.h"
#include "occam/simulate.h"

namespace occam::cli {
namespace {

struct BalanceFlags {
  BalanceConfig config;
  std::string method = "aux-free";
  std::string tokens_per_step = "1M";
  std::string skew = "zipf:1.0";
  std::string alpha;  // empty: the method's default
  std::string csv;
  bool json = false;
};

// "zipf:1.2" -> 1.2; "uniform" -> 0.
Result<double> ParseSkew(const std::string& text) {
  if (text == "uniform") return 0.0;
  const std::string prefix = "zipf:";
  if (text.rfind(prefix, 0) == 0) {
    const std::string num = text.substr(prefix.size());
    size_t pos = 0;
    double s = -1;
    try {
      s = std::stod(num, &pos);
    } catch (...) {
      pos = 0;
    }
    if (pos == num.size() && !num.empty() && std::isfinite(s) && s >= 0) return s;
  }
  return InvalidInput("--skew: '" + Echo(text) +
                      "' is not zipf:S with S >= 0 or 'uniform' (e.g. zipf:1.2)");
}

Result<BalanceConfig> BuildConfig(const BalanceFlags& f) {
  BalanceConfig c = f.config;
  const auto method = ParseBalanceMethodName(f.method);
  if (!method) {
    return InvalidInput("--method: '" + Echo(f.method) +
                        "' is not one of aux-free, aux-loss, global-aux-loss, seq-aux, none");
  }
  c.method = *method;
  // Defaults: alpha = 1e-3 (Wang et al. loss-controlled baseline), 1e-4 for
  // the sequence-wise loss (DeepSeek-V3 §4.2).
  c.alpha = c.method == BalanceMethod::kSeqAux ? 1e-4 : 1e-3;
  if (!f.alpha.empty()) {
    OCCAM_ASSIGN_OR_RETURN(c.alpha, ParseNumberFlag(f.alpha, "--alpha"));
  }
  OCCAM_ASSIGN_OR_RETURN(double tokens, ParseScaled(f.tokens_per_step, "--tokens-per-step"));
  if (tokens > 1e12) return InvalidInput("--tokens-per-step must be <= 1T");
  c.tokens_per_step = static_cast<int64_t>(std::llround(tokens));
  if (c.tokens_per_step < 1) return InvalidInput("--tokens-per-step must be >= 1");
  OCCAM_ASSIGN_OR_RETURN(c.zipf_s, ParseSkew(f.skew));
  OCCAM_RETURN_IF_ERROR(ValidateBalanceConfig(c));
  return c;
}

Status Run(const BalanceFlags& f, CommandOutput& output) {
  OCCAM_ASSIGN_OR_RETURN(BalanceConfig config, BuildConfig(f));
  OCCAM_ASSIGN_OR_RETURN(BalanceResult result, SimulateBalance(config));
  if (!f.csv.empty()) OCCAM_RETURN_IF_ERROR(WriteOutputFile(f.csv, BalanceCsv(result), "--csv"));
  output.out += f.json ? BalanceJson(config, result) : BalanceText(config, result);
  return Status::Ok();
}

}  // namespace

void RegisterBalance(CLI::App& app, CommandOutput* output) {
  auto flags = std::make_shared<BalanceFlags>();
  BalanceConfig& c = flags->config;
  auto* cmd = app.add_subcommand("balance", "MoE balancing methods over training steps");
  cmd->add_option("--experts", c.experts, "routed experts")->capture_default_str();
  cmd->add_option("--topk", c.top_k, "experts per token")->capture_default_str();
  cmd->add_option("--groups", c.groups, "expert groups (nodes) for group-limited routing")
      ->capture_default_str();
  cmd->add_option("--topk-groups", c.topk_groups, "groups a token may use")->capture_default_str();
  cmd->add_option("--ep", c.ep, "expert-parallel ranks")->capture_default_str();
  cmd->add_option("--method", flags->method, "aux-free, aux-loss, global-aux-loss, seq-aux or none")
      ->capture_default_str();
  cmd->add_option("--steps", c.steps, "training steps")->capture_default_str();
  cmd->add_option("--tokens-per-step", flags->tokens_per_step, "global batch in tokens (1M, 4M)")
      ->capture_default_str();
  cmd->add_option("--seq-len", c.seq_len, "tokens per sequence")->capture_default_str();
  cmd->add_option("--skew", flags->skew, "expert popularity: zipf:S or uniform")
      ->capture_default_str();
  cmd->add_option("--drift", c.drift, "popularity drift per step (logits)")->capture_default_str();
  cmd->add_option("--alpha", flags->alpha, "aux-loss coefficient (default 1e-3; 1e-4 for seq-aux)");
  cmd->add_option("--bias-rate", c.bias_rate, "aux-free bias update speed u")
      ->capture_default_str();
  cmd->add_option("--microbatch-seqs", c.microbatch_seqs, "sequences per micro-batch (aux-loss)")
      ->capture_default_str();
  cmd->add_option("--tokens-per-rank", c.tokens_per_rank,
                  "tokens one EP rank dispatches per micro-batch (straggler factor)")
      ->capture_default_str();
  cmd->add_option("--lm-stiffness", c.lm_stiffness,
                  "LM loss curvature per expert logit shift (aux losses)")
      ->capture_default_str();
  cmd->add_option("--sample-tokens", c.sample_tokens, "tokens routed per simulated step")
      ->capture_default_str();
  cmd->add_option("--seed", c.seed, "random seed")->capture_default_str();
  cmd->add_flag("--json", flags->json, "print one JSON object");
  cmd->add_option("--csv", flags->csv, "write the per-step series as CSV to this file");
  cmd->callback([flags, output] { output->Finish(Run(*flags, *output)); });
}

}  // namespace occam::cli
