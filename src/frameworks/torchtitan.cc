// torchtitan job configuration (TOML, and the same as --section.key flags)
// for an occam plan.
//
// Format: the TOML job files of torchtitan up to commit 238fa99 (2026-02-23,
// after tag v0.2.2), the last with TOML files: torchtitan/config/job_config.py.
// Rules (pytorch/torchtitan, doc/frameworks.md § torchtitan):
// torchtitan/distributed/parallel_dims.py (dp_replicate*dp_shard*cp*tp*pp ==
// world; EP is carved from dp_shard*cp*tp ranks, ep*etp dividing them; etp
// 1 or tp), torchtitan/distributed/pipeline_parallel.py (schedules, stages
// per rank), torch/distributed/pipelining/schedules.py (Interleaved1F1B
// needs M % max(1, M // PP) == 0; DualPipeV needs M >= stages),
// torchtitan/models/deepseek_v3/mtp.py (no MTP with pipeline parallelism).
#include "frameworks/internal.h"

namespace occam::frameworks_internal {
namespace {

struct Section {
  std::string name;
  std::vector<std::pair<std::string, std::string>> keys;  // value as TOML text
};

std::string Q(std::string_view s) { return "\"" + std::string(s) + "\""; }

std::string_view TitanSchedule(Schedule s) {
  switch (s) {
    case Schedule::kGpipe:
      return "GPipe";
    case Schedule::k1F1B:
      return "1F1B";
    case Schedule::kInterleaved:
      return "Interleaved1F1B";
    case Schedule::kZbV:
      return "ZBVZeroBubble";
    case Schedule::kDualPipeV:
      return "DualPipeV";
    default:
      return "";
  }
}

int64_t ShardDegree(const PlanSpec& p) {
  if (p.zero < 3) return 1;
  return p.hsdp > 0 ? p.hsdp : p.dp;
}

// module_fqns_per_model_part: occam's chunks in model order; the embedding
// on the first, the final norm and output head on the last.
std::string ModuleFqns(const ModelSpec& m, const PlanSpec& p) {
  const auto chunks = ChunkLayers(m, p);
  std::string s = "[";
  int64_t layer = 0;
  for (size_t c = 0; c < chunks.size(); ++c) {
    s += c ? ",\n  [" : "\n  [";
    std::string items;
    if (c == 0) items += Q("tok_embeddings");
    for (int64_t k = 0; k < chunks[c]; ++k, ++layer) {
      items += (items.empty() ? "" : ", ") + Q("layers." + S(layer));
    }
    if (c + 1 == chunks.size())
      items += (items.empty() ? "" : ", ") + Q("norm") + ", " + Q("output");
    s += items + "]";
  }
  return s + "\n]";
}

std::vector<Section> Sections(const Ctx& c, const PlanSpec& p) {
  std::vector<Section> out;
  Section model{"model", {}};
  if (const ModelName* n = FindByCatalog(c.model.name); n && !n->torchtitan_name.empty()) {
    model.keys.push_back({"name", Q(n->torchtitan_name)});
    model.keys.push_back({"flavor", Q(n->torchtitan_flavor)});
  }
  if (c.job.precision == Precision::kFp8) model.keys.push_back({"converters", "[\"float8\"]"});
  if (!model.keys.empty()) out.push_back(model);
  const int64_t G = c.job.global_batch_seqs;
  out.push_back({"training",
                 {{"local_batch_size", S(p.pp > 1 ? G / p.dp : p.mbs)},
                  {"global_batch_size", S(G)},
                  {"seq_len", S(c.job.seq_len)},
                  {"mixed_precision_param", Q("bfloat16")}}});
  const int64_t shard = ShardDegree(p);
  Section par{"parallelism",
              {{"data_parallel_replicate_degree", S(p.dp / shard)},
               {"data_parallel_shard_degree", S(shard)},
               {"fsdp_reshard_after_forward", Q("default")},
               {"tensor_parallel_degree", S(p.tp)},
               {"context_parallel_degree", S(p.cp)},
               {"pipeline_parallel_degree", S(p.pp)}}};
  if (c.model.moe) {
    par.keys.push_back({"expert_parallel_degree", S(p.ep)});
    par.keys.push_back({"expert_tensor_parallel_degree", S(p.etp)});
  }
  if (p.pp > 1) {
    par.keys.push_back({"pipeline_parallel_schedule", Q(TitanSchedule(p.schedule))});
    par.keys.push_back({"pipeline_parallel_microbatch_size", S(p.mbs)});
    if (p.schedule == Schedule::kDualPipeV && p.ep > 1) {
      par.keys.push_back({"pipeline_parallel_expert_parallel_overlap", "true"});
    }
    par.keys.push_back({"module_fqns_per_model_part", ModuleFqns(c.model, p)});
  }
  if (c.job.tp_comm_overlap && p.tp > 1)
    par.keys.push_back({"enable_async_tensor_parallel", "true"});
  out.push_back(par);
  Section ac{"activation_checkpoint", {}};
  // The operator-level policy is torchtitan's closest to the dot-saving ones.
  const bool selective = p.recompute == Recompute::kSelective ||
                         p.recompute == Recompute::kSelectiveOp || SavesDots(p.recompute);
  const char* mode = p.recompute == Recompute::kFull ? "full" : selective ? "selective" : "none";
  ac.keys.push_back({"mode", Q(mode)});
  if (selective) ac.keys.push_back({"selective_ac_option", Q("op")});
  out.push_back(ac);
  if (c.job.tp_comm_overlap && p.tp > 1) {
    out.push_back({"compile", {{"enable", "true"}, {"components", "[\"model\"]"}}});
  }
  return out;
}

}  // namespace

namespace {

// Schedules, stages and micro-batches.
void TitanPipelineProblems(const Ctx& c, const PlanSpec& p, std::vector<std::string>& out) {
  if (p.recompute == Recompute::kModules) {
    out.push_back(
        "torchtitan has no module list to recompute (activation_checkpoint: full, selective op "
        "or layer, memory budget); recompute=" +
        RecomputeModulesName(p.recompute_modules) + " is Megatron-LM's --recompute-modules");
  }
  if (p.offload_modules != 0) {
    out.push_back("torchtitan offloads activations only in its experimental graph trainer");
  }
  if (p.schedule == Schedule::kZbH1) {
    out.push_back(
        "torchtitan has no single-stage zero-bubble schedule (ZB-H1); its zero-bubble "
        "schedules are InterleavedZeroBubble and ZBVZeroBubble");
  }
  if (p.schedule == Schedule::kDualPipe) {
    out.push_back(
        "torchtitan has no DualPipe (two directions, two weight copies); it runs "
        "DualPipeV");
  }
  const int64_t m = MicroBatches(c.job, p);
  if (p.schedule == Schedule::kInterleaved && m % std::max<int64_t>(1, m / p.pp) != 0) {
    out.push_back("PyTorch's Interleaved1F1B needs M % max(1, M // PP) == 0; M = " + S(m) +
                  ", PP = " + S(p.pp));
  }
  if (p.schedule == Schedule::kDualPipeV && m < 2 * p.pp) {
    out.push_back("PyTorch's DualPipeV needs at least as many microbatches as stages (" +
                  S(2 * p.pp) + "); M = " + S(m));
  }
}

// Data parallelism, experts and the rest.
void TitanShardingProblems(const Ctx& c, const PlanSpec& p, std::vector<std::string>& out) {
  const bool data_ranks = p.dp * p.cp > 1;
  if (data_ranks && (p.zero == 1 || p.zero == 2)) {
    out.push_back("torchtitan has no ZeRO-" + S(p.zero) +
                  ": FSDP2 (data_parallel_shard_degree) always shards the weights too, and "
                  "data_parallel_replicate_degree shards nothing");
  }
  if (data_ranks && p.zero == 0 && p.cp > 1) {
    out.push_back(
        "torchtitan applies FSDP over the context-parallel ranks: zero=0 with cp > 1 "
        "is not expressible");
  }
  if (p.hsdp > 0 && (p.zero < 3 || (p.hsdp == 1 && p.cp == 1))) {
    out.push_back("hsdp=" + S(p.hsdp) + " with zero=" + S(p.zero) +
                  " shards nothing in torchtitan; HSDP is zero=3 with hsdp > 1");
  }
  if (c.model.moe) {
    const int64_t region = ShardDegree(p) * p.cp * p.tp;
    if (region % (p.ep * p.etp) != 0) {
      out.push_back(
          "torchtitan carves expert parallelism from the data_parallel_shard_degree * "
          "cp * tp = " +
          S(region) + " ranks (parallel_dims.py); ep*etp = " + S(p.ep * p.etp) +
          " does not divide them");
    }
    if (p.etp != 1 && p.etp != p.tp) {
      out.push_back("torchtitan's expert_tensor_parallel_degree is 1 or tp (got " + S(p.etp) + ")");
    }
  }
  if (p.tp > 1 && !p.sp) {
    out.push_back(
        "torchtitan's TOML-era tensor parallelism always shards the sequence (sp=false "
        "is not expressible)");
  }
  if (p.a2a_overlap != EpOverlap::kNone) {
    out.push_back("torchtitan has no expert all-to-all overlap outside DualPipeV (a2a_overlap=" +
                  std::string(EpOverlapName(p.a2a_overlap)) + ")");
  }
  if (!p.order.empty()) {
    out.push_back(
        "torchtitan's device mesh order is fixed (pp, dp_replicate, dp_shard, cp, tp; "
        "parallel_dims.py); the plan's axis order is not expressible");
  }
  if (c.model.mtp_layers > 0 && p.pp > 1) {
    out.push_back(
        "torchtitan's multi-token prediction does not support pipeline parallelism "
        "(models/deepseek_v3/mtp.py)");
  }
}

}  // namespace

std::vector<std::string> TorchtitanProblems(const Ctx& c, const PlanSpec& p) {
  std::vector<std::string> out;
  TitanPipelineProblems(c, p, out);
  TitanShardingProblems(c, p, out);
  return out;
}

FrameworkConfig TorchtitanWrite(const Ctx& c, const PlanSpec& p) {
  FrameworkConfig out;
  out.text = "# torchtitan job config (TOML, --job.config_file) for " + FormatPlan(p) + "\n# " +
             c.model.name + " on " + S(c.cluster.num_chips) + " x " + c.cluster.chip.name + "\n";
  out.flags = "--job.config_file <this file>";
  for (const Section& s : Sections(c, p)) {
    out.text += "\n[" + s.name + "]\n";
    for (const auto& [k, v] : s.keys) {
      out.text += k + " = " + v + "\n";
      if (k == "module_fqns_per_model_part") continue;
      std::string flag_value = v;
      if (flag_value.size() >= 2 && flag_value.front() == '"') {
        flag_value = flag_value.substr(1, flag_value.size() - 2);
      }
      out.flags += " \\\n  --" + s.name + "." + k + " " + flag_value;
    }
  }
  out.flags += "\n";
  if (p.pp > 1) {
    out.notes.push_back(
        "module_fqns_per_model_part (occam's layer split) has no flag form here; "
        "keep it in the TOML");
  }
  if (!FindByCatalog(c.model.name) || FindByCatalog(c.model.name)->torchtitan_name.empty()) {
    out.notes.push_back("set [model] name and flavor for " + c.model.name +
                        " (occam knows no torchtitan name for it)");
  }
  if (c.cluster.chip.is_tpu) {
    out.notes.push_back("torchtitan runs on GPUs; " + c.cluster.chip.name +
                        " is a TPU, so this config only documents the layout");
  }
  if (c.model.moe && p.etp > 1) {
    out.notes.push_back(
        "expert_tensor_parallel_degree was removed on 2026-04-30 (torchtitan "
        "#3167); newer torchtitan runs etp=1 only");
  }
  if (p.schedule == Schedule::kDualPipeV && p.ep > 1) {
    out.notes.push_back(
        "pipeline_parallel_expert_parallel_overlap was removed in 2026-04 "
        "(torchtitan #2822); newer torchtitan's DualPipeV does not hide the "
        "expert all-to-all");
  }
  out.notes.push_back(
      "newer torchtitan (2026-08-20, #4121) counts the batch in tokens: "
      "num_tokens_per_microbatch_per_dp_rank = " +
      S(p.mbs * c.job.seq_len) + ", num_tokens_per_train_step = " + S(c.job.global_batch_tokens()) +
      ", max_context_length = " + S(c.job.seq_len) +
      (p.pp > 1 ? ", num_pp_microbatches = " + S(c.job.global_batch_seqs / p.dp / p.mbs) : ""));
  return out;
}

}  // namespace occam::frameworks_internal
