// Default EP rank imbalance for the step layer, its cache, and the
// receive-buffer rule (doc/cost-model.md §8.5-8.6).
#include <algorithm>
#include <map>
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

// Every EP degree worth tracking: the divisors of the expert count above 1.
std::vector<int64_t> EpDegrees(int64_t experts) {
  std::vector<int64_t> out;
  for (int64_t d = 2; d <= experts; ++d) {
    if (experts % d == 0) out.push_back(d);
  }
  return out;
}

// The reduced simulation of a routing shape: one EP rank of one token
// (the tracked degrees carry the EP split; the configured one is unused).
BalanceConfig ShapeConfig(const MoeImbalanceQuery& key) {
  MoeImbalanceQuery q = key;
  q.ep = 1;
  q.tokens_per_rank = 1;
  return DefaultConfig(q);
}

}  // namespace

bool MoeImbalanceQuery::operator<(const MoeImbalanceQuery& o) const { return Key(*this) < Key(o); }

Result<double> DefaultMoeImbalance(const MoeImbalanceQuery& q) {
  if (q.ep == 1) return 1.0;
  OCCAM_ASSIGN_OR_RETURN(BalanceResult r, SimulateBalance(DefaultConfig(q)));
  return r.straggler_factor;
}

// One simulation per routing shape (the query with ep = 0 and
// tokens_per_rank = 0) tracks the rank loads of every EP degree at once:
// routing never depends on ep (balance_internal.h), so each degree's states
// equal those of its own simulation.
struct MoeImbalanceCache::Entries {
  struct Shape {
    MoeImbalanceQuery key;
    std::vector<int64_t> eps;  // ascending
    std::vector<std::vector<balance::LoadEstimator>> states;
    // Straggler factors already rebuilt, by (ep, tokens_per_rank): a
    // planner asks for a few hundred of them, each ~15 us to rebuild.
    std::map<std::pair<int64_t, int64_t>, double> rebuilt;
  };
  std::vector<Shape> sorted;
};

MoeImbalanceCache::MoeImbalanceCache() : entries_(std::make_unique<Entries>()) {}
MoeImbalanceCache::~MoeImbalanceCache() = default;
MoeImbalanceCache::MoeImbalanceCache(MoeImbalanceCache&&) noexcept = default;
MoeImbalanceCache& MoeImbalanceCache::operator=(MoeImbalanceCache&&) noexcept = default;

Result<double> MoeImbalanceCache::Get(const MoeImbalanceQuery& query) {
  if (query.ep == 1) return 1.0;
  MoeImbalanceQuery key = query;
  key.ep = 0;
  key.tokens_per_rank = 0;
  auto& v = entries_->sorted;
  auto it = std::lower_bound(v.begin(), v.end(), key,
                             [](const auto& e, const MoeImbalanceQuery& q) { return e.key < q; });
  const bool hit = it != v.end() && !(key < it->key);
  const auto ep_at = [&](const Entries::Shape& e) {
    return std::lower_bound(e.eps.begin(), e.eps.end(), query.ep);
  };
  if (!hit || ep_at(*it) == it->eps.end() || *ep_at(*it) != query.ep) {
    // A miss, or an ep that divides no expert count: the same checks (and
    // messages) as a simulation of this very query.
    OCCAM_RETURN_IF_ERROR(ValidateBalanceConfig(DefaultConfig(query)));
  }
  if (!hit) {
    Entries::Shape e{key, EpDegrees(query.experts), {}, {}};
    OCCAM_RETURN_IF_ERROR(balance::SimulateRankStates(ShapeConfig(key), e.eps, &e.states));
    ++misses_;
    it = v.insert(it, std::move(e));
  }
  if (query.tokens_per_rank < 1) {
    return InvalidInput("tokens_per_rank must be >= 1 (got " +
                        std::to_string(query.tokens_per_rank) + ")");
  }
  const auto [slot, fresh] = it->rebuilt.try_emplace({query.ep, query.tokens_per_rank}, 0.0);
  if (fresh) {
    const auto ep = ep_at(*it);
    const auto& states = it->states[static_cast<size_t>(ep - it->eps.begin())];
    slot->second =
        balance::StragglerFromStates(states, query.ep, query.tokens_per_rank, query.seq_len);
  }
  return slot->second;
}

double MoeReceiveBufferFactor(double lambda, double capacity_factor) {
  return capacity_factor > 0 ? capacity_factor : std::max(1.0, lambda);
}

}  // namespace occam
