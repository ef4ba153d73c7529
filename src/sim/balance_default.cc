// Default EP rank imbalance for the step layer, and the receive-buffer rule
// (doc/cost-model.md §8.5).
#include <algorithm>
#include <tuple>

#include "occam/simulate.h"

namespace occam {
namespace {

// The reduced simulation behind DefaultMoeImbalance: long enough for the
// aux-free bias (u = 1e-3) to absorb the zipf-1 popularity spread from a
// cold start, with the fluctuation rebuilt for the job's all-to-all group.
constexpr int64_t kDefaultSteps = 250;
constexpr int64_t kDefaultSampleTokens = 128;
constexpr double kDefaultZipf = 1.0;
constexpr uint64_t kDefaultSeed = 1;

auto Key(const MoeImbalanceQuery& q) {
  return std::make_tuple(static_cast<int>(q.method), q.experts, q.top_k, q.ep, q.tokens_per_rank,
                         q.groups, q.topk_groups, q.seq_len);
}

}  // namespace

bool MoeImbalanceQuery::operator<(const MoeImbalanceQuery& o) const { return Key(*this) < Key(o); }

Result<double> DefaultMoeImbalance(const MoeImbalanceQuery& q) {
  if (q.ep == 1) return 1.0;
  BalanceConfig c;
  c.experts = q.experts;
  c.top_k = q.top_k;
  c.groups = q.groups;
  c.topk_groups = q.topk_groups;
  c.ep = q.ep;
  c.method = q.method;
  c.alpha = q.method == BalanceMethod::kSeqAux ? 1e-4 : 1e-3;  // DeepSeek-V3 §4.2; Wang et al.
  c.steps = kDefaultSteps;
  c.seq_len = q.seq_len;
  c.tokens_per_rank = q.tokens_per_rank;
  // A global batch large against the all-to-all group, so the bias/aux
  // feedback sees the batch-level load and the group adds its own noise.
  c.tokens_per_step = std::max<int64_t>(q.ep * q.tokens_per_rank * 16, int64_t{1} << 20);
  c.zipf_s = kDefaultZipf;
  c.sample_tokens = kDefaultSampleTokens;
  c.seed = kDefaultSeed;
  OCCAM_ASSIGN_OR_RETURN(BalanceResult r, SimulateBalance(c));
  return r.straggler_factor;
}

Result<double> MoeImbalanceCache::Get(const MoeImbalanceQuery& query) {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), query,
                             [](const auto& e, const MoeImbalanceQuery& q) { return e.first < q; });
  if (it != entries_.end() && !(query < it->first)) return it->second;
  ++misses_;
  OCCAM_ASSIGN_OR_RETURN(double lambda, DefaultMoeImbalance(query));
  entries_.insert(it, {query, lambda});
  return lambda;
}

double MoeReceiveBufferFactor(double lambda, double capacity_factor) {
  return capacity_factor > 0 ? capacity_factor : std::max(1.0, lambda);
}

}  // namespace occam
