// Top-k expert selection with an optional selection-only bias and optional
// group-limited (node-limited) routing, as in DeepSeek-V3 §2.1.2:
//   selected = Topk_i(s_i + b_i, K)                        (Eq. 16)
// and, with G groups of E/G experts and M = topk_groups,
//   group score_g = sum of the top max(1, K/M) biased scores in group g,
//   only experts of the M best groups may be selected
// (DeepSeek-V3 §2.1.2 "at most M nodes"; deepseek-ai/DeepSeek-V3
// inference/model.py, class Gate: n_group, topk_group).
// Ties break towards the lower index, so routing is deterministic.
#pragma once

#include <cstdint>
#include <vector>

#include "occam/status.h"

namespace occam::balance {

inline constexpr int64_t kMaxTopK = 64;

struct RouterShape {
  int64_t experts = 0;      // E
  int64_t top_k = 0;        // K <= kMaxTopK
  int64_t groups = 1;       // G; E % G == 0
  int64_t topk_groups = 1;  // M <= G; K <= M * E / G
};

// InvalidInput naming the offending flag when the shape is impossible.
Status ValidateRouterShape(const RouterShape& shape);

class Router {
 public:
  // REQUIRES: ValidateRouterShape(shape).ok().
  explicit Router(const RouterShape& shape);

  // scores[E], bias[E] (bias may be null = zero). Writes K expert indices to
  // out[K], in decreasing order of biased score.
  void Route(const float* scores, const float* bias, int32_t* out);

  const RouterShape& shape() const { return shape_; }

 private:
  bool GroupLimited() const { return shape_.groups > 1 && shape_.topk_groups < shape_.groups; }
  void SelectGroups(const float* biased);

  RouterShape shape_;
  std::vector<float> biased_;       // E
  std::vector<uint8_t> allowed_;    // G, 1 if the group was selected
  std::vector<float> group_score_;  // G
  std::vector<float> top_val_;      // scratch, M entries (group selection)
  std::vector<int32_t> top_idx_;
};

// Inserts (value, index) into the descending list vals/idx of length n (the
// current n-th best is replaced when beaten; ties keep the earlier entry).
inline void InsertTopN(float value, int32_t index, int64_t n, float* vals, int32_t* idx) {
  if (!(value > vals[n - 1])) return;
  int64_t j = n - 1;
  while (j > 0 && value > vals[j - 1]) {
    vals[j] = vals[j - 1];
    idx[j] = idx[j - 1];
    --j;
  }
  vals[j] = value;
  idx[j] = index;
}

}  // namespace occam::balance
