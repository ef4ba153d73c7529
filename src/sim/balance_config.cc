// ValidateBalanceConfig: every BalanceConfig field checked with a message that
// names the `occam balance` flag and gives a hint.
#include <cmath>
#include <string>

#include "occam/simulate.h"
#include "sim/balance_router.h"

namespace occam {
namespace {

std::string Str(double v) {
  std::string s = std::to_string(v);
  while (s.size() > 1 && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

Status CheckInt(int64_t v, int64_t lo, int64_t hi, const std::string& flag,
                const std::string& hint) {
  if (v < lo || v > hi) {
    return InvalidInput(flag + " must be in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                        "] (got " + std::to_string(v) + "); " + hint);
  }
  return Status::Ok();
}

Status CheckReal(double v, double lo, double hi, const std::string& flag, const std::string& hint) {
  if (!std::isfinite(v) || v < lo || v > hi) {
    return InvalidInput(flag + " must be a number in [" + Str(lo) + ", " + Str(hi) + "] (got " +
                        Str(v) + "); " + hint);
  }
  return Status::Ok();
}

// Upper bound on routed token-expert scores per run (~10 s on one core).
constexpr double kMaxWork = 2e10;

}  // namespace

Status ValidateBalanceConfig(const BalanceConfig& c) {
  OCCAM_RETURN_IF_ERROR(
      balance::ValidateRouterShape({c.experts, c.top_k, c.groups, c.topk_groups}));
  OCCAM_RETURN_IF_ERROR(CheckInt(c.ep, 1, c.experts, "--ep", "experts are split over EP ranks"));
  if (c.experts % c.ep != 0) {
    return InvalidInput("--ep " + std::to_string(c.ep) + " must divide --experts " +
                        std::to_string(c.experts) + " (experts are split evenly over EP ranks)");
  }
  OCCAM_RETURN_IF_ERROR(CheckInt(c.steps, 1, 1000000, "--steps", "e.g. --steps 2000"));
  OCCAM_RETURN_IF_ERROR(
      CheckInt(c.tokens_per_step, 1, int64_t{1} << 40, "--tokens-per-step", "e.g. 1M"));
  OCCAM_RETURN_IF_ERROR(CheckInt(c.seq_len, 1, int64_t{1} << 24, "--seq-len", "e.g. 4096"));
  OCCAM_RETURN_IF_ERROR(CheckInt(c.microbatch_seqs, 1, int64_t{1} << 20, "--microbatch-seqs",
                                 "sequences per micro-batch, e.g. 1"));
  OCCAM_RETURN_IF_ERROR(CheckInt(c.tokens_per_rank, 1, int64_t{1} << 30, "--tokens-per-rank",
                                 "tokens one EP rank dispatches per micro-batch, e.g. 4096"));
  OCCAM_RETURN_IF_ERROR(CheckInt(c.sample_tokens, 64, 65536, "--sample-tokens",
                                 "routed tokens per simulated step, e.g. 2048"));
  OCCAM_RETURN_IF_ERROR(CheckReal(c.alpha, 0, 1, "--alpha", "aux-loss coefficient, e.g. 0.001"));
  OCCAM_RETURN_IF_ERROR(
      CheckReal(c.bias_rate, 0, 1, "--bias-rate", "aux-free update speed u, e.g. 0.001"));
  OCCAM_RETURN_IF_ERROR(CheckReal(c.zipf_s, 0, 10, "--skew zipf:S", "e.g. zipf:1.2"));
  OCCAM_RETURN_IF_ERROR(CheckReal(c.drift, 0, 1, "--drift", "logits per step, e.g. 0.01"));
  OCCAM_RETURN_IF_ERROR(
      CheckReal(c.lm_stiffness, 1e-12, 1, "--lm-stiffness", "nats/token/logit^2, e.g. 1e-6"));
  const double tokens = std::min<double>(static_cast<double>(c.sample_tokens),
                                         static_cast<double>(c.tokens_per_step) + c.seq_len);
  const double work = static_cast<double>(c.steps) * tokens * static_cast<double>(c.experts);
  if (work > kMaxWork) {
    return InvalidInput("--steps x --sample-tokens x --experts = " + Str(work) +
                        " routed scores exceeds the limit " + Str(kMaxWork) +
                        "; lower --steps or --sample-tokens");
  }
  return Status::Ok();
}

}  // namespace occam
