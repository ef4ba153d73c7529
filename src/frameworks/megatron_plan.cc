// Megatron-LM arguments -> occam plan and job (the inverse of megatron.cc).
// DP = world/(TP*PP*CP) and the expert grid from parallel_state.py; the
// schedule from schedules.py (PP = 1: none; VPP > 1: interleaved; else
// 1F1B); layer splits from the layout string, the uneven-end flags or an
// even split (arguments.py requires num_layers % PP == 0 without them).
#include "frameworks/internal.h"

namespace occam::frameworks_internal {
namespace {

Result<int64_t> Int(const FrameworkFile& f, const std::string& key, int64_t dflt, int64_t min) {
  if (!Value(f, key)) return dflt;
  OCCAM_ASSIGN_OR_RETURN(int64_t v, IntValue(f, key));
  if (v < min) return FileError(f, "--" + key, "must be >= " + S(min) + " (got " + S(v) + ")");
  return v;
}

// Expands "(tt|)*2" groups and "t*3" repeats of a layout string.
Result<std::string> ExpandLayout(const FrameworkFile& f, std::string s) {
  const std::string key = "--pipeline-model-parallel-layout";
  for (int guard = 0; guard < 64; ++guard) {
    const size_t open = s.find('(');
    if (open == std::string::npos) break;
    const size_t close = s.find(')', open);
    if (close == std::string::npos || close + 1 >= s.size() || s[close + 1] != '*') {
      return FileError(f, key, "'(' without a matching ')*n'");
    }
    size_t j = close + 2;
    while (j < s.size() && isdigit(static_cast<unsigned char>(s[j]))) ++j;
    if (j == close + 2) return FileError(f, key, "')*' must be followed by a count");
    const int64_t n = std::stoll(s.substr(close + 2, j - close - 2));
    std::string body = s.substr(open + 1, close - open - 1), rep;
    for (int64_t k = 0; k < n && rep.size() < 100000; ++k) rep += body;
    s = s.substr(0, open) + rep + s.substr(j);
  }
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == ',' || s[i] == ' ') continue;
    if (i + 1 < s.size() && s[i + 1] == '*') {
      size_t j = i + 2;
      while (j < s.size() && isdigit(static_cast<unsigned char>(s[j]))) ++j;
      if (j == i + 2) return FileError(f, key, "'*' must be followed by a count");
      const int64_t n = std::stoll(s.substr(i + 2, j - i - 2));
      if (n > 100000) return FileError(f, key, "repeat count too large");
      out += std::string(static_cast<size_t>(n), s[i]);
      i = j - 1;
      continue;
    }
    out += s[i];
  }
  return out;
}

// Layers per stage from the layout; checks E first, L last, MTP count.
Result<std::vector<int64_t>> LayoutStages(const FrameworkFile& f, const ModelSpec& m) {
  const std::string key = "--pipeline-model-parallel-layout";
  OCCAM_ASSIGN_OR_RETURN(std::string s,
                         ExpandLayout(f, *Value(f, "pipeline-model-parallel-layout")));
  std::vector<int64_t> stages(1, 0);
  int64_t e = 0, l = 0, mtp = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const char ch = s[i];
    if (ch == '|') {
      stages.push_back(0);
    } else if (ch == 't') {
      ++stages.back();
    } else if (ch == 'E') {
      if (stages.size() != 1 || e++)
        return FileError(f, key, "E must appear once, on the first stage");
    } else if (ch == 'L') {
      if (l++) return FileError(f, key, "L must appear once");
    } else if (ch == 'm') {
      ++mtp;
    } else {
      return FileError(f, key, std::string("unknown symbol '") + ch + "' (use E, t, m, L)");
    }
  }
  if (!e || !l || s.back() != 'L')
    return FileError(f, key, "needs E on the first stage and L last");
  if (mtp != m.mtp_layers) {
    return FileError(f, key,
                     "places " + S(mtp) + " MTP layers but the model has " + S(m.mtp_layers));
  }
  return stages;
}

// Pipeline: stage list, VPP and schedule.
Status ResolvePipeline(const FrameworkFile& f, const ModelSpec& m, PlanSpec& p) {
  const int64_t L = m.num_layers;
  OCCAM_ASSIGN_OR_RETURN(int64_t vpp_ranks, Int(f, "num-virtual-stages-per-pipeline-rank", 0, 1));
  OCCAM_ASSIGN_OR_RETURN(int64_t per_vstage, Int(f, "num-layers-per-virtual-pipeline-stage", 0, 1));
  OCCAM_ASSIGN_OR_RETURN(int64_t first, Int(f, "decoder-first-pipeline-num-layers", 0, 1));
  OCCAM_ASSIGN_OR_RETURN(int64_t last, Int(f, "decoder-last-pipeline-num-layers", 0, 1));
  const bool layout = Has(f, "pipeline-model-parallel-layout");
  if ((vpp_ranks > 0) + (per_vstage > 0) + layout > 1) {
    return InvalidInput(
        f.origin +
        ": give at most one of --num-virtual-stages-per-pipeline-rank, "
        "--num-layers-per-virtual-pipeline-stage and --pipeline-model-parallel-layout "
        "(arguments.py)");
  }
  p.vpp = vpp_ranks > 0 ? vpp_ranks : 1;
  if (per_vstage > 0) {
    if (L % (p.pp * per_vstage) != 0) {
      return FileError(f, "--num-layers-per-virtual-pipeline-stage",
                       S(L) + " layers do not split into PP*" + S(per_vstage) + "-layer stages");
    }
    p.vpp = L / (p.pp * per_vstage);
  }
  if (layout) {
    OCCAM_ASSIGN_OR_RETURN(p.stage_layers, LayoutStages(f, m));
    const int64_t n = static_cast<int64_t>(p.stage_layers.size());
    if (n % p.pp != 0) {
      return FileError(f, "--pipeline-model-parallel-layout",
                       S(n) + " stages are not a multiple of PP = " + S(p.pp));
    }
    p.vpp = n / p.pp;
  } else if ((first > 0 || last > 0) && p.pp > 1) {
    if (p.vpp > 1) {
      return InvalidInput(f.origin +
                          ": uneven first/last stages with virtual stages: occam reads "
                          "them only as a --pipeline-model-parallel-layout");
    }
    const int64_t ends = (first > 0) + (last > 0);
    const int64_t middle = L - first - last, ranks = p.pp - ends;
    if (ranks < 1 || middle % ranks != 0 || middle < ranks) {
      return InvalidInput(f.origin + ": the layers left after the uneven first/last stages (" +
                          S(middle) + ") do not split evenly over " + S(ranks) + " ranks");
    }
    p.stage_layers.assign(p.pp, middle / ranks);
    if (first > 0) p.stage_layers.front() = first;
    if (last > 0) p.stage_layers.back() = last;
  } else if (p.pp > 1) {
    if (L % (p.pp * p.vpp) != 0) {
      return FileError(f, "--num-layers",
                       S(L) + " layers are not divisible by PP*VPP = " + S(p.pp * p.vpp) +
                           " (give a layout or uneven ends)");
    }
    p.stage_layers.assign(p.pp * p.vpp, L / (p.pp * p.vpp));
  }
  if (p.pp == 1 && (p.vpp > 1 || layout)) {
    return InvalidInput(f.origin +
                        ": virtual pipeline stages need --pipeline-model-parallel-size > 1");
  }
  if (p.pp == 1) p.stage_layers.clear();
  p.schedule = p.pp == 1 ? Schedule::kNone : p.vpp > 1 ? Schedule::kInterleaved : Schedule::k1F1B;
  return Status::Ok();
}

Status ResolveSharding(const FrameworkFile& f, PlanSpec& p) {
  p.zero = Has(f, "use-distributed-optimizer") ? 1 : 0;
  if (Has(f, "use-megatron-fsdp")) {
    const std::string s =
        Value(f, "data-parallel-sharding-strategy").value_or("optim_grads_params");
    const char* names[] = {"no_shard", "optim", "optim_grads", "optim_grads_params"};
    p.zero = -1;
    for (int z = 0; z < 4; ++z) {
      if (s == names[z]) p.zero = z;
    }
    if (p.zero < 0) {
      return FileError(f, "--data-parallel-sharding-strategy",
                       "'" + s + "' is not no_shard, optim, optim_grads or optim_grads_params");
    }
  }
  OCCAM_ASSIGN_OR_RETURN(int64_t inst, Int(f, "num-distributed-optimizer-instances", 0, 1));
  if (inst > 0) {
    if (p.dp % inst != 0) {
      return FileError(f, "--num-distributed-optimizer-instances",
                       S(inst) + " does not divide DP = " + S(p.dp));
    }
    p.hsdp = p.dp / inst;
  }
  if (p.dp * p.cp == 1) p.zero = 1;  // one data-parallel rank: nothing to shard
  return Status::Ok();
}

Status ResolveRecompute(const FrameworkFile& f, PlanSpec& p, std::vector<std::string>& notes) {
  // Fine-grained activation offloading (offload-modules, space-separated).
  if (Has(f, "fine-grained-activation-offloading")) {
    std::string joined = Value(f, "offload-modules").value_or("");
    for (char& ch : joined) {
      if (ch == ' ' || ch == ',') ch = '+';
    }
    const std::optional<unsigned> o = ParseOffloadModules(joined);
    if (!o) {
      return FileError(f, "--offload-modules",
                       "'" + joined + "': occam offloads expert_fc1 and moe_act only");
    }
    p.offload_modules = *o;
  }
  const auto g = Value(f, "recompute-granularity");
  if (Has(f, "recompute-activations") || g == std::string("selective")) {
    p.recompute = Recompute::kSelective;
    const auto mods = Value(f, "recompute-modules");
    if (mods && *mods != "core_attn") {
      // A space-separated module list (transformer_config.py recompute_modules).
      std::string joined = *mods;
      for (char& ch : joined) {
        if (ch == ' ' || ch == ',') ch = '+';
      }
      const std::optional<unsigned> m = ParseRecomputeModules(joined);
      if (!m) {
        return FileError(
            f, "--recompute-modules",
            "'" + *mods + "' names a module occam does not know (" + RecomputeModuleNames() + ")");
      }
      p.recompute = Recompute::kModules;
      p.recompute_modules = *m;
    }
  } else if (g == std::string("full")) {
    p.recompute = Recompute::kFull;
    if (Value(f, "recompute-method") == std::string("block")) {
      notes.push_back("--recompute-method block: occam models full recompute of every layer");
    }
  } else if (g) {
    return FileError(f, "--recompute-granularity", "'" + *g + "' is not full or selective");
  }
  return Status::Ok();
}

// --moe-router-load-balancing-type (default aux_loss) and
// --moe-router-enable-expert-bias (DeepSeek's aux-loss-free bias).
Status ResolveBalance(const FrameworkFile& f, const ModelSpec& m, JobSpec& j) {
  if (!m.moe) return Status::Ok();
  const std::string t = Value(f, "moe-router-load-balancing-type").value_or("aux_loss");
  if (Has(f, "moe-router-enable-expert-bias") && t == "none") {
    j.balance = BalanceMethod::kAuxFree;
  } else if (t == "aux_loss") {
    j.balance = BalanceMethod::kAuxLoss;
  } else if (t == "seq_aux_loss") {
    j.balance = BalanceMethod::kSeqAux;
  } else if (t == "global_aux_loss") {
    j.balance = BalanceMethod::kGlobalAuxLoss;
  } else if (t == "none") {
    j.balance = BalanceMethod::kNone;
  } else {
    return FileError(f, "--moe-router-load-balancing-type",
                     "'" + t + "' is not aux_loss, seq_aux_loss, global_aux_loss or none");
  }
  return Status::Ok();
}

}  // namespace

Result<ImportedLayout> MegatronResolve(const FrameworkFile& f, const Ctx& c) {
  ImportedLayout out;
  PlanSpec& p = out.plan;
  const int64_t world = c.cluster.num_chips;
  OCCAM_ASSIGN_OR_RETURN(p.tp, Int(f, "tensor-model-parallel-size", 1, 1));
  OCCAM_ASSIGN_OR_RETURN(p.pp, Int(f, "pipeline-model-parallel-size", 1, 1));
  OCCAM_ASSIGN_OR_RETURN(p.cp, Int(f, "context-parallel-size", 1, 1));
  if (world % (p.tp * p.pp * p.cp) != 0) {
    return InvalidInput(f.origin + ": world size " + S(world) + " is not divisible by TP*PP*CP = " +
                        S(p.tp * p.pp * p.cp) + " (parallel_state.py)");
  }
  p.dp = world / (p.tp * p.pp * p.cp);
  OCCAM_ASSIGN_OR_RETURN(p.ep, Int(f, "expert-model-parallel-size", 1, 1));
  OCCAM_ASSIGN_OR_RETURN(p.etp, Int(f, "expert-tensor-parallel-size", c.model.moe ? p.tp : 1, 1));
  p.sp = p.tp == 1 || Has(f, "sequence-parallel");
  if (Has(f, "moe-shared-expert-overlap")) p.a2a_overlap = EpOverlap::kSharedExpert;
  if (Has(f, "overlap-moe-expert-parallel-comm")) p.a2a_overlap = EpOverlap::kCombined1F1B;
  OCCAM_ASSIGN_OR_RETURN(p.mbs, Int(f, "micro-batch-size", 1, 1));
  OCCAM_RETURN_IF_ERROR(ResolvePipeline(f, c.model, p));
  OCCAM_RETURN_IF_ERROR(ResolveSharding(f, p));
  OCCAM_RETURN_IF_ERROR(ResolveRecompute(f, p, out.notes));
  if (const auto t = Value(f, "cp-comm-type"); t && *t != "p2p") {
    return FileError(f, "--cp-comm-type", "'" + *t + "': occam models the p2p ring only");
  }
  JobSpec& j = out.job;
  j = c.job;
  if (!Has(f, "seq-length"))
    return FileError(f, "--seq-length", "missing (Megatron-LM requires it)");
  OCCAM_ASSIGN_OR_RETURN(j.seq_len, Int(f, "seq-length", 0, 1));
  OCCAM_ASSIGN_OR_RETURN(j.global_batch_seqs, Int(f, "global-batch-size", p.mbs * p.dp, 1));
  if (!Has(f, "global-batch-size")) out.notes.push_back("--global-batch-size not given: MBS*DP");
  j.precision = Has(f, "fp8-format") ? Precision::kFp8 : Precision::kBf16;
  // TransformerConfig.fp8_output_proj (default false): the LM head in FP8.
  j.fp8_output_proj = Has(f, "fp8-output-proj");
  // TransformerConfig.cross_entropy_loss_fusion (default false): without it
  // the loss is VocabParallelCrossEntropy's op-by-op passes.
  j.cross_entropy = Has(f, "cross-entropy-loss-fusion") ? CrossEntropyImpl::kFused
                                                        : CrossEntropyImpl::kVocabParallel;
  if (j.cross_entropy == CrossEntropyImpl::kVocabParallel) {
    out.notes.push_back(
        "--cross-entropy-loss-fusion not given: the loss runs unfused, 52 B per logit against "
        "the fused 20 (cross_entropy=vocab_parallel); adding the flag saves that time");
  }
  j.overlap_grad_reduce = Has(f, "overlap-grad-reduce");
  // --gradient-accumulation-fusion is on unless turned off (megatron/training/arguments.py).
  j.grad_accumulation_fusion = !Has(f, "no-gradient-accumulation-fusion");
  j.tp_comm_overlap = Has(f, "tp-comm-overlap");
  OCCAM_RETURN_IF_ERROR(ResolveBalance(f, c.model, j));
  if (Has(f, "fp16")) out.notes.push_back("--fp16 is costed as bf16 (same bytes and FLOP rate)");
  return out;
}

}  // namespace occam::frameworks_internal
