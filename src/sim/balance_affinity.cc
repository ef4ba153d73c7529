#include "sim/balance_affinity.h"

#include <cmath>
#include <numeric>

namespace occam::balance {
AffinityGenerator::AffinityGenerator(const AffinityParams& params, uint64_t seed)
    : params_(params),
      rng_(seed),
      base_(params.experts),
      walk_(params.experts, 0.0),
      popularity_(params.experts),
      pool_(kNoisePool + params.experts),
      logits_(params.experts) {
  const int64_t e_count = params.experts;
  // Seeded Fisher-Yates permutation of ranks 1..E.
  std::vector<int64_t> rank(e_count);
  std::iota(rank.begin(), rank.end(), 1);
  for (int64_t i = e_count - 1; i > 0; --i) {
    std::swap(rank[i], rank[rng_.Below(static_cast<uint64_t>(i) + 1)]);
  }
  double mean_log = 0;
  for (int64_t r : rank) mean_log += std::log(static_cast<double>(r));
  mean_log /= static_cast<double>(e_count);
  for (int64_t i = 0; i < e_count; ++i) {
    base_[i] =
        -kPopularityScale * params.zipf_s * (std::log(static_cast<double>(rank[i])) - mean_log);
    popularity_[i] = base_[i];
    logits_[i] = static_cast<float>(base_[i]);
  }
  rng_.Normals(pool_.data(), static_cast<int64_t>(pool_.size()));
}

void AffinityGenerator::AdvanceStep() {
  if (params_.drift == 0) return;
  for (int64_t i = 0; i < params_.experts; ++i) {
    walk_[i] = (1 - kDriftReversion) * walk_[i] + params_.drift * rng_.Normal();
    popularity_[i] = base_[i] + walk_[i];
    logits_[i] = static_cast<float>(popularity_[i]);
  }
}

void AffinityGenerator::DrawTopic(float* topic) {
  rng_.Normals(topic, params_.experts);
  for (int64_t i = 0; i < params_.experts; ++i) topic[i] *= static_cast<float>(kTopicSigma);
}

void AffinityGenerator::TokenScores(const float* topic, const float* displacement, float* scores) {
  const int64_t e_count = params_.experts;
  const float* eps = pool_.data() + rng_.Below(kNoisePool);
  const auto sigma_t = static_cast<float>(kTokenSigma);
  const float* a = logits_.data();
  if (displacement) {
    for (int64_t i = 0; i < e_count; ++i) {
      scores[i] = FastSigmoid(a[i] + displacement[i] + topic[i] + sigma_t * eps[i]);
    }
  } else {
    for (int64_t i = 0; i < e_count; ++i) {
      scores[i] = FastSigmoid(a[i] + topic[i] + sigma_t * eps[i]);
    }
  }
}

}  // namespace occam::balance
