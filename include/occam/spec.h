// The inputs of every occam question: a model, a cluster (chip + network
// tiers), a training job and a parallel layout (plan). Plain value structs
// with documented defaults; parsers and the built-in catalog live in
// src/spec/. Every parser is strict: unknown keys in occam's own formats,
// missing or mistyped fields and impossible values are InvalidInput errors
// whose message names the file and key path and gives a hint.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "occam/kinds.h"
#include "occam/status.h"
#include "occam/units.h"

namespace occam {

// ---------------------------------------------------------------- model ---

enum class AttentionKind {
  kGqa,  // multi-head / grouped-query / multi-query (num_kv_heads <= num_heads)
  kMla,  // DeepSeek multi-head latent attention (arXiv:2405.04434 §2.1)
};

// Multi-head latent attention dimensions (DeepSeek-V2/V3 config names).
struct MlaDims {
  int64_t q_lora_rank = 0;  // 0: queries are not compressed (V2-Lite)
  int64_t kv_lora_rank = 0;
  int64_t qk_nope_head_dim = 0;
  int64_t qk_rope_head_dim = 0;
  int64_t v_head_dim = 0;
};

struct AttentionSpec {
  AttentionKind kind = AttentionKind::kGqa;
  int64_t num_heads = 0;
  int64_t num_kv_heads = 0;  // == num_heads for MHA, 1 for MQA
  int64_t head_dim = 0;      // q/k/v head dim for kGqa; q/k (nope + rope) head dim for kMla
  MlaDims mla;               // only for kMla
  bool qkv_bias = false;
  bool out_bias = false;
  // Sliding-window attention: window in tokens (0 = none) and the fraction of
  // layers that use it (Gemma 3: 5 of 6, gpt-oss: 1 of 2).
  int64_t sliding_window = 0;
  double sliding_fraction = 0.0;
};

struct MoeSpec {
  int64_t num_experts = 0;         // routed experts per MoE layer
  int64_t top_k = 0;               // routed experts per token
  int64_t num_shared_experts = 0;  // always-active experts (DeepSeek)
  int64_t expert_ffn = 0;          // intermediate size of one routed expert
  int64_t shared_expert_ffn = 0;   // intermediate size of one shared expert
  int64_t first_k_dense = 0;       // leading layers with a dense MLP instead
  int64_t layer_freq = 1;          // every layer_freq-th layer (after the dense ones) is MoE
  int64_t num_groups = 1;          // expert groups for group-limited routing
  int64_t topk_groups = 1;         // groups a token may use (DeepSeek-V3: 4 of 8)
  bool router_bias = false;        // gpt-oss router has a bias
  bool expert_bias = false;        // expert MLPs have biases (gpt-oss)
};

enum class NormKind { kRmsNorm, kLayerNorm };

struct ModelSpec {
  std::string name;        // catalog name or file stem
  std::string model_type;  // HF model_type ("llama", "deepseek_v3", ...) or "occam"
  int64_t num_layers = 0;  // transformer blocks (excluding MTP modules)
  int64_t hidden = 0;
  int64_t vocab = 0;
  AttentionSpec attention;
  int64_t ffn_hidden = 0;  // dense MLP intermediate size
  bool gated_mlp = true;   // SwiGLU/GeGLU (3 matrices) vs GeLU MLP (2 matrices)
  bool mlp_bias = false;
  std::optional<MoeSpec> moe;
  bool tied_embeddings = false;
  int64_t learned_positions = 0;  // GPT-2 position table rows (0 = RoPE)
  int64_t mtp_layers = 0;         // DeepSeek multi-token-prediction modules
  NormKind norm = NormKind::kRmsNorm;
  // gpt-oss's clamped SwiGLU (gate and linear halves clamped to +-7,
  // glu = x * sigmoid(1.702 x), out = glu * (linear + 1)): more element-wise
  // steps, so more tensors saved under eager autograd (JobSpec::eager_autograd).
  bool clamped_swiglu = false;
};

// ----------------------------------------------------------------- chip ---

struct ChipSpec {
  std::string key;   // catalog key ("h100", "tpu-v5p", ...)
  std::string name;  // human name
  bool is_tpu = false;
  FlopsPerSecond peak_bf16;  // dense
  FlopsPerSecond peak_fp8;   // dense; == peak_bf16 when the chip has no FP8 speed-up
  Bytes hbm;                 // usable capacity
  BytesPerSecond hbm_bandwidth;
  // Calibration (data/calibration.yaml, each value with its source): the
  // largest fraction of peak a large GEMM reaches, and the token count per
  // GEMM at which half of that plateau is reached.
  double gemm_efficiency = 0.8;
  double gemm_half_tokens = 256;
  // The measured maximum achievable matmul FLOP/s over peak (MAMF) where one
  // is published; a fitted gemm_efficiency may not exceed it (it stands for
  // the same hardware plateau). 0 = no measurement.
  double gemm_measured_plateau = 0;
  // FP8 GEMM plateau as a fraction of the BF16 one (measured FP8 and BF16
  // MAMF of the same chip); 1 where FP8 runs on the BF16 path.
  double gemm_fp8_ratio = 1.0;
  // FlashAttention-2's attention rate over the fused attention kernels'
  // (cuDNN, FlashAttention-3) on this chip, measured; what job attention
  // flash2 runs the attention core at. 1 where FA2 is the chip's own fused
  // kernel (Ampere) or no measurement exists.
  double flash2_ratio = 1.0;
  // GEMM width (smallest non-token dimension, after tp/etp division) at
  // which half of the plateau is reached; 0 = no width penalty.
  double gemm_half_width = 0;
  // Host time per MoE layer forward that the device waits for: the dropless
  // token dispatcher synchronises device and host to size its all-to-all
  // (Megatron-Core token_dispatcher.py cuda_sync_point), so the kernels the
  // host launches after it are not queued ahead. Seconds; 0 = none.
  double moe_dispatch_host_s = 0;
  // Host link, one direction, per chip: what activation offload to host
  // memory moves at (PCIe Gen5 x16, NVLink-C2C). 0 = not stated: the chip
  // cannot offload (plan field offload is refused).
  BytesPerSecond host_link_bandwidth;
};

// -------------------------------------------------------------- cluster ---

enum class TierKind {
  kSwitch,   // switched crossbar (NVLink + NVSwitch, NVL72): full rate to any peer
  kMesh,     // fully connected point-to-point (AMD Infinity Fabric): one link per pair
  kTorus,    // TPU ICI torus (dims, per-axis wraparound)
  kFatTree,  // scale-out InfiniBand / RoCE / EFA, rail optimized
  kDcn,      // data-center network between TPU slices
};
// The cluster-file spelling: "switch", "mesh", "torus", "fat_tree", "dcn".
std::string_view TierKindName(TierKind kind);

// One level of the network, innermost first. A tier-i "unit" holds `size`
// chips (cumulative: node = 8, pod = 1024, ...); bandwidth is per chip, one
// direction, as a ring step or a NIC can push it.
struct TierSpec {
  std::string name;  // "nvlink", "ib", "ici", "dcn", ...
  TierKind kind = TierKind::kSwitch;
  int64_t size = 1;
  BytesPerSecond bandwidth;  // per chip, unidirectional
  Seconds latency;           // per hop / ring step (alpha)
  // Torus only: extent of each axis inside one unit (product == size) and
  // whether each axis wraps around.
  std::vector<int64_t> torus_dims;
  std::vector<bool> torus_wrap;
  bool in_network_reduction = false;  // NVLink SHARP / IB SHARP
  double oversubscription = 1.0;      // traffic leaving this tier is slowed by this factor
  // Calibration: achievable fraction of `bandwidth` for large messages, and
  // the size of one transfer (a ring step's chunk S/n, one peer's share of an
  // all-to-all) at which half of that plateau is reached (doc/cost-model.md § 4).
  double efficiency = 0.8;
  Bytes half_bandwidth_bytes = Bytes(16e6);
  // Calibration of in-network all-reduce (NVLS), used only when
  // in_network_reduction: achievable fraction of `bandwidth` for the
  // (1 + 1/n)·S bytes each chip moves (doc/cost-model.md § 4). 0 = not
  // calibrated, in-network reduction is then not used.
  double in_network_efficiency = 0.0;
  // All-to-all kernel on this tier (doc/cost-model.md § 4.7): false =
  // pairwise (NCCL all-to-all, one pipeline per peer: the efficiency is taken
  // at one peer's share); true = every peer's transfer in flight at once
  // (DeepEP / HybridEP: efficiency at the rank's whole volume, one message
  // start alpha per peer).
  bool alltoall_all_peers = false;
};

struct ClusterSpec {
  std::string name;
  ChipSpec chip;
  int64_t num_chips = 0;
  std::vector<TierSpec> tiers;  // innermost first; last tier's size >= num_chips
};

// ------------------------------------------------------------------ job ---

struct JobSpec {
  int64_t seq_len = 4096;
  int64_t global_batch_seqs = 0;  // sequences per optimizer step
  Precision precision = Precision::kBf16;
  BalanceMethod balance = BalanceMethod::kAuxFree;
  // Expert-parallel rank load max/mean (lambda). 0 = derive from `balance`.
  double moe_imbalance = 0.0;
  // Token-dropping capacity factor (0 = dropless).
  double capacity_factor = 0.0;
  // Fraction of HBM kept free (allocator fragmentation, workspace).
  double memory_headroom = 0.05;
  // The loss's cross entropy (kinds.h). Job key cross_entropy.
  CrossEntropyImpl cross_entropy = CrossEntropyImpl::kFused;
  // Under FP8 training the LM head's projection runs in FP8 too. false (the
  // default): it stays 16-bit, as the frameworks run it — Megatron-Core's
  // output layer is its own ColumnParallelLinear outside Transformer
  // Engine's FP8 autocast unless fp8_output_proj (opt-in, MXFP8 only,
  // megatron/core/fp8_utils.py is_mxfp8_output_proj_active) selects TE's
  // head; torchtitan converts every Linear but "output" to Float8
  // (torchtitan/float8.py, module_filter_fn); DeepSeek-V3 keeps the output
  // head in its original precision (arXiv:2412.19437 §3.3.1). Job key
  // fp8_output_proj.
  bool fp8_output_proj = false;
  // FP8 casts take the tensor's amax first (dynamic tensorwise scaling:
  // torchao's Float8Linear, torchtitan's float8 default at 9dec370,
  // scaling_type_* = "dynamic"): every cast reads its 16-bit input once more
  // (hp_tensor_to_float8_dynamic, tensor_to_amax) and writes one FP8 copy,
  // 2 + 2 + 1 = 5 B per element against Transformer Engine's 4; and the
  // 16-bit weights, gathered in 16 bits without float8 all-gather
  // (enable_fsdp_float8_all_gather false), are cast on every forward
  // (cast_weight_to_float8_t) instead of being kept in FP8. Job key
  // fp8_dynamic_scaling.
  bool fp8_dynamic_scaling = false;
  // The eager loss (cross_entropy kEager) runs under torch.compile (torchtitan's
  // build_cross_entropy_loss compiles it when training.compile is set,
  // components/loss.py since April 2025): Inductor fuses the fp32 cast,
  // log-softmax and NLL, saves only the 16-bit logits (and a per-token
  // log-sum-exp) and writes the 16-bit logit gradient in one kernel
  // (doc/cost-model.md §3). Job key compiled_loss; no effect on the other
  // cross entropies.
  bool compiled_loss = false;
  // The pipeline runs through PyTorch's torch.distributed.pipelining
  // (torchtitan): each stage keeps every micro-batch's stage output in
  // fwd_cache until that micro-batch's backward, and allocates one
  // activation and one gradient receive buffer per micro-batch for the whole
  // step (stage.py, forward_one_chunk, _prepare_forward_infra,
  // _prepare_backward_infra). false: Megatron-Core, which frees the sent
  // output (deallocate_output_tensor) and receives into fresh tensors.
  // Job key torch_pipelining (doc/cost-model.md §3); no effect without PP.
  bool torch_pipelining = false;
  // The blocks run as eager PyTorch ops (no torch.compile, no fused
  // activation kernel): autograd saves each element-wise op's own inputs, so
  // the gated activation keeps its intermediates beside its inputs and
  // output (doc/cost-model.md §3). Job key eager_autograd.
  bool eager_autograd = false;
  // The loss runs over the micro-batch's tokens in this many chunks, each
  // chunk's head GEMM, cross entropy and backward before the next
  // (torchtitan ChunkedLossWrapper, components/loss.py, Config.num_chunks;
  // the same idea as Liger's fused linear cross entropy): no logits are
  // held between forward and backward, the loss's peak is one chunk's
  // logits beside an fp32 accumulator of the hidden states' gradient
  // (doc/cost-model.md §3). 0 or 1: the whole micro-batch's logits at once.
  // Job key loss_chunks.
  int64_t loss_chunks = 0;
  // Attention kernel: FlashAttention, or the materialised score matrix of
  // pre-2023 frameworks (kinds.h).
  AttentionImpl attention = AttentionImpl::kFlash;
  // Attention-probability and hidden dropout (GPT-2/-3-era training; current
  // pretraining configs set it to 0): stores masks, adds memory-bound passes.
  bool dropout = false;
  // Data-parallel gradient reduction (and ZeRO-1/2 weight gathering) runs
  // bucket by bucket behind the backward (and next forward) passes
  // (Megatron-Core overlap_grad_reduce / overlap_param_gather, PyTorch DDP
  // buckets). false: after the last backward, exposed (Megatron-LM before
  // 2023: its local DDP all-reduced once per step).
  bool overlap_grad_reduce = true;
  // Each weight-gradient GEMM accumulates into the main-grad buffer itself
  // (Megatron-LM --gradient-accumulation-fusion, on by default since
  // 2022-02, commit 83b1e42f30; Megatron-Core; other frameworks'
  // fused or single-micro-batch paths). false: Megatron-LM's local DDP hook
  // adds every micro-batch's 16-bit gradient into the buffer,
  // param.main_grad.add_(param.grad.data) (megatron/model/distributed.py):
  // a memory-bound pass per parameter per micro-batch. Job key
  // grad_accumulation_fusion.
  bool grad_accumulation_fusion = true;
  // Tensor-parallel collectives pipelined with the GEMMs that produce or
  // consume them (Megatron-LM --tp-comm-overlap, Transformer Engine
  // userbuffers; XLA collective matmul, Wang et al. ASPLOS'23): they hide
  // behind their pass's compute except one chunk in tp. false: Megatron-LM's
  // default (forward exposed, backward partly hidden).
  bool tp_comm_overlap = false;
  // A dropless MoE token dispatcher synchronises device and host before each
  // forward all-to-all to learn the split sizes (Megatron-Core
  // token_dispatcher.py, cuda_sync_point): the chip's calibrated host time
  // (chip.moe_dispatch_host_s) per MoE layer forward, shown as its own
  // breakdown item. false: a sync-free dispatch (static shapes, e.g. padded
  // to capacity, under CUDA graphs).
  bool moe_host_sync = true;
  // ZeRO-3 / FSDP collectives (doc/cost-model.md §6, "ZeRO-3 / FSDP"). One
  // weight all-gather and one gradient reduce-scatter per block (false: torch
  // FSDP wrapping each block, Megatron-FSDP, XLA), or per weight matrix
  // (true: DeepSpeed ZeRO-3 as released in 2021, one collective per parameter
  // tensor; deepspeed/runtime/zero/partition_parameters.py).
  bool fsdp_per_tensor = false;
  // The gathers are prefetched and the reduce-scatters run on their own
  // stream, hidden behind compute. false: both on the compute stream,
  // exposed (DeepSpeed's overlap_comm default false of 2021, synchronous
  // gathers of a module's parameters).
  bool fsdp_overlap = true;
  // Adam's two moments in BF16 beside the FP32 master weight (DeepSeek-V3
  // arXiv:2412.19437 §3.3.2; Megatron-LM --use-precision-aware-optimizer
  // --exp-avg-dtype bf16 --exp-avg-sq-dtype bf16): 4 + 2 + 2 bytes of
  // optimizer state per parameter instead of 12. Job key
  // optimizer_moments: fp32 | bf16.
  bool bf16_optimizer_moments = false;
  // No FP32 master copy: the optimizer updates the BF16 parameters
  // themselves (torchtitan training.dtype "bfloat16"; 2 bytes per parameter
  // instead of 2 + 4). Job key master_weights: fp32 | bf16.
  bool bf16_master_weights = false;
  // Gradients accumulated and kept in BF16 (2 bytes per parameter instead
  // of 4; torchtitan training.dtype "bfloat16"). Job key gradients:
  // fp32 | bf16.
  bool bf16_gradients = false;
  // FP8 training caches the routed experts' SwiGLU inputs in FP8 for the
  // backward (DeepSeek-V3 §3.3.3 "Low-Precision Storage"): 1 byte instead of
  // 2 per element. Job key fp8_moe_cache; only with precision fp8.
  bool fp8_moe_cache = false;
  // Where the routing probabilities multiply the routed copies. true: inside
  // the experts, on the activation output (Megatron-Core
  // megatron/core/transformer/moe/experts.py activation_func_with_probs;
  // the combine's unpermute then takes no probabilities), so a copy keeps its
  // dispatched input and fp32 probability but no expert output. false: after
  // (or before) the experts, a second h-wide tensor per copy kept for the
  // probability's gradient (torchtitan score_before_experts). Job key
  // moe_probs_in_activation.
  bool moe_probs_in_activation = false;
  int64_t global_batch_tokens() const { return seq_len * global_batch_seqs; }
};

// ----------------------------------------------------------------- plan ---

enum class Axis { kTp, kCp, kEp, kDp, kPp };

// A parallel layout. String form (ParsePlan/FormatPlan):
//   "tp=1,pp=16,ep=64,dp=128,zero=1,mbs=1,recompute=none,schedule=1f1b"
// Expert parallelism folds into the other axes as in Megatron-Core (MoE
// parallel folding, arXiv:2504.14960): the expert layers re-split the
// tp*cp*dp ranks of a pipeline stage as etp x ep x edp, so ep*etp divides
// tp*cp*dp and tp*cp*pp*dp == chips.
struct PlanSpec {
  int64_t tp = 1;
  int64_t cp = 1;
  int64_t pp = 1;
  int64_t vpp = 1;  // virtual stages per pipeline rank (interleaved, zbv, dualpipev: 2)
  int64_t dp = 1;
  int64_t ep = 1;
  int64_t etp = 1;   // tensor parallel inside each expert (Megatron expert-tp)
  int zero = 1;      // 0: replicated, 1: optimizer, 2: +grads, 3: +weights (FSDP)
  int64_t hsdp = 0;  // >0: shard weights/optimizer over this many dp ranks, replicate across
  int64_t mbs = 1;   // micro-batch size in sequences
  Recompute recompute = Recompute::kNone;
  // recompute == kModules: the recompute_module bits (plan string
  // "recompute=layernorm+moe_act"); 0 otherwise.
  unsigned recompute_modules = 0;
  // Activation offload to host memory (Megatron-LM
  // --fine-grained-activation-offloading --offload-modules): offload_module
  // bits; plan string "offload=expert_fc1+moe_act". 0 = none.
  unsigned offload_modules = 0;
  Schedule schedule = Schedule::kNone;
  bool sp = true;  // sequence parallel alongside tp
  // Expert-parallel all-to-all overlap without DualPipe (EpOverlap):
  // combined 1F1B ("a2a_overlap=1": the forward of micro-batch i+1 runs layer
  // by layer beside the backward of micro-batch i), two-batch overlap
  // ("a2a_overlap=tbo") or shared-expert overlap ("a2a_overlap=shared").
  // Rules in ValidatePlan, cost in doc/cost-model.md (Expert all-to-all overlap).
  EpOverlap a2a_overlap = EpOverlap::kNone;
  // Rank mapping onto a TPU torus (TorusMapping; "mesh=compact"). Only a
  // cluster whose innermost tier is a torus accepts kCompact (ValidatePlan).
  TorusMapping mesh = TorusMapping::kLinear;
  // Axis placement onto the tiers, innermost first. Empty = default rule
  // (tp, ep/cp, dp, pp: see doc/cost-model.md).
  std::vector<Axis> order;
  // Explicit layers per pipeline stage (size pp*vpp); empty = default split.
  std::vector<int64_t> stage_layers;
  // Uneven ends: decoder layers on the first and on the last pipeline rank
  // (Megatron-LM --decoder-first-pipeline-num-layers /
  // --decoder-last-pipeline-num-layers; torchtitan's first/last stage
  // "less layers"), the embedding on the first and the head and loss on the
  // last besides. The middle ranks split the rest evenly; each rank's layers
  // split evenly over its vpp chunks. 0 = unset (the default split). Plan
  // strings "first_layers=N,last_layers=M".
  int64_t first_layers = 0;
  int64_t last_layers = 0;

  int64_t chips() const { return tp * cp * pp * dp; }
};

// --------------------------------------------------------------- parsing ---

// Plan strings. Errors name the plan field: "plan field 'tp': ...".
Result<PlanSpec> ParsePlan(std::string_view text);
std::string FormatPlan(const PlanSpec& plan);

// Models: `text` is a Hugging Face config.json, a DeepSeek inference config
// or occam's own YAML/JSON model format; `origin` names it in messages.
Result<ModelSpec> ParseModel(std::string_view text, std::string_view origin);
// Clusters in occam's YAML/JSON cluster format.
Result<ClusterSpec> ParseCluster(std::string_view text, std::string_view origin);
// Jobs in occam's YAML/JSON job format.
Result<JobSpec> ParseJob(std::string_view text, std::string_view origin);

// The built-in catalog (compiled in from data/).
std::vector<std::string> CatalogModelNames();
Result<ModelSpec> CatalogModel(std::string_view name);
std::vector<std::string> CatalogChipKeys();
Result<ChipSpec> CatalogChip(std::string_view key);
// `chip` with its fitted GEMM calibration (gemm_efficiency, gemm_half_tokens,
// gemm_half_width, moe_dispatch_host_s) replaced by data/calibration.yaml's
// gemm.default prior, as before any fit; measured values (fp8 ratio) kept.
// The cross-validation starts its fits from it.
Result<ChipSpec> PriorCalibration(const ChipSpec& chip);
std::vector<std::string> CatalogClusterNames();
// Builds a cluster from a template ("h100", "gb200", "tpu-v5p", ...) sized to
// `chips` (TPU slices get a torus shape; GPU clusters get nodes/racks + fabric).
Result<ClusterSpec> CatalogCluster(std::string_view name, int64_t chips);
// The template sized to its example size (num_chips in data/clusters/<name>.yaml).
Result<ClusterSpec> CatalogClusterTemplate(std::string_view name);

// Checks a plan against a model, cluster and job (divisibility, sizes).
// Messages name the plan field ("plan field 'ep': 256 experts are not
// divisible by ep=48").
Status ValidatePlan(const ModelSpec& model, const ClusterSpec& cluster, const JobSpec& job,
                    const PlanSpec& plan);
Status ValidateModel(const ModelSpec& model, std::string_view origin);
Status ValidateCluster(const ClusterSpec& cluster, std::string_view origin);
Status ValidateJob(const JobSpec& job, std::string_view origin);

}  // namespace occam
