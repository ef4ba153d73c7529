// Reading a Megatron-LM argument file or command line back into occam's
// model, job and plan. Flag meanings and defaults as in megatron.cc's
// sources (arguments.py, parallel_state.py); doc/frameworks.md lists them.
#include <algorithm>
#include <set>

#include "frameworks/internal.h"

namespace occam::frameworks_internal {
namespace {

// Flags occam reads (layout, job and model architecture).
const std::set<std::string>& MegatronUnderstood() {
  static const std::set<std::string> k = {"tensor-model-parallel-size",
                                          "pipeline-model-parallel-size",
                                          "context-parallel-size",
                                          "expert-model-parallel-size",
                                          "expert-tensor-parallel-size",
                                          "sequence-parallel",
                                          "num-layers-per-virtual-pipeline-stage",
                                          "num-virtual-stages-per-pipeline-rank",
                                          "pipeline-model-parallel-layout",
                                          "decoder-first-pipeline-num-layers",
                                          "decoder-last-pipeline-num-layers",
                                          "use-distributed-optimizer",
                                          "use-megatron-fsdp",
                                          "data-parallel-sharding-strategy",
                                          "num-distributed-optimizer-instances",
                                          "outer-dp-sharding-strategy",
                                          "ckpt-format",
                                          "micro-batch-size",
                                          "global-batch-size",
                                          "seq-length",
                                          "recompute-granularity",
                                          "recompute-method",
                                          "recompute-num-layers",
                                          "recompute-modules",
                                          "recompute-activations",
                                          "fine-grained-activation-offloading",
                                          "offload-modules",
                                          "overlap-moe-expert-parallel-comm",
                                          "moe-shared-expert-overlap",
                                          "moe-token-dispatcher-type",
                                          "cp-comm-type",
                                          "overlap-grad-reduce",
                                          "no-gradient-accumulation-fusion",
                                          "overlap-param-gather",
                                          "tp-comm-overlap",
                                          "bf16",
                                          "fp16",
                                          "fp8-format",
                                          "fp8-recipe",
                                          "fp8-output-proj",
                                          "cross-entropy-loss-fusion",
                                          "cross-entropy-fusion-impl",
                                          "num-layers",
                                          "hidden-size",
                                          "ffn-hidden-size",
                                          "num-attention-heads",
                                          "group-query-attention",
                                          "num-query-groups",
                                          "kv-channels",
                                          "swiglu",
                                          "normalization",
                                          "vocab-size",
                                          "max-position-embeddings",
                                          "position-embedding-type",
                                          "untie-embeddings-and-output-weights",
                                          "add-qkv-bias",
                                          "disable-bias-linear",
                                          "multi-latent-attention",
                                          "q-lora-rank",
                                          "kv-lora-rank",
                                          "qk-head-dim",
                                          "qk-pos-emb-head-dim",
                                          "v-head-dim",
                                          "num-experts",
                                          "moe-router-topk",
                                          "moe-ffn-hidden-size",
                                          "moe-shared-expert-intermediate-size",
                                          "moe-layer-freq",
                                          "moe-router-num-groups",
                                          "moe-router-group-topk",
                                          "mtp-num-layers",
                                          "moe-grouped-gemm",
                                          "moe-router-load-balancing-type",
                                          "moe-router-enable-expert-bias"};
  return k;
}

// Common flags that do not shape the layout or the step: read quietly.
const std::set<std::string>& Quiet() {
  static const std::set<std::string> k = {"lr",
                                          "min-lr",
                                          "lr-decay-style",
                                          "lr-warmup-iters",
                                          "lr-warmup-fraction",
                                          "lr-decay-iters",
                                          "train-iters",
                                          "train-samples",
                                          "weight-decay",
                                          "clip-grad",
                                          "adam-beta1",
                                          "adam-beta2",
                                          "adam-eps",
                                          "init-method-std",
                                          "data-path",
                                          "split",
                                          "save",
                                          "load",
                                          "save-interval",
                                          "eval-interval",
                                          "eval-iters",
                                          "log-interval",
                                          "tokenizer-type",
                                          "tokenizer-model",
                                          "vocab-file",
                                          "merge-file",
                                          "seed",
                                          "rotary-base",
                                          "norm-epsilon",
                                          "hidden-dropout",
                                          "attention-dropout",
                                          "use-mcore-models",
                                          "transformer-impl",
                                          "attention-backend",
                                          "use-flash-attn",
                                          "distributed-backend",
                                          "tensorboard-dir",
                                          "wandb-project",
                                          "wandb-exp-name",
                                          "log-throughput",
                                          "moe-router-score-function",
                                          "moe-router-topk-scaling-factor",
                                          "moe-aux-loss-coeff",
                                          "moe-router-dtype",
                                          "make-vocab-size-divisible-by",
                                          "rotary-scaling-factor",
                                          "no-masked-softmax-fusion",
                                          "attention-softmax-in-fp32",
                                          "exit-duration-in-mins",
                                          "qk-layernorm",
                                          "rotary-percent",
                                          "mock-data",
                                          "num-workers",
                                          "data-cache-path",
                                          "manual-gc",
                                          "use-rotary-position-embeddings"};
  return k;
}

// Flags that change the layout in ways occam does not model: the read stops.
const std::set<std::string>& Unsupported() {
  static const std::set<std::string> k = {"tensor-parallel-num-weight-shards",
                                          "hybrid-context-parallel",
                                          "hierarchical-context-parallel-sizes",
                                          "use-torch-fsdp2",
                                          "microbatch-group-size-per-virtual-pipeline-stage",
                                          "account-for-embedding-in-pipeline-split",
                                          "account-for-loss-in-pipeline-split",
                                          "optimizer-cpu-offload",
                                          "fine-grained-activation-offloading",
                                          "offload-modules",
                                          "fp4-format",
                                          "distribute-saved-activations"};
  return k;
}

// Shell-like words: quotes group, backslash-newline joins, '#' starts a comment.
std::vector<std::string> Words(std::string_view t) {
  std::vector<std::string> out;
  std::string cur;
  bool in_word = false;
  for (size_t i = 0; i < t.size(); ++i) {
    const char ch = t[i];
    if (ch == '\\' && i + 1 < t.size() && (t[i + 1] == '\n' || t[i + 1] == '\r')) {
      ++i;
      continue;
    }
    if (ch == '#' && !in_word) {
      while (i < t.size() && t[i] != '\n') ++i;
      continue;
    }
    if (ch == '"' || ch == '\'') {
      const size_t end = t.find(ch, i + 1);
      cur += std::string(t.substr(i + 1, end == t.npos ? t.npos : end - i - 1));
      in_word = true;
      i = end == t.npos ? t.size() : end;
      continue;
    }
    if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r') {
      if (in_word) out.push_back(cur);
      cur.clear();
      in_word = false;
      continue;
    }
    cur += ch;
    in_word = true;
  }
  if (in_word) out.push_back(cur);
  return out;
}

Status Record(FrameworkFile& f, const std::string& key, const std::string& value) {
  if (f.values.count(key)) return FileError(f, "--" + key, "given twice");
  if (Unsupported().count(key)) {
    return FileError(f, "--" + key,
                     "changes the layout in a way occam does not model (doc/frameworks.md); "
                     "remove it to estimate the rest");
  }
  if (Quiet().count(key)) return Status::Ok();
  if (!MegatronUnderstood().count(key)) {
    if (NameMayChangeLayout(key)) {
      return FileError(f, "--" + key,
                       "unknown argument that may change the layout; occam stops rather than "
                       "estimate a different layout (remove it, or see doc/frameworks.md)");
    }
    f.warnings.push_back(f.origin + ": --" + key + " is not read by occam (ignored)");
    return Status::Ok();
  }
  f.values[key] = value.empty() ? "true" : value;
  return Status::Ok();
}

}  // namespace

Result<FrameworkFile> MegatronParse(std::string_view text, std::string_view origin) {
  FrameworkFile f;
  f.framework = Framework::kMegatron;
  f.origin = std::string(origin);
  const auto words = Words(text);
  size_t start = 0;
  for (size_t i = 0; i < words.size(); ++i) {
    if (words[i].ends_with(".py")) start = i + 1;
  }
  // Launcher words before the script: torchrun sizes only.
  for (size_t i = 0; i + 1 < start; ++i) {
    for (const char* k : {"--nnodes", "--nproc-per-node", "--nproc_per_node"}) {
      if (words[i] == k) f.values[std::string("launcher.") + (k + 2)] = words[i + 1];
      if (words[i].starts_with(std::string(k) + "=")) {
        f.values[std::string("launcher.") + (k + 2)] = words[i].substr(std::string(k).size() + 1);
      }
    }
  }
  for (size_t i = start; i < words.size();) {
    const std::string& w = words[i];
    if (!w.starts_with("--") || w.size() < 3) {
      return InvalidInput(f.origin + ": '" + w +
                          "' is not an argument (expected --flag [value]); is this a "
                          "Megatron-LM argument file?");
    }
    std::string key = w.substr(2), value;
    if (const size_t eq = key.find('='); eq != std::string::npos) {
      value = key.substr(eq + 1);
      key = key.substr(0, eq);
      ++i;
    } else {
      ++i;
      while (i < words.size() && !words[i].starts_with("--")) {
        value += (value.empty() ? "" : " ") + words[i];
        ++i;
      }
    }
    std::replace(key.begin(), key.end(), '_', '-');
    OCCAM_RETURN_IF_ERROR(Record(f, key, value));
  }
  if (f.values.empty()) return InvalidInput(f.origin + ": no Megatron-LM arguments found");
  return f;
}

Result<std::optional<int64_t>> MegatronChips(const FrameworkFile& f) {
  const auto n = Value(f, "launcher.nnodes"), g = Value(f, "launcher.nproc-per-node");
  const auto g2 = Value(f, "launcher.nproc_per_node");
  if (!n || (!g && !g2)) return std::optional<int64_t>();
  OCCAM_ASSIGN_OR_RETURN(int64_t nodes, IntValue(f, "launcher.nnodes"));
  OCCAM_ASSIGN_OR_RETURN(int64_t per,
                         IntValue(f, g ? "launcher.nproc-per-node" : "launcher.nproc_per_node"));
  if (nodes < 1 || per < 1)
    return FileError(f, "torchrun", "--nnodes and --nproc-per-node must be >= 1");
  return std::optional<int64_t>(nodes * per);
}

}  // namespace occam::frameworks_internal
