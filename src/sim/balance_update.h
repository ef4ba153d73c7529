// The per-step update rules of the balancing methods, as free functions so
// that each is tested on its own (doc/cost-model.md §8.2-8.3).
#pragma once

#include <cstdint>
#include <vector>

namespace occam::balance {

// Aux-loss-free bias (Wang et al. arXiv:2408.15664 Alg. 1; DeepSeek-V3
// §2.1.2; Megatron-LM moe_utils.py get_updated_expert_bias):
//   b_i += u * sign(mean_j load_j - load_i)
// with the loads of the step just finished. Balanced loads are a fixed point.
void SignBiasUpdate(const std::vector<double>& load, double u, std::vector<double>* bias);

// Gradient of the balance loss sum_i f_i P_i (f constant: it counts top-k
// choices; P_i = mean over tokens of s'_i = s_i / sum_j s_j, DeepSeek-V3
// Eq. 17-20) with respect to one token's router logits z (s = Sigmoid(z)):
//   d s'_i / d z_j = (delta_ij - s'_i) s'_j (1 - s_j), so
//   g_j = s'_j (1 - s_j) (f_j - sum_i f_i s'_i).
// Adds g (for one token, without the alpha / T factor) to grad[E].
void AddAuxLossLogitGradient(const float* scores, const std::vector<double>& f, int64_t experts,
                             std::vector<double>* grad);

}  // namespace occam::balance
