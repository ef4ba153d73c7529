// Small vocabulary enums shared by several layers (spec, sim, search). They
// live in core so that `sim` can use them without knowing about models.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace occam {

// Pipeline schedules. CLI names in ScheduleName(); see doc/cost-model.md.
enum class Schedule {
  kNone,         // no pipeline parallelism (pp = 1)
  kGpipe,        // all-forward-all-backward; CLI "gpipe", alias "afab"
  k1F1B,         // one-forward-one-backward (PipeDream-Flush / Megatron)
  kInterleaved,  // interleaved 1F1B with v virtual stages per device
  kZbH1,         // zero bubble ZB-H1 (backward split into B and W)
  kZbV,          // zero bubble ZB-V (two chunks per device in a V shape)
  kDualPipe,     // DeepSeek DualPipe (two directions, two parameter copies)
  kDualPipeV,    // DualPipeV (cut-in-half DualPipe, one parameter copy)
};

// MoE load-balancing method of the training job.
enum class BalanceMethod {
  kAuxFree,        // DeepSeek-V3 selection-only bias, sign update (arXiv:2408.15664)
  kAuxLoss,        // micro-batch auxiliary loss (GShard/Switch style)
  kGlobalAuxLoss,  // auxiliary loss over the whole global batch (arXiv:2501.11873)
  kSeqAux,         // sequence-wise auxiliary loss (DeepSeek-V3 Eq. 17)
  kNone,           // no balancing
};

// kSelectiveOp: operator-level selective checkpointing as torchtitan's "op"
// policy runs it (the first, third, ... projection outputs in forward order,
// the attention output and the block input kept; element-wise ops and the
// other projections recomputed; cost/op_sac.cc).
// kModules: Megatron-LM's module-level selective recompute
// (--recompute-granularity selective --recompute-modules ...,
// megatron/core/transformer/transformer_config.py): the modules named in
// the plan's RecomputeModules mask discard their tensors after forward and
// rebuild them in backward.
// kDots, kDotsExceptMlpWi: JAX rematerialisation policies as MaxText names
// them (remat_policy "minimal": jax.checkpoint_policies.
// checkpoint_dots_with_no_batch_dims, MaxText/layers/models.py at 76bd53b0;
// "save_dot_except_mlpwi": save_only_these_names of the q/k/v, output and
// MLP-output projections, maxtext layers/decoders.py; kDotsExceptMlp,
// "save_dot_except_mlp": save_only_these_names of the q/k/v and output
// projections, the same file; NVIDIA/dgxc-benchmarking's MaxText FP8 recipe
// names that set with remat_policy=custom, maxtext/configure.sh at tag
// v24.11.1): the outputs of
// the block's projections are kept (all of them, all but the MLP's input
// projections, or the attention's only), with the block's input; attention,
// element-wise ops and the dropped projections are recomputed.
enum class Recompute {
  kNone,
  kSelective,
  kFull,
  kSelectiveOp,
  kModules,
  kDots,
  kDotsExceptMlpWi,
  kDotsExceptMlp
};
// One of JAX's dot-saving policies (kDots, kDotsExceptMlpWi, kDotsExceptMlp).
inline bool SavesDots(Recompute r) {
  return r == Recompute::kDots || r == Recompute::kDotsExceptMlpWi ||
         r == Recompute::kDotsExceptMlp;
}

// The modules of Megatron-LM's --recompute-modules, one bit each. Plan
// strings join their names with '+': "recompute=layernorm+mla_up_proj+moe_act".
namespace recompute_module {
inline constexpr unsigned kCoreAttn = 1u << 0;       // core attention (checkpointed)
inline constexpr unsigned kMlaUpProj = 1u << 1;      // MLA up-projections and RoPE
inline constexpr unsigned kLayernorm = 1u << 2;      // input and pre-MLP norms
inline constexpr unsigned kMoeAct = 1u << 3;         // the routed experts' activation
inline constexpr unsigned kMlp = 1u << 4;            // a dense block's MLP
inline constexpr unsigned kSharedExperts = 1u << 5;  // an MoE block's shared experts
inline constexpr unsigned kMoe = 1u << 6;            // the whole MoE layer
}  // namespace recompute_module

// Tensors Megatron-LM's fine-grained activation offloading moves to host
// memory (--offload-modules; docs/user-guide/features/
// fine_grained_activation_offloading.md): the routed experts' first GEMM
// input and the SwiGLU input. Plan strings join them with '+'.
namespace offload_module {
inline constexpr unsigned kExpertFc1 = 1u << 0;  // dispatched input of each routed copy
inline constexpr unsigned kMoeAct = 1u << 1;     // the experts' activation input
}  // namespace offload_module
std::string OffloadModulesName(unsigned modules);
std::optional<unsigned> ParseOffloadModules(std::string_view text);

enum class Precision { kBf16, kFp8 };

// How a layout without DualPipe hides its expert all-to-all (plan field
// a2a_overlap; doc/cost-model.md "Expert all-to-all overlap"):
//   kCombined1F1B  Megatron-Core combined 1F1B (--overlap-moe-expert-parallel-comm):
//                  a forward and a backward micro-batch share one window
//   kTwoBatch      the micro-batch split in two halves, one half's dispatch
//                  and combine beside the other half's compute (MaxText
//                  use_batch_split_schedule; SGLang two-batch overlap)
//   kSharedExpert  the shared expert runs beside the dispatcher's all-to-all
//                  (Megatron-Core --moe-shared-expert-overlap)
enum class EpOverlap { kNone, kCombined1F1B, kTwoBatch, kSharedExpert };

// How a layout's ranks map onto a TPU ICI torus (plan field mesh; doc/cost-model.md
// "Mesh mapping on a torus"). kLinear: rank r sits at the mixed-radix coordinates of
// r, x fastest, so a group fills a whole axis before it turns a corner. kCompact: the
// prime factors of the axes are interleaved (x, y, z, x, ...), so an aligned group
// of 2^k ranks is a compact sub-torus (EP64 a 4x4x4 cube), as a JAX device mesh can
// place a logical axis over several physical axes (jax.experimental.mesh_utils).
enum class TorusMapping { kLinear, kCompact };

// How the attention core runs. kFlash: fused, scores recomputed in backward
// and never written to HBM (Dao et al. 2022, arXiv:2205.14135); causal blocks
// above the diagonal are skipped. kMaterialized: the pre-FlashAttention path
// (Megatron-LM's QK^T GEMM, fused scale-mask-softmax, dropout, attention-over-V
// GEMM): the full s x s score matrix of every head is written and read back
// (Korthikanti et al. 2022 arXiv:2205.05198 §4.1, Table 1). kFlash2: fused
// as kFlash (same memory), in FlashAttention-2's kernel, PyTorch SDPA's
// flash backend, which Hopper runs at a measured fraction of the fused
// kernels' rate (ChipSpec::flash2_ratio; doc/cost-model.md §2).
enum class AttentionImpl { kFlash, kFlash2, kMaterialized };

// The loss's cross entropy over the vocabulary (doc/cost-model.md §2, §3).
// kFused: one fused kernel reads the 16-bit logits and writes the fp32
// softmax that becomes the gradient (Megatron-Core's
// --cross-entropy-loss-fusion, Transformer Engine's). kVocabParallel:
// Megatron-Core's VocabParallelCrossEntropy without that flag, the
// Megatron-LM default (megatron/core/tensor_parallel/cross_entropy.py): the
// same tensors, in place, one PyTorch op per pass over the fp32 logits.
// kEager: PyTorch's cross_entropy on pred.float() (torchtitan
// components/loss.py), whose log-softmax backward holds three fp32 copies.
enum class CrossEntropyImpl { kFused, kVocabParallel, kEager };

std::string_view ScheduleName(Schedule s);
// "gpipe, afab, 1f1b, ..., dualpipev": every CLI name of a pipelined schedule.
std::string PipelineScheduleNames();
std::optional<Schedule> ParseScheduleName(std::string_view name);
std::string_view TorusMappingName(TorusMapping m);
std::optional<TorusMapping> ParseTorusMappingName(std::string_view name);
std::string_view BalanceMethodName(BalanceMethod m);
std::optional<BalanceMethod> ParseBalanceMethodName(std::string_view name);
std::string_view RecomputeName(Recompute r);
std::optional<Recompute> ParseRecomputeName(std::string_view name);
// "layernorm+moe_act" for a module mask (the names of Megatron-LM's
// --recompute-modules, in the order of recompute_module); empty for 0.
std::string RecomputeModulesName(unsigned modules);
// The mask of a '+'-joined module list; nullopt if a name is unknown or the
// list is empty.
std::optional<unsigned> ParseRecomputeModules(std::string_view text);
// "core_attn, mla_up_proj, ...": every module name.
std::string RecomputeModuleNames();
std::string_view PrecisionName(Precision p);
std::optional<Precision> ParsePrecisionName(std::string_view name);
std::string_view EpOverlapName(EpOverlap o);
// Also accepts 1/true (kCombined1F1B) and 0/false (kNone).
std::optional<EpOverlap> ParseEpOverlapName(std::string_view name);
std::string_view AttentionImplName(AttentionImpl a);
std::optional<AttentionImpl> ParseAttentionImplName(std::string_view name);
std::string_view CrossEntropyImplName(CrossEntropyImpl c);
std::optional<CrossEntropyImpl> ParseCrossEntropyImplName(std::string_view name);

// True when the schedule starts a backward pass before every micro-batch has
// finished its forward pass (everything except GPipe/AFAB and kNone).
bool ScheduleInterleavesBackward(Schedule s);

}  // namespace occam
