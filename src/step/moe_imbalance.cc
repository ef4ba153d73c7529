// The routing imbalance (max/mean expert load) a plan's EP ranks see,
// memoised per StepModel: `lambda_cache` runs the balance simulation once per
// routing shape (src/sim/balance*), and a lock-free table keyed by
// (ep, tokens per rank) answers the repeats of a search. Sources:
// doc/cost-model.md §8.
#include <algorithm>
#include <cstdint>
#include <mutex>

#include "step/step_core.h"

namespace occam {

double StepModel::Impl::Lambda(const PlanSpec& plan) const {
  const double routed = RoutedLambda(plan);
  // Token dropping (GShard arXiv:2006.16668 §2.2, Switch Transformer
  // arXiv:2101.03961 §2.2): an expert takes at most capacity_factor x its
  // mean share, so no rank computes or receives more.
  return job.capacity_factor > 0 ? std::min(routed, job.capacity_factor) : routed;
}

double StepModel::Impl::RoutedLambda(const PlanSpec& plan) const {
  if (job.moe_imbalance > 0) return job.moe_imbalance;
  if (!model.moe || plan.ep <= 1) return 1.0;
  MoeImbalanceQuery q;
  q.method = job.balance;
  q.experts = model.moe->num_experts;
  q.top_k = model.moe->top_k;
  q.ep = plan.ep;
  // Tokens one EP rank routes per micro-batch (its sequence-parallel shard).
  q.tokens_per_rank = std::max<int64_t>(1, plan.mbs * job.seq_len / (plan.cp * plan.tp));
  q.groups = model.moe->num_groups;
  q.topk_groups = model.moe->topk_groups;
  q.seq_len = job.seq_len;
  // Key: ep in the high 24 bits, tokens per rank in the low 40 (never 0:
  // ep > 1); keys that do not fit skip the memo.
  constexpr int kShift = 40;
  const bool packable = q.ep < (int64_t{1} << 23) && q.tokens_per_rank < (int64_t{1} << kShift);
  const uint64_t key =
      (static_cast<uint64_t>(q.ep) << kShift) | static_cast<uint64_t>(q.tokens_per_rank);
  auto simulate = [&] {
    const std::lock_guard<std::mutex> lock(lambda_mu);
    const Result<double> r = lambda_cache.Get(q);
    // The query is valid for every plan that passed ValidatePlan; a failed
    // simulation falls back to balanced routing (stated in the assumptions).
    return r.ok() ? *r : 1.0;
  };
  if (!packable) return simulate();
  const size_t home = static_cast<size_t>((key * 0x9E3779B97F4A7C15ULL) >> 54);
  return lambda_memo.Get(home, key, simulate);
}

}  // namespace occam
