// Default EP rank imbalance for the step layer, its cache, and the
// receive-buffer rule (doc/cost-model.md §8.5-8.6).
#include <algorithm>
#include <tuple>
#include <utility>

#include "occam/simulate.h"
#include "sim/balance_internal.h"

namespace occam {
namespace {

// The reduced simulation behind DefaultMoeImbalance: long enough for the
// aux-free bias (u = 1e-3) to absorb the zipf-1 popularity spread from a
// cold start, with the fluctuation rebuilt for the job's all-to-all group.
constexpr int64_t kDefaultSteps = 250;
constexpr int64_t kDefaultSampleTokens = 128;
constexpr double kDefaultZipf = 1.0;
constexpr uint64_t kDefaultSeed = 1;
// Global batch of the reduced simulation (DeepSeek-V3 trains with 15.36M
// tokens per step, §4.2); it sets the noise the bias / aux feedback sees.
constexpr int64_t kDefaultBatchTokens = int64_t{1} << 24;

auto Key(const MoeImbalanceQuery& q) {
  return std::make_tuple(static_cast<int>(q.method), q.experts, q.top_k, q.ep, q.tokens_per_rank,
                         q.groups, q.topk_groups, q.seq_len);
}

BalanceConfig DefaultConfig(const MoeImbalanceQuery& q) {
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
  c.tokens_per_step = kDefaultBatchTokens;
  c.zipf_s = kDefaultZipf;
  c.sample_tokens = kDefaultSampleTokens;
  c.seed = kDefaultSeed;
  return c;
}

}  // namespace

bool MoeImbalanceQuery::operator<(const MoeImbalanceQuery& o) const { return Key(*this) < Key(o); }

Result<double> DefaultMoeImbalance(const MoeImbalanceQuery& q) {
  if (q.ep == 1) return 1.0;
  OCCAM_ASSIGN_OR_RETURN(BalanceResult r, SimulateBalance(DefaultConfig(q)));
  return r.straggler_factor;
}

// Simulations keyed by the query with tokens_per_rank = 0.
struct MoeImbalanceCache::Entries {
  std::vector<std::pair<MoeImbalanceQuery, std::vector<balance::LoadEstimator>>> sorted;
};

MoeImbalanceCache::MoeImbalanceCache() : entries_(std::make_unique<Entries>()) {}
MoeImbalanceCache::~MoeImbalanceCache() = default;
MoeImbalanceCache::MoeImbalanceCache(MoeImbalanceCache&&) noexcept = default;
MoeImbalanceCache& MoeImbalanceCache::operator=(MoeImbalanceCache&&) noexcept = default;

Result<double> MoeImbalanceCache::Get(const MoeImbalanceQuery& query) {
  if (query.ep == 1) return 1.0;
  MoeImbalanceQuery key = query;
  key.tokens_per_rank = 0;
  auto& v = entries_->sorted;
  auto it = std::lower_bound(v.begin(), v.end(), key,
                             [](const auto& e, const MoeImbalanceQuery& q) { return e.first < q; });
  if (it == v.end() || key < it->first) {
    std::vector<balance::LoadEstimator> states;
    OCCAM_ASSIGN_OR_RETURN(BalanceResult r,
                           balance::SimulateBalanceWithStates(DefaultConfig(query), &states));
    (void)r;
    ++misses_;
    it = v.insert(it, {key, std::move(states)});
  }
  if (query.tokens_per_rank < 1) {
    return InvalidInput("tokens_per_rank must be >= 1 (got " +
                        std::to_string(query.tokens_per_rank) + ")");
  }
  return balance::StragglerFromStates(it->second, query.ep, query.tokens_per_rank, query.seq_len);
}

double MoeReceiveBufferFactor(double lambda, double capacity_factor) {
  return capacity_factor > 0 ? capacity_factor : std::max(1.0, lambda);
}

}  // namespace occam
