#include "sim/balance_router.h"

#include <algorithm>
#include <limits>
#include <string>

namespace occam::balance {

Status ValidateRouterShape(const RouterShape& s) {
  const auto str = [](int64_t v) { return std::to_string(v); };
  if (s.experts < 1 || s.experts > 65536) {
    return InvalidInput("--experts must be in [1, 65536] (got " + str(s.experts) + ")");
  }
  if (s.top_k < 1 || s.top_k > std::min<int64_t>(s.experts, kMaxTopK)) {
    return InvalidInput("--topk must be in [1, min(experts=" + str(s.experts) + ", " +
                        str(kMaxTopK) + ")] (got " + str(s.top_k) + ")");
  }
  if (s.groups < 1 || s.experts % s.groups != 0) {
    return InvalidInput("--groups must be >= 1 and divide --experts " + str(s.experts) + " (got " +
                        str(s.groups) + "); e.g. --groups 8 for 256 experts");
  }
  if (s.topk_groups < 1 || s.topk_groups > s.groups) {
    return InvalidInput("--topk-groups must be in [1, groups=" + str(s.groups) + "] (got " +
                        str(s.topk_groups) + ")");
  }
  if (s.top_k > s.topk_groups * (s.experts / s.groups)) {
    return InvalidInput("--topk " + str(s.top_k) + " exceeds the experts reachable in " +
                        str(s.topk_groups) + " groups of " + str(s.experts / s.groups) +
                        "; raise --topk-groups");
  }
  return Status::Ok();
}

Router::Router(const RouterShape& shape)
    : shape_(shape),
      biased_(shape.experts),
      allowed_(shape.groups, 1),
      group_score_(shape.groups),
      top_val_(shape.topk_groups),
      top_idx_(shape.topk_groups) {}

namespace {

// The sum of the two largest of v[0, n) (n >= 2), as InsertTopN's top 2
// would hold them, without its data-dependent branches: the group scores
// of DeepSeek-V3's routing (top 8 in 4 groups, 2 per group).
float TopTwoSum(const float* v, int64_t n) {
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  float first = kNegInf, second = kNegInf;
  for (int64_t e = 0; e < n; ++e) {
    const float x = v[e];
    const bool above_first = x > first;
    second = above_first ? first : (x > second ? x : second);
    first = above_first ? x : first;
  }
  return first + second;
}

}  // namespace

void Router::SelectGroups(const float* biased) {
  const int64_t per_group = shape_.experts / shape_.groups;
  const int64_t m = std::max<int64_t>(1, shape_.top_k / shape_.topk_groups);
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  for (int64_t g = 0; g < shape_.groups; ++g) {
    if (m == 2 && per_group >= 2) {
      group_score_[g] = TopTwoSum(biased + g * per_group, per_group);
      continue;
    }
    float vals[64];
    int32_t idx[64];
    const int64_t n = std::min<int64_t>(m, std::min<int64_t>(per_group, 64));
    for (int64_t j = 0; j < n; ++j) vals[j] = kNegInf;
    for (int64_t e = g * per_group; e < (g + 1) * per_group; ++e) {
      InsertTopN(biased[e], static_cast<int32_t>(e), n, vals, idx);
    }
    float sum = 0;
    for (int64_t j = 0; j < n; ++j) sum += vals[j];
    group_score_[g] = sum;
  }
  std::vector<float>& gv = top_val_;
  std::vector<int32_t>& gi = top_idx_;
  gv.assign(shape_.topk_groups, kNegInf);
  gi.assign(shape_.topk_groups, -1);
  for (int64_t g = 0; g < shape_.groups; ++g) {
    InsertTopN(group_score_[g], static_cast<int32_t>(g), shape_.topk_groups, gv.data(), gi.data());
  }
  std::fill(allowed_.begin(), allowed_.end(), 0);
  for (int64_t j = 0; j < shape_.topk_groups; ++j) allowed_[gi[j]] = 1;
}

void Router::Route(const float* scores, const float* bias, int32_t* out) {
  const int64_t e_count = shape_.experts;
  const float* biased = scores;
  if (bias) {
    for (int64_t e = 0; e < e_count; ++e) biased_[e] = scores[e] + bias[e];
    biased = biased_.data();
  }
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  const int64_t k = shape_.top_k;
  float vals[kMaxTopK];
  int32_t idx[kMaxTopK];
  for (int64_t j = 0; j < k; ++j) vals[j] = kNegInf, idx[j] = -1;
  if (!GroupLimited()) {
    for (int64_t e = 0; e < e_count; ++e)
      InsertTopN(biased[e], static_cast<int32_t>(e), k, vals, idx);
  } else {
    SelectGroups(biased);
    const int64_t per_group = e_count / shape_.groups;
    // Selected groups in increasing index order keep ties at the lower index.
    for (int64_t g = 0; g < shape_.groups; ++g) {
      if (!allowed_[g]) continue;
      for (int64_t e = g * per_group; e < (g + 1) * per_group; ++e) {
        InsertTopN(biased[e], static_cast<int32_t>(e), k, vals, idx);
      }
    }
  }
  for (int64_t j = 0; j < k; ++j) out[j] = idx[j];
}

}  // namespace occam::balance
