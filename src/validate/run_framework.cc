// Framework settings of a published run that its layout does not show: the
// defaults of the framework it states (`framework`), of the software
// generation it ran on (by its `date`), and the settings it states in free
// text. Rules and sources: doc/validation.md ("Unstated fields").
#include <optional>
#include <string>
#include <vector>

#include "validate/run_setup.h"
#include "validate/run_text.h"

namespace occam::validate {

bool IsMegatronFamily(Framework f) {
  return f == Framework::kMegatronLm || f == Framework::kNemo || f == Framework::kMegatronBridge;
}

Framework FrameworkOf(const PublishedRun& run) {
  if (!run.framework) return Framework::kUnstated;
  const std::string& f = *run.framework;
  if (f == "megatron-lm") return Framework::kMegatronLm;
  if (f == "nemo") return Framework::kNemo;
  if (f == "megatron-bridge") return Framework::kMegatronBridge;
  if (f == "deepspeed") return Framework::kDeepSpeed;
  if (f == "torchtitan") return Framework::kTorchtitan;
  if (f == "maxtext") return Framework::kMaxText;
  if (f == "paxml") return Framework::kPaxml;
  return Framework::kUnstated;  // ParseRuns accepts only the names above
}

// Each default is read in the framework's own configuration code:
// - Megatron-LM: --use-distributed-optimizer is a store-true flag (plain
//   data parallelism unless set; megatron/training/arguments.py);
//   TransformerConfig.recompute_granularity defaults to None (no
//   recomputation; megatron/core/transformer/transformer_config.py); pp > 1
//   without a virtual pipeline size runs 1F1B (get_forward_backward_func,
//   megatron/core/pipeline_parallel/schedules.py); an unset
//   expert_tensor_parallel_size is the tensor-parallel size
//   (megatron/core/model_parallel_config.py).
// - NeMo 2 and Megatron-Bridge run Megatron-Core (recompute, schedule and
//   expert TP as above); their recipes' optimizer
//   distributed_fused_adam_with_cosine_annealing sets
//   use_distributed_optimizer=True (NeMo nemo/collections/llm/recipes/optim/adam.py).
// - DeepSpeed: zero_optimization.stage defaults to 0
//   (deepspeed/runtime/zero/config.py), activation checkpointing is off
//   unless configured (deepspeed/runtime/activation_checkpointing/config.py),
//   and its pipeline engine runs a 1F1B TrainSchedule (deepspeed/runtime/pipe/schedule.py).
// - torchtitan: FSDP2 over all data-parallel ranks (data_parallel_shard_degree
//   -1) with fsdp_reshard_after_forward "default", which reshards after
//   forward (ZeRO-3) without pipeline parallelism and keeps the gathered
//   weights (ZeRO-2-like) with it (torchtitan/distributed/fsdp.py); selective
//   activation checkpointing and the 1F1B schedule are the defaults of
//   torchtitan/config/configs.py.
// - MaxText: ici_fsdp_parallelism -1 (weights, gradients and optimizer state
//   sharded over the chips: ZeRO-3) and remat_policy full
//   (MaxText/configs/base.yml); its only non-circular pipeline is GPipe.
// PaxML has no default taken here.
FrameworkDefaults DefaultsOf(Framework framework) {
  FrameworkDefaults d;
  switch (framework) {
    case Framework::kMegatronLm:
      d = {0,
           Recompute::kNone,
           Schedule::k1F1B,
           true,
           false,
           "NVIDIA/Megatron-LM: megatron/training/arguments.py, "
           "megatron/core/transformer/transformer_config.py"};
      break;
    case Framework::kNemo:
    case Framework::kMegatronBridge:
      d = {1,
           Recompute::kNone,
           Schedule::k1F1B,
           true,
           false,
           "Megatron-Core defaults; NVIDIA/NeMo: nemo/collections/llm/recipes/optim/adam.py"};
      break;
    case Framework::kDeepSpeed:
      d = {0,
           Recompute::kNone,
           Schedule::k1F1B,
           false,
           false,
           "deepspeedai/DeepSpeed: deepspeed/runtime/zero/config.py"};
      break;
    case Framework::kTorchtitan:
      d = {3,
           Recompute::kSelective,
           Schedule::k1F1B,
           false,
           true,
           "pytorch/torchtitan: torchtitan/config/configs.py, torchtitan/distributed/fsdp.py"};
      break;
    case Framework::kMaxText:
      d = {3,
           Recompute::kFull,
           Schedule::kGpipe,
           false,
           false,
           "AI-Hypercomputer/maxtext: MaxText/configs/base.yml"};
      break;
    case Framework::kPaxml:
    case Framework::kUnstated:
      break;
  }
  return d;
}

// torchtitan's Llama 3 training configurations (the 8B, 70B and 405B
// presets, train_configs/llama3_*.toml through 2024 and
// torchtitan/models/llama3/train_configs/ since 2025) all set [training]
// seq_len = 8192, and the presets that checkpoint selectively set
// [activation_checkpoint] selective_ac_option = 'op' (operator-level SAC).
// A Llama 3 architecture is recognised by its tokenizer's vocabulary
// (128,256 entries) on a dense model, not by the run's text.
std::optional<FrameworkModelConfig> FrameworkConfigFor(Framework framework,
                                                       const ModelSpec& model) {
  constexpr int64_t kLlama3Vocab = 128256;
  if (framework == Framework::kTorchtitan && model.vocab == kLlama3Vocab && !model.moe) {
    return FrameworkModelConfig{
        8192, Recompute::kSelectiveOp,
        "torchtitan's Llama 3 training configs, train_configs/llama3_8b.toml, llama3_70b.toml, "
        "llama3_405b.toml: seq_len = 8192, selective_ac_option = 'op'"};
  }
  return std::nullopt;
}

// torchtitan's local batch is one data-parallel rank's sequences per step.
// Without pipeline parallelism it runs as one micro-batch (gradient
// accumulation only when training.global_batch_size asks for it, default
// -1: none). With pipeline parallelism it is split into
// pipeline_parallel_microbatches, which defaulted to the number of stages
// (torchtitan/parallelisms/pipelining_utils.py, commit 9dec370, Dec 2024);
// later releases changed that default, so runs dated 2025 or later keep
// their micro-batch open under pp.
std::optional<DerivedMicroBatch> TorchtitanMicroBatch(const PublishedRun& run, Framework framework,
                                                      int64_t pp) {
  if (framework != Framework::kTorchtitan) return std::nullopt;
  double local = 0;
  for (const auto& [key, value] : run.measured.extra) {
    if (key == "local_batch_size") local = value;
  }
  const auto n = static_cast<int64_t>(local);
  if (n < 1 || static_cast<double>(n) != local) return std::nullopt;
  if (pp <= 1) {
    return DerivedMicroBatch{n, std::to_string(n) +
                                    " (the stated local batch: torchtitan runs it as one "
                                    "micro-batch without pipeline parallelism)"};
  }
  const int year = RunYear(run);
  if (year == 0 || year > 2024 || n % pp != 0) return std::nullopt;
  return DerivedMicroBatch{
      n / pp, std::to_string(n / pp) + " (the stated local batch " + std::to_string(n) +
                  " over torchtitan's default pipeline_parallel_microbatches = pp = " +
                  std::to_string(pp) + ", pipelining_utils.py at Dec 2024)"};
}

int RunYear(const PublishedRun& run) {
  if (!run.date || run.date->size() < 4) return 0;
  return std::stoi(run.date->substr(0, 4));
}

// FlashAttention (Dao et al. 2022, arXiv:2205.14135) appeared in May 2022 and
// reached the training frameworks from 2023, so a run dated up to 2022
// wrote its score matrix to HBM (Korthikanti et al. 2022 Table 1 lists those
// tensors), whatever its framework. A Megatron-LM run of that time also
// trained with the default attention and hidden dropout of 0.1
// (megatron/arguments.py, --attention-dropout / --hidden-dropout), and its
// data-parallel all-reduce ran once after the last backward (Megatron-LM's
// local DDP, allreduce_gradients() in train_step); bucketed overlap came with
// Megatron-Core's overlap_grad_reduce in 2023. Later and undated runs keep
// the JobSpec defaults.
//
// DeepSpeed's ZeRO-3 as released in 2021 (v0.3) issued one all-gather per
// parameter tensor (_allgather_param, or one per module with a synchronous
// _allgather_params) and one reduce-scatter per gradient tensor
// (_reduce_scatter_gradient), deepspeed/runtime/zero/partition_parameters.py;
// its zero_optimization.overlap_comm defaulted to false
// (deepspeed/runtime/zero/constants.py), which reduces on the compute stream
// (average_tensor). A run dated up to 2021 whose ZeRO is DeepSpeed's gets
// both (JobSpec::fsdp_per_tensor, fsdp_overlap); they act only under ZeRO-3.
bool DeepSpeedZero(const PublishedRun& run) {
  return FrameworkOf(run) == Framework::kDeepSpeed ||
         Has(Lower(run.parallel.zero.value_or(std::string())), "deepspeed");
}

void SetDatedDeepSpeedZero(const PublishedRun& run, JobSpec* job,
                           std::vector<std::pair<std::string, std::string>>* filled) {
  if (RunYear(run) > 2021 || !DeepSpeedZero(run)) return;
  job->fsdp_per_tensor = true;
  job->fsdp_overlap = false;
  const std::string why = " (run dated " + *run.date + ": DeepSpeed ZeRO-3 v0.3, ";
  Fill(filled, "job.fsdp_per_tensor",
       "true" + why + "one all-gather and reduce-scatter per parameter tensor)");
  Fill(filled, "job.fsdp_overlap", "false" + why + "overlap_comm default false)");
}

// DeepSpeed's ZeRO keeps the model's gradients in the 16-bit training dtype
// (param.grad of the fp16 / bf16 parameters) and reduce-scatters them as
// they are (_reduce_scatter_gradient, deepspeed/runtime/zero/partition_parameters.py
// of v0.3.13); the fp32 copy exists only for the rank's optimizer partition.
void SetDeepSpeedGradients(const PublishedRun& run, JobSpec* job,
                           std::vector<std::pair<std::string, std::string>>* filled) {
  if (!DeepSpeedZero(run)) return;
  job->bf16_gradients = true;
  Fill(filled, "job.gradients",
       "16-bit (DeepSpeed ZeRO: the fp16/bf16 param.grad is what it reduces; "
       "partition_parameters.py _reduce_scatter_gradient)");
}

// The run's date as a month count (year * 12 + month - 1); a date that
// names only its year counts as that year's December, so that a capability
// is withheld only from runs certainly older than it. nullopt: undated.
std::optional<int> RunMonth(const PublishedRun& run) {
  const int year = RunYear(run);
  if (year == 0) return std::nullopt;
  int month = 12;
  if (run.date->size() >= 7 && (*run.date)[4] == '-') month = std::stoi(run.date->substr(5, 2));
  return year * 12 + month - 1;
}

// Megatron-LM fused the accumulation of each micro-batch's weight gradient
// into the weight-gradient GEMM on 2022-02-13 (commit 83b1e42f30, "gradient
// accumulation fusion", on unless --no-gradient-accumulation-fusion, with
// fp32 accumulation: bf16, as occam reads these runs' 16-bit precision).
// Before, its local DDP's backward hook added every micro-batch's gradient
// into the main-grad buffer (megatron/model/distributed.py,
// param.main_grad.add_(param.grad.data)); JobSpec::grad_accumulation_fusion.
// DeepSpeed's ZeRO handles the gradients itself.
void SetDatedGradAccumulation(const PublishedRun& run, JobSpec* job,
                              std::vector<std::pair<std::string, std::string>>* filled) {
  constexpr int kFusion = 2022 * 12 + 1;  // 2022-02
  const std::optional<int> month = RunMonth(run);
  if (!month || *month >= kFusion || DeepSpeedZero(run)) return;
  job->grad_accumulation_fusion = false;
  Fill(filled, "job.grad_accumulation_fusion",
       "false (Megatron-LM dated " + *run.date +
           ", before gradient accumulation fusion (2022-02): its DDP hook adds each "
           "micro-batch's gradient into the main-grad buffer)");
}

void SetDatedDefaults(const PublishedRun& run, JobSpec* job,
                      std::vector<std::pair<std::string, std::string>>* filled) {
  const int year = RunYear(run);
  if (year == 0 || year > 2022) return;
  job->attention = AttentionImpl::kMaterialized;
  const std::string why = " (run dated " + *run.date + ", before FlashAttention";
  Fill(filled, "job.attention", "materialized" + why + " reached training frameworks)");
  SetDatedDeepSpeedZero(run, job, filled);
  if (FrameworkOf(run) != Framework::kMegatronLm) return;
  job->dropout = true;
  job->overlap_grad_reduce = false;
  Fill(filled, "job.dropout", "on, 0.1" + why + "; Megatron-LM's default)");
  Fill(filled, "job.overlap_grad_reduce",
       "false" + why + "; Megatron-LM's local DDP: one all-reduce after the last backward)");
  SetDatedGradAccumulation(run, job, filled);
}

// torchtitan's ChunkedLossWrapper (components/loss.py) runs the head and
// loss over Config.num_chunks chunks of the tokens, 8 unless set; a run
// whose notes state the wrapper gets the count it states after
// "num_chunks", else that default (recorded in `filled`).
void SetStatedLossChunks(const std::string& text, JobSpec* job,
                         std::vector<std::pair<std::string, std::string>>* filled) {
  if (!Has(text, "chunkedlosswrapper")) return;
  constexpr int64_t kChunkedLossWrapperDefaultChunks = 8;
  const int64_t stated = IntegerAfter(text, "num_chunks");
  job->loss_chunks = stated > 0 ? stated : kChunkedLossWrapperDefaultChunks;
  if (stated <= 0) {
    Fill(filled, "job.loss_chunks",
         "8 (ChunkedLossWrapper stated; its Config.num_chunks default, torchtitan "
         "components/loss.py)");
  }
}

// A torchtitan run: its source names the repository.
bool FromTorchtitan(const PublishedRun& run) { return Has(Lower(run.source), "torchtitan"); }

// torchtitan's attention is PyTorch's scaled_dot_product_attention
// (models/llama/model.py at the benchmark commit 9dec370). Its cuDNN backend
// was made opt-in after the 2.5 release (pytorch/pytorch#138522, 2024-10)
// and the default again only for 2.9 on Hopper and Blackwell
// (pytorch/pytorch#162073, merged 2025-09-04): a torchtitan run dated before
// September 2025 ran SDPA's flash backend, FlashAttention-2 (JobSpec
// attention flash2). Undated runs keep the fused kernel.
void SetDatedTorchtitanAttention(const PublishedRun& run, JobSpec* job,
                                 std::vector<std::pair<std::string, std::string>>* filled) {
  if (!FromTorchtitan(run) || job->attention != AttentionImpl::kFlash) return;
  constexpr int kCudnnSdpaDefault = 2025 * 12 + 8;  // 2025-09
  const std::optional<int> month = RunMonth(run);
  if (!month || *month >= kCudnnSdpaDefault) return;
  job->attention = AttentionImpl::kFlash2;
  Fill(filled, "job.attention",
       "flash2 (torchtitan dated " + *run.date +
           ": scaled_dot_product_attention ran its FlashAttention-2 backend, cuDNN attention "
           "being opt-in from pytorch/pytorch#138522 to #162073)");
}

// torchtitan's Float8 training (torchao's Float8Linear) scales dynamically
// by default: config_manager.py at 9dec370 sets --float8.scaling_type_input,
// _weight and _grad_output to "dynamic" and leaves
// --float8.enable_fsdp_float8_all_gather off (JobSpec::fp8_dynamic_scaling).
void SetTorchtitanFloat8(const PublishedRun& run, JobSpec* job,
                         std::vector<std::pair<std::string, std::string>>* filled) {
  if (!FromTorchtitan(run) || job->precision != Precision::kFp8) return;
  job->fp8_dynamic_scaling = true;
  Fill(filled, "job.fp8_dynamic_scaling",
       "true (torchtitan's float8 defaults: dynamic scaling of input, weight and gradient, "
       "16-bit FSDP all-gather; config_manager.py at 9dec370)");
}

// torchtitan under torch.compile (the run's precision states it). The
// blocks: compiled unless the run says only the loss was; otherwise eager
// PyTorch ops (JobSpec::eager_autograd). The loss: torchtitan's train.py
// left it uncompiled until build_cross_entropy_loss compiled it with
// training.compile (components/loss.py, commit bbb1b61 of 2025-04-02; at
// 9dec370 of December 2024 the compile call is commented out), so it is
// compiled where the run states so or is dated from April 2025 on.
void SetStatedTorchtitanCompile(const PublishedRun& run, JobSpec* job,
                                std::vector<std::pair<std::string, std::string>>* filled) {
  if (!FromTorchtitan(run)) return;
  const std::string p = Lower(run.precision.value_or(std::string()));
  const bool compile = Has(p, "torch.compile");
  const bool loss_only = Has(p, "compile of the loss");
  job->eager_autograd = !compile || loss_only;
  constexpr int kLossCompiledFrom = 2025 * 12 + 3;  // 2025-04
  const std::optional<int> month = RunMonth(run);
  const bool dated = month && *month >= kLossCompiledFrom;
  job->compiled_loss = compile && (loss_only || Has(p, "and loss") || dated);
  if (compile && !loss_only && !Has(p, "and loss") && dated) {
    Fill(filled, "job.compiled_loss",
         "true (torch.compile stated on a torchtitan dated " + *run.date +
             ": build_cross_entropy_loss compiles the loss with training.compile since "
             "2025-04, components/loss.py)");
  }
}

// torchtitan's training.dtype "bfloat16" keeps the parameters, their
// gradients and the optimizer's moments (created like the parameters) in
// BF16 with no fp32 master: 8 B per parameter (doc/cost-model.md §3).
void SetStatedStatePrecision(const PublishedRun& run, JobSpec* job,
                             std::vector<std::pair<std::string, std::string>>* filled) {
  const std::string p = Lower(run.precision.value_or(std::string()));
  if (!Has(p, "training dtype bfloat16")) return;
  job->bf16_master_weights = job->bf16_gradients = job->bf16_optimizer_moments = true;
  Fill(filled, "job.master_weights, gradients, optimizer_moments",
       "bf16 (the stated training dtype bfloat16: torchtitan keeps parameters, gradients and "
       "Adam moments in it, no fp32 master)");
}

// Megatron-LM's loss is Megatron-Core's vocab-parallel cross entropy, fused
// only with --cross-entropy-loss-fusion (store-true, default off since it
// was added on 2024-06-14, megatron/training/arguments.py; before it, the
// unfused one was the only one, megatron/mpu/cross_entropy.py).
void SetMegatronLmLoss(const PublishedRun& run, const std::string& text, JobSpec* job,
                       std::vector<std::pair<std::string, std::string>>* filled) {
  if (FrameworkOf(run) != Framework::kMegatronLm) return;
  if (Has(text, "cross-entropy-loss-fusion") || Has(text, "cross_entropy_loss_fusion")) return;
  job->cross_entropy = CrossEntropyImpl::kVocabParallel;
  Fill(filled, "job.cross_entropy",
       "vocab_parallel (Megatron-LM without --cross-entropy-loss-fusion, its default: "
       "VocabParallelCrossEntropy, one PyTorch op per pass over the fp32 logits)");
}

void SetStatedJobSettings(const PublishedRun& run, JobSpec* job,
                          std::vector<std::pair<std::string, std::string>>* filled) {
  const std::string text = Lower(run.notes + " " + run.parallel.other.value_or(std::string()));
  // Megatron-LM --tp-comm-overlap, NeMo recipes' tp_comm_overlap, XLA's async
  // collective fusion on TPU: collectives pipelined with their GEMMs.
  job->tp_comm_overlap = Has(text, "tp-comm-overlap") || Has(text, "tp comm overlap") ||
                         Has(text, "tp_comm_overlap") || Has(text, "async collective fusion");
  // Token dropping, stated as Megatron-Core's moe_expert_capacity_factor.
  job->capacity_factor = NumberAfter(text, "moe_expert_capacity_factor");
  // Benchmarks that force-balance the routing (Megatron-Core
  // --moe-router-force-load-balancing): every EP rank gets the mean load.
  if (Has(Lower(run.measured.definition), "force-balance") || Has(text, "force-balance") ||
      Has(text, "force_load_balancing")) {
    job->moe_imbalance = 1.0;
  }
  // torchtitan computes the loss with PyTorch's cross_entropy on the fp32
  // logits (components/loss.py), not a fused kernel, and pipelines through
  // torch.distributed.pipelining (its only pipeline runtime).
  if (FromTorchtitan(run)) {
    job->cross_entropy = CrossEntropyImpl::kEager;
    job->torch_pipelining = true;
  }
  SetMegatronLmLoss(run, text, job, filled);
  SetStatedTorchtitanCompile(run, job, filled);
  SetDatedTorchtitanAttention(run, job, filled);
  SetTorchtitanFloat8(run, job, filled);
  SetStatedLossChunks(text, job, filled);
  SetStatedStatePrecision(run, job, filled);
  SetDeepSpeedGradients(run, job, filled);
}

// ZeRO stages a framework could run at the run's date, read in its history:
// Megatron-LM's data parallelism was plain (stage 0) until the distributed
// optimizer (ZeRO-1-like; --use-distributed-optimizer, merged to main
// 2022-06-08, commit d07d29df14 "distrib-opt-nodupe") and had no fully
// sharded data parallelism (ZeRO-3) until PyTorch FSDP2 support
// (--use-torch-fsdp2, megatron/core/distributed/torch_fully_sharded_data_parallel.py,
// merged 2024-11-13, commit e1993fa6f7; first released in Megatron-Core
// 0.10.0); Megatron-Core 0.8.0 (2024-07) had neither FSDP2 nor its own FSDP
// (megatron/core/distributed/custom_fsdp, 2025-02). Other frameworks, and
// undated runs: every stage.
std::vector<int> ZeroStagesOffered(const PublishedRun& run, Framework framework) {
  const std::optional<int> month = RunMonth(run);
  if (framework != Framework::kMegatronLm || !month) return {0, 1, 2, 3};
  constexpr int kDistributedOptimizer = 2022 * 12 + 5;  // 2022-06
  constexpr int kTorchFsdp2 = 2024 * 12 + 10;           // 2024-11
  std::vector<int> stages = {0};
  if (*month >= kDistributedOptimizer) stages.push_back(1);
  if (*month >= kTorchFsdp2) {
    stages.push_back(2);
    stages.push_back(3);
  }
  return stages;
}

// Megatron-LM rejects --overlap-param-gather without the distributed
// optimizer (megatron/training/arguments.py), so a run that states the flag
// ran ZeRO-1-like sharding of the optimizer state.
std::optional<int> ZeroImpliedByFlags(const PublishedRun& run, Framework framework) {
  if (!IsMegatronFamily(framework)) return std::nullopt;
  const std::string text = Lower(run.notes + " " + run.parallel.other.value_or(std::string()));
  if (Has(text, "overlap-param-gather") || Has(text, "overlap_param_gather")) return 1;
  return std::nullopt;
}

// Megatron-LM overlaps pipeline-parallel communication with compute
// (--overlap-p2p-communication, on by default) only in the interleaved
// schedule: without a virtual pipeline size it sets overlap_p2p_comm to
// False with a warning (megatron/training/arguments.py, from Megatron-Core
// 0.8.0 of 2024-07 to 2026-08), and the non-interleaved schedule has no
// overlapped path (megatron/core/pipeline_parallel/schedules.py). So a
// Megatron-family run that states the overlap ran interleaved.
bool InterleavedImpliedByFlags(const PublishedRun& run, Framework framework) {
  if (!IsMegatronFamily(framework)) return false;
  const std::string text = Lower(run.notes + " " + run.parallel.other.value_or(std::string()));
  return Has(text, "pp comm overlap") || Has(text, "overlap-p2p-communication") ||
         Has(text, "overlap_p2p_comm");
}

}  // namespace occam::validate
