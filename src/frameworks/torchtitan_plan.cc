// torchtitan job TOML -> occam plan and job (the inverse of torchtitan.cc).
// Degrees and -1 from parallel_dims.py; stages per rank and schedule names
// from pipeline_parallel.py; batch from job_config.py (TOML era: sequences)
// or trainer.py (2026-08-20 on: tokens).
#include <algorithm>
#include <cctype>

#include "frameworks/internal.h"

namespace occam::frameworks_internal {
namespace {

Result<int64_t> Int(const FrameworkFile& f, const std::string& key, int64_t dflt) {
  if (!Value(f, key)) return dflt;
  return IntValue(f, key);
}

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  return s;
}

// Layers of each part of module_fqns_per_model_part ("a,b|c,d"); the
// decoder layers must appear once each, in order.
Result<std::vector<int64_t>> FqnStages(const FrameworkFile& f, int64_t layers) {
  const std::string key = "parallelism.module_fqns_per_model_part";
  const std::string v = *Value(f, key);
  std::vector<int64_t> out(1, 0);
  int64_t next = 0;
  std::string item;
  auto flush = [&]() -> Status {
    if (item.starts_with("layers.")) {
      const std::string n = item.substr(7);
      if (n.empty() || !std::all_of(n.begin(), n.end(), ::isdigit) || std::stoll(n) != next) {
        return FileError(f, key,
                         "'" + item + "' is out of order (expected layers." + S(next) + ")");
      }
      ++next;
      ++out.back();
    }
    item.clear();
    return Status::Ok();
  };
  for (char ch : v) {
    if (ch == ',' || ch == '|') {
      OCCAM_RETURN_IF_ERROR(flush());
      if (ch == '|') out.push_back(0);
    } else {
      item += ch;
    }
  }
  OCCAM_RETURN_IF_ERROR(flush());
  if (next != layers) {
    return FileError(f, key, "lists " + S(next) + " decoder layers but the model has " + S(layers));
  }
  return out;
}

Status ResolveSchedule(const FrameworkFile& f, const ModelSpec& m, PlanSpec& p,
                       std::vector<std::string>& notes) {
  if (p.pp == 1) {
    p.schedule = Schedule::kNone;
    return Status::Ok();
  }
  const std::string key = "parallelism.pipeline_parallel_schedule";
  const std::string name = Lower(Value(f, key).value_or("1F1B"));
  int64_t per_rank = 1;
  if (name == "1f1b") {
    p.schedule = Schedule::k1F1B;
  } else if (name == "gpipe") {
    p.schedule = Schedule::kGpipe;
  } else if (name == "interleaved1f1b") {
    p.schedule = Schedule::kInterleaved;
    per_rank = 2;
  } else if (name == "zbvzerobubble") {
    p.schedule = Schedule::kZbV;
    per_rank = 2;
  } else if (name == "dualpipev") {
    p.schedule = Schedule::kDualPipeV;
    per_rank = 2;
  } else {
    return FileError(f, key,
                     "'" + name +
                         "' is not a schedule occam models (1F1B, GPipe, "
                         "Interleaved1F1B, ZBVZeroBubble, DualPipeV)");
  }
  int64_t stages = p.pp * per_rank;
  if (Value(f, "parallelism.module_fqns_per_model_part")) {
    OCCAM_ASSIGN_OR_RETURN(p.stage_layers, FqnStages(f, m.num_layers));
    stages = static_cast<int64_t>(p.stage_layers.size());
  } else if (Value(f, "parallelism.pipeline_parallel_layers_per_stage")) {
    OCCAM_ASSIGN_OR_RETURN(int64_t lps,
                           IntValue(f, "parallelism.pipeline_parallel_layers_per_stage"));
    OCCAM_ASSIGN_OR_RETURN(int64_t fl,
                           Int(f, "parallelism.pipeline_parallel_first_stage_less_layers", 1));
    OCCAM_ASSIGN_OR_RETURN(int64_t ll,
                           Int(f, "parallelism.pipeline_parallel_last_stage_less_layers", 1));
    if (lps < 1)
      return FileError(f, "parallelism.pipeline_parallel_layers_per_stage", "must be >= 1");
    stages = (m.num_layers + fl + ll + lps - 1) / lps;
    notes.push_back("pipeline_parallel_layers_per_stage: occam splits the " + S(stages) +
                    " stages by its own default rule, not torchtitan's");
  }
  if (stages % p.pp != 0) {
    return InvalidInput(f.origin + ": " + S(stages) +
                        " pipeline stages are not a multiple of "
                        "pipeline_parallel_degree " +
                        S(p.pp) + " (pipeline_parallel.py)");
  }
  p.vpp = stages / p.pp;
  const bool multi = p.schedule == Schedule::kInterleaved || p.schedule == Schedule::kZbV ||
                     p.schedule == Schedule::kDualPipeV;
  if ((multi && p.vpp < 2) || (!multi && p.vpp != 1) ||
      (p.schedule != Schedule::kInterleaved && multi && p.vpp != 2)) {
    return FileError(f, key,
                     S(p.vpp) + " stages per rank do not suit " + name +
                         " (single-stage schedules 1, V schedules 2, interleaved >= 2)");
  }
  return Status::Ok();
}

Status ResolveDegrees(const FrameworkFile& f, const Ctx& c, PlanSpec& p) {
  const int64_t world = c.cluster.num_chips;
  OCCAM_ASSIGN_OR_RETURN(int64_t rep, Int(f, "parallelism.data_parallel_replicate_degree", 1));
  OCCAM_ASSIGN_OR_RETURN(int64_t shard, Int(f, "parallelism.data_parallel_shard_degree", -1));
  OCCAM_ASSIGN_OR_RETURN(p.tp, Int(f, "parallelism.tensor_parallel_degree", 1));
  OCCAM_ASSIGN_OR_RETURN(p.cp, Int(f, "parallelism.context_parallel_degree", 1));
  OCCAM_ASSIGN_OR_RETURN(p.pp, Int(f, "parallelism.pipeline_parallel_degree", 1));
  for (int64_t v : {rep, p.tp, p.cp, p.pp}) {
    if (v < 1)
      return InvalidInput(
          f.origin + ": parallel degrees must be >= 1 (-1 only for data_parallel_shard_degree)");
  }
  const int64_t rest = rep * p.tp * p.cp * p.pp;
  if (shard == -1) {
    if (world % rest != 0) {
      return FileError(f, "parallelism.data_parallel_shard_degree",
                       "-1 cannot fill: world " + S(world) + " is not divisible by " + S(rest));
    }
    shard = world / rest;
  }
  if (shard < 1 || shard * rest != world) {
    return InvalidInput(f.origin + ": dp_replicate*dp_shard*cp*tp*pp = " + S(shard * rest) +
                        " must equal the world size " + S(world) + " (parallel_dims.py)");
  }
  p.dp = rep * shard;
  if (shard > 1 || p.cp > 1) {
    p.zero = 3;
    p.hsdp = rep > 1 ? shard : 0;
  } else {
    p.zero = rep > 1 ? 0 : 1;
  }
  if (p.dp * p.cp == 1) p.zero = 1;  // one data-parallel rank: nothing to shard
  OCCAM_ASSIGN_OR_RETURN(p.ep, Int(f, "parallelism.expert_parallel_degree", 1));
  OCCAM_ASSIGN_OR_RETURN(p.etp, Int(f, "parallelism.expert_tensor_parallel_degree", 1));
  if (p.ep < 1 || p.etp < 1) return InvalidInput(f.origin + ": expert degrees must be >= 1");
  if (Value(f, "parallelism.enable_sequence_parallel")) {
    OCCAM_ASSIGN_OR_RETURN(p.sp, BoolValue(f, "parallelism.enable_sequence_parallel"));
  }
  if (p.tp == 1) p.sp = true;
  return Status::Ok();
}

Status ResolveRecompute(const FrameworkFile& f, PlanSpec& p, std::vector<std::string>& notes) {
  const auto mode = Value(f, "activation_checkpoint.mode");
  if (!mode)
    notes.push_back("[activation_checkpoint] mode not given: torchtitan's default selective");
  const std::string m = mode.value_or("selective");
  if (m == "none")
    p.recompute = Recompute::kNone;
  else if (m == "full")
    p.recompute = Recompute::kFull;
  else if (m == "selective")
    p.recompute = Recompute::kSelective;
  else
    return FileError(
        f, "activation_checkpoint.mode",
        "'" + m + "' is not none, selective or full (occam does not model memory_budget)");
  const auto opt = Value(f, "activation_checkpoint.selective_ac_option");
  if (p.recompute == Recompute::kSelective && opt && *opt != "op") {
    return FileError(f, "activation_checkpoint.selective_ac_option",
                     "'" + *opt + "': occam models per-op selective recompute (\"op\") only");
  }
  return Status::Ok();
}

}  // namespace

Result<ImportedLayout> TorchtitanResolve(const FrameworkFile& f, const Ctx& c) {
  ImportedLayout out;
  PlanSpec& p = out.plan;
  OCCAM_RETURN_IF_ERROR(ResolveDegrees(f, c, p));
  OCCAM_RETURN_IF_ERROR(ResolveSchedule(f, c.model, p, out.notes));
  OCCAM_RETURN_IF_ERROR(ResolveRecompute(f, p, out.notes));
  JobSpec& j = out.job;
  j = c.job;
  // torchtitan's loss: PyTorch cross_entropy on the fp32 logits
  // (components/loss.py), not a fused kernel.
  j.cross_entropy = CrossEntropyImpl::kEager;
  // Its pipeline is torch.distributed.pipelining (stage outputs and
  // per-micro-batch receive buffers kept, doc/cost-model.md §3).
  j.torch_pipelining = true;
  // torch.compile: compile.enable with compile.components, ["model",
  // "loss"] unless set (torchtitan config/job_config.py, class Compile).
  // A compiled loss keeps its 16-bit logits only; uncompiled blocks run as
  // eager ops (doc/cost-model.md §3).
  bool compile = false;
  if (Value(f, "compile.enable")) {
    OCCAM_ASSIGN_OR_RETURN(compile, BoolValue(f, "compile.enable"));
  }
  const std::string parts = Value(f, "compile.components").value_or("model,loss");
  j.compiled_loss = compile && parts.find("loss") != std::string::npos;
  j.eager_autograd = !compile || parts.find("model") == std::string::npos;
  const bool tokens = Value(f, "training.num_tokens_per_microbatch_per_dp_rank") ||
                      Value(f, "training.max_context_length");
  OCCAM_ASSIGN_OR_RETURN(j.seq_len,
                         Int(f, tokens ? "training.max_context_length" : "training.seq_len", 2048));
  if (j.seq_len < 1) return InvalidInput(f.origin + ": the sequence length must be >= 1");
  if (tokens) {
    OCCAM_ASSIGN_OR_RETURN(int64_t per_mb,
                           Int(f, "training.num_tokens_per_microbatch_per_dp_rank", 16384));
    if (per_mb % j.seq_len != 0 || per_mb < j.seq_len) {
      return FileError(
          f, "training.num_tokens_per_microbatch_per_dp_rank",
          S(per_mb) + " is not a whole number of " + S(j.seq_len) + "-token sequences");
    }
    p.mbs = per_mb / j.seq_len;
    OCCAM_ASSIGN_OR_RETURN(int64_t npm, Int(f, "parallelism.num_pp_microbatches", 1));
    OCCAM_ASSIGN_OR_RETURN(int64_t step, Int(f, "training.num_tokens_per_train_step", -1));
    j.global_batch_seqs = step == -1 ? p.mbs * p.dp * (p.pp > 1 ? npm : 1) : step / j.seq_len;
  } else {
    OCCAM_ASSIGN_OR_RETURN(int64_t local, Int(f, "training.local_batch_size", 8));
    OCCAM_ASSIGN_OR_RETURN(int64_t global, Int(f, "training.global_batch_size", -1));
    OCCAM_ASSIGN_OR_RETURN(int64_t micro,
                           Int(f, "parallelism.pipeline_parallel_microbatch_size", 1));
    p.mbs = p.pp > 1 ? micro : local;
    if (p.mbs < 1 || local < 1) return InvalidInput(f.origin + ": batch sizes must be >= 1");
    j.global_batch_seqs = global == -1 ? local * p.dp : global;
  }
  const std::string conv = Value(f, "model.converters").value_or("");
  j.precision = conv.find("float8") != std::string::npos || conv.find("mx") != std::string::npos
                    ? Precision::kFp8
                    : Precision::kBf16;
  j.overlap_grad_reduce = true;  // FSDP2/DDP overlap their collectives with compute
  if (Value(f, "parallelism.enable_async_tensor_parallel") == std::string("true"))
    j.tp_comm_overlap = true;
  return out;
}

}  // namespace occam::frameworks_internal
