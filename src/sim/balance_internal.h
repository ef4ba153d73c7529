// Internal entry points shared by SimulateBalance and the default-imbalance
// cache: the rank-load estimator states of the last 10% of steps, from which
// the straggler factor of any all-to-all group size is rebuilt exactly as
// SimulateBalance rebuilds it for config.tokens_per_rank.
#pragma once

#include <cstdint>
#include <vector>

#include "occam/simulate.h"
#include "sim/balance_stats.h"

namespace occam::balance {

// SimulateBalance, also filling `tail_rank_states` (may be null) with the
// rank estimator after each of the last max(1, steps/10) steps.
Result<BalanceResult> SimulateBalanceWithStates(const BalanceConfig& config,
                                                std::vector<LoadEstimator>* tail_rank_states);

// One routing run tracking several EP degrees: (*states)[i] receives exactly
// what SimulateBalanceWithStates fills for `config` with ep = eps[i] (routing,
// bias and aux-loss feedback never depend on ep; only the rank each pick lands
// on does). InvalidInput when the config is invalid or an ep does not divide
// the experts.
Status SimulateRankStates(const BalanceConfig& config, const std::vector<int64_t>& eps,
                          std::vector<std::vector<LoadEstimator>>* states);

// Mean over the states of max/mean rebuilt rank load for an all-to-all group
// of ep * tokens_per_rank tokens in sequences of seq_len.
double StragglerFromStates(const std::vector<LoadEstimator>& states, int64_t ep,
                           int64_t tokens_per_rank, int64_t seq_len);

}  // namespace occam::balance
