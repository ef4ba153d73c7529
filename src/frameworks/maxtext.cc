// MaxText YAML overrides (base.yml keys) for an occam plan.
//
// Sources (AI-Hypercomputer/maxtext, doc/frameworks.md § MaxText):
// src/maxtext/configs/base.yml and types.py (mesh axes, ici_*/dcn_* per
// axis, pipeline keys, remat_policy), src/maxtext/utils/max_utils.py (ICI
// product = devices per slice, DCN product = slices), docs/guides/
// optimization/sharding.md (expert axis acts as FSDP outside the MoE layers;
// pipelines are GPipe or circular only).
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <numeric>

#include "frameworks/internal.h"

namespace occam::frameworks_internal {
namespace {

// The shortest text that reads back as `v` (fmt's "{}", as std::to_chars).
std::string Num(double v) {
  std::string s = fmt::format("{}", v);
  if (s.find('.') == std::string::npos && s.find('e') == std::string::npos) s += ".0";
  return s;
}

std::string_view Remat(Recompute r) {
  switch (r) {
    case Recompute::kNone:
      return "none";
    case Recompute::kSelective:
    case Recompute::kSelectiveOp:
    case Recompute::kModules:
    case Recompute::kDots:
      return "minimal";
    case Recompute::kDotsExceptMlpWi:
      return "save_dot_except_mlpwi";
    case Recompute::kDotsExceptMlp:
      return "save_dot_except_mlp";
    case Recompute::kFull:
      return "full";
  }
  return "full";
}

}  // namespace

int64_t MaxTextSliceSize(const ClusterSpec& cluster) {
  if (cluster.tiers.size() >= 2 && cluster.tiers.front().size < cluster.num_chips) {
    return cluster.tiers.front().size;
  }
  return cluster.num_chips;
}

std::optional<std::vector<MaxTextAxis>> MaxTextMesh(const ClusterSpec& cluster, const PlanSpec& p) {
  const int64_t shard = p.zero == 3 ? (p.hsdp > 0 ? p.hsdp : p.dp) : 1;
  const int64_t expert = p.ep;
  if (shard % expert != 0 && p.zero == 3) return std::nullopt;
  const int64_t fsdp = p.zero == 3 ? shard / expert : 1;
  if (p.dp % (fsdp * expert) != 0) return std::nullopt;
  std::vector<MaxTextAxis> axes = {{"tensor", p.tp},
                                   {"context", p.cp},
                                   {"expert", expert},
                                   {"fsdp", fsdp},
                                   {"data", p.dp / (fsdp * expert)},
                                   {"pipeline", p.pp}};
  int64_t rem = MaxTextSliceSize(cluster);
  for (auto& a : axes) {
    const int64_t deg = a.ici;
    if (deg % rem != 0 && rem % deg != 0) return std::nullopt;
    a.ici = std::gcd(deg, rem);
    a.dcn = deg / a.ici;
    rem /= a.ici;
  }
  if (rem != 1) return std::nullopt;
  return axes;
}

namespace {

// Schedules, stages and micro-batches.
void MaxTextPipelineProblems(const Ctx& c, const PlanSpec& p, std::vector<std::string>& out) {
  if (p.recompute == Recompute::kModules || p.offload_modules != 0) {
    out.push_back(
        "MaxText names its remat policies by saved tensors (remat_policy), not by "
        "Megatron-LM's recompute or offload modules");
  }
  if (p.pp > 1 && (p.schedule != Schedule::kGpipe || p.vpp != 1)) {
    out.push_back(
        "MaxText pipelines run GPipe (num_pipeline_repeats = 1) or circular repeats of "
        "it; it has no " +
        std::string(ScheduleName(p.schedule)) + " schedule (docs/guides/optimization/sharding.md)");
  }
  if (p.pp > 1) {
    const auto chunks = ChunkLayers(c.model, p);
    if (std::adjacent_find(chunks.begin(), chunks.end(), std::not_equal_to<>()) != chunks.end()) {
      out.push_back(
          "MaxText gives every stage num_layers_per_pipeline_stage layers; the plan's "
          "layer split is uneven");
    }
    if (c.model.moe && c.model.moe->first_k_dense > 0) {
      out.push_back(
          "MaxText keeps the first dense layers of a DeepSeek-style MoE outside the "
          "pipeline (pipeline_parallel_layers); occam's stages hold them");
    }
    if (MicroBatches(c.job, p) % p.pp != 0) {
      out.push_back("MaxText needs num_pipeline_microbatches % stages == 0 (types.py); m = " +
                    S(MicroBatches(c.job, p)) + ", pp = " + S(p.pp));
    }
  }
}

// Data parallelism, experts and the rest.
void MaxTextShardingProblems(const Ctx& c, const PlanSpec& p, std::vector<std::string>& out) {
  const bool data_ranks = p.dp * p.cp > 1;
  if (data_ranks && p.zero == 2) {
    out.push_back(
        "MaxText has no ZeRO-2 setting: the data axis replicates (ZeRO-1 with "
        "shard_optimizer_over_data) and the fsdp axis shards everything");
  }
  if (p.hsdp > 0 && p.zero < 3) out.push_back("hsdp needs zero=3 in MaxText (fsdp with data)");
  if (p.cp > 1 && p.zero < 3) {
    out.push_back(
        "MaxText shards the weights over the context axis like fsdp [our reading of "
        "base.yml's logical axis rules]: cp > 1 needs zero=3");
  }
  if (p.ep > 1 && p.zero < 3) {
    out.push_back(
        "MaxText's expert axis shards the other weights like FSDP (sharding.md): ep > 1 "
        "needs zero=3");
  }
  if (p.ep > 1 && (p.hsdp > 0 ? p.hsdp : p.dp) % p.ep != 0) {
    out.push_back(
        "MaxText's expert axis is drawn from the data-parallel ranks (the fsdp group "
        "under hsdp); ep=" +
        S(p.ep) + " does not divide it");
  }
  if (c.model.moe && p.tp > 1 && p.etp != p.tp) {
    out.push_back(
        "MaxText has no expert-TP degree: experts are sharded over the tensor axis "
        "too, so etp must equal tp=" +
        S(p.tp));
  }
  if (p.tp > 1 && !p.sp) out.push_back("sp=false is not expressible in MaxText");
  if (p.a2a_overlap == EpOverlap::kCombined1F1B || p.a2a_overlap == EpOverlap::kSharedExpert) {
    out.push_back("MaxText has no " + std::string(EpOverlapName(p.a2a_overlap)) +
                  " expert all-to-all overlap (its method is tbo: use_batch_split_schedule)");
  }
  if (p.mesh == TorusMapping::kCompact) {
    out.push_back(
        "mesh=compact: allow_split_physical_axes lets JAX split torus axes between logical "
        "axes, but the split it picks may differ from occam's interleaved mapping");
  }
  if (!p.order.empty()) {
    out.push_back(
        "MaxText's ici/dcn split places axes by its mesh; occam writes its default "
        "placement only, not the plan's axis order");
  }
  if (c.cluster.chip.is_tpu && p.cp > 1 && c.job.seq_len % (p.cp * p.cp) != 0) {
    out.push_back(
        "MaxText's ring context parallelism on TPU needs max_target_length % cp^2 == 0 "
        "(types.py)");
  }
  if (!MaxTextMesh(c.cluster, p)) {
    out.push_back("the axes do not split into whole ICI x DCN factors at the slice size of " +
                  S(MaxTextSliceSize(c.cluster)) + " chips");
  }
}

}  // namespace

std::vector<std::string> MaxTextProblems(const Ctx& c, const PlanSpec& p) {
  std::vector<std::string> out;
  MaxTextPipelineProblems(c, p, out);
  MaxTextShardingProblems(c, p, out);
  return out;
}

FrameworkConfig MaxTextWrite(const Ctx& c, const PlanSpec& p) {
  FrameworkConfig out;
  const auto mesh = *MaxTextMesh(c.cluster, p);
  const int64_t slice = MaxTextSliceSize(c.cluster);
  std::string& t = out.text;
  t = "# MaxText overrides (base.yml keys) for " + FormatPlan(p) + "\n# " + c.model.name + " on " +
      S(c.cluster.num_chips) + " x " + c.cluster.chip.name + ": " + S(c.cluster.num_chips / slice) +
      " slice(s) of " + S(slice) + " chips (ici_* inside a slice, dcn_* across slices)\n";
  if (const ModelName* n = FindByCatalog(c.model.name); n && !n->maxtext.empty()) {
    t += "model_name: " + std::string(n->maxtext) + "\n";
  } else {
    out.notes.push_back("set model_name for " + c.model.name + " (occam knows no MaxText name)");
  }
  t += "num_slices: " + S(c.cluster.num_chips / slice) + "\n";
  for (const char* tier : {"ici", "dcn"}) {
    for (const auto& a : mesh) {
      t += std::string(tier) + "_" + std::string(a.name) +
           "_parallelism: " + S(tier[0] == 'i' ? a.ici : a.dcn) + "\n";
    }
  }
  if (p.zero == 1 && p.dp > 1) t += "shard_optimizer_over_data: true\n";
  const int64_t m = MicroBatches(c.job, p);
  const double chips = static_cast<double>(c.cluster.num_chips);
  if (p.pp > 1) {
    t += "per_device_batch_size: " + Num(static_cast<double>(c.job.global_batch_seqs) / chips) +
         "\n";
    t += "gradient_accumulation_steps: 1\n";
  } else {
    t += "per_device_batch_size: " + Num(static_cast<double>(p.mbs * p.dp) / chips) + "\n";
    t += "gradient_accumulation_steps: " + S(m) + "\n";
  }
  t += "max_target_length: " + S(c.job.seq_len) + "\n";
  t += "remat_policy: " + std::string(Remat(p.recompute)) + "\n";
  t += "dtype: bfloat16\nweight_dtype: float32\n";
  if (c.job.precision == Precision::kFp8) t += "quantization: fp8\n";
  if (p.cp > 1) t += "context_parallel_strategy: ring\n";
  if (p.mesh == TorusMapping::kCompact) t += "allow_split_physical_axes: true\n";
  if (p.a2a_overlap == EpOverlap::kTwoBatch) {
    t += "use_batch_split_schedule: true\nbatch_split_factor: 2\n";
  }
  if (p.pp > 1) {
    t += "num_layers_per_pipeline_stage: " + S(c.model.num_layers / p.pp) + "\n";
    t += "num_pipeline_repeats: 1\n";
    t += "num_pipeline_microbatches: " + S(m) + "\n";
    t += "pipeline_parallel_layers: " + S(c.model.num_layers) + "\n";
  }
  if (p.recompute == Recompute::kSelective) {
    out.notes.push_back(
        "remat_policy minimal keeps the matmul outputs and recomputes the rest, "
        "the closest MaxText policy to occam's selective recompute");
  }
  if (!c.cluster.chip.is_tpu) {
    out.notes.push_back("on GPUs MaxText's slices are hosts: ici_* inside a node, dcn_* across");
  }
  return out;
}

}  // namespace occam::frameworks_internal
