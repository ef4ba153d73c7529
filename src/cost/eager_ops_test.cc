// Eager PyTorch element-wise traffic (ActivationOptions::eager_autograd)
// against torchtitan's ops at 9dec370, counted kernel by kernel: each reads
// its inputs and writes its output.
#include <gtest/gtest.h>

#include "cost/test_models.h"
#include "occam/cost.h"

namespace occam {
namespace {

double ElementwiseBytes(const ModelSpec& m, bool eager) {
  ActivationOptions o;
  o.eager_autograd = eager;
  return BuildModelWork(m, 8192, o).dense.elementwise_bytes;
}

// Llama 3.1 8B (h 4096, 32 heads and 8 KV heads of 128, SwiGLU 14336), per
// token, beyond the fused kernels:
// - two RMSNorms, x.float() (2 + 4), pow (4 + 4), mean (4), the product
//   (4 + 4), type_as (4 + 2), the weight (2 + 2): 36 B against 4 B per
//   element of h;
// - RoPE on q and k, float (2 + 4), the complex product (4 + 4), type_as
//   (4 + 2): 20 B against 4 B per element of (32 + 8) x 128;
// - repeat_kv's copies of k and v (read 8 x 128, write 32 x 128, 2 B) and
//   the attention output's contiguous copy (read and write 32 x 128, 2 B);
// - SwiGLU, silu (2 + 2) and the product (4 + 2): 10 B against 6 B per
//   element of 14336.
TEST(EagerOps, LlamaBlockCountedKernelByKernel) {
  const ModelSpec m = testing::Llama8B();
  const double h = 4096, d = 128, a = 32, akv = 8, f = 14336;
  const double extra = 2 * (36 - 4) * h + (20 - 4) * (a + akv) * d + 2 * 2 * (akv + a) * d +
                       2 * 2 * a * d + (10 - 6) * f;
  EXPECT_DOUBLE_EQ(ElementwiseBytes(m, true) - ElementwiseBytes(m, false), extra);
}

}  // namespace
}  // namespace occam
