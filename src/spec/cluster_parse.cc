// occam's cluster and job formats (YAML/JSON; doc/input-formats.md) and
// their validation. Strict: unknown keys are errors with their key path.
#include <cmath>
#include <string>

#include "occam/message.h"
#include "occam/spec.h"
#include "spec/cluster_formats.h"
#include "spec/doc.h"
#include "spec/model_formats.h"

namespace occam {
namespace spec {
namespace {

Result<TierKind> ParseTierKind(const Node& n) {
  OCCAM_ASSIGN_OR_RETURN(std::string kind, n.String("kind"));
  if (kind == "switch") return TierKind::kSwitch;
  if (kind == "mesh") return TierKind::kMesh;
  if (kind == "torus") return TierKind::kTorus;
  if (kind == "fat_tree") return TierKind::kFatTree;
  if (kind == "dcn") return TierKind::kDcn;
  return n.Error("kind", "must be switch, mesh, torus, fat_tree or dcn (got " + Echo(kind) + ")");
}

Result<double> PositiveNumber(const Node& n, std::string_view key) {
  OCCAM_ASSIGN_OR_RETURN(double v, n.Number(key));
  if (!(v > 0)) return n.Error(key, "must be > 0 (got " + std::to_string(v) + ")");
  return v;
}

Result<TierSpec> ReadTier(const Node& n) {
  OCCAM_RETURN_IF_ERROR(
      n.CheckKeys({"name", "kind", "size", "bandwidth_gbps", "latency_us", "torus_dims",
                   "torus_wrap", "in_network_reduction", "oversubscription", "efficiency",
                   "half_bandwidth_mb", "in_network_efficiency", "alltoall_all_peers"}));
  TierSpec t;
  OCCAM_ASSIGN_OR_RETURN(t.name, n.String("name"));
  OCCAM_ASSIGN_OR_RETURN(t.kind, ParseTierKind(n));
  OCCAM_ASSIGN_OR_RETURN(t.size, IntAtLeast(n, "size", 1));
  OCCAM_ASSIGN_OR_RETURN(double gbps, PositiveNumber(n, "bandwidth_gbps"));
  t.bandwidth = GBps(gbps);
  OCCAM_ASSIGN_OR_RETURN(double lat, n.Number("latency_us"));
  if (lat < 0) return n.Error("latency_us", "must be >= 0 (got " + std::to_string(lat) + ")");
  t.latency = Microseconds(lat);
  OCCAM_ASSIGN_OR_RETURN(t.in_network_reduction, n.Bool("in_network_reduction", false));
  OCCAM_ASSIGN_OR_RETURN(t.alltoall_all_peers, n.Bool("alltoall_all_peers", false));
  OCCAM_ASSIGN_OR_RETURN(t.oversubscription, n.Number("oversubscription", 1.0));
  if (t.oversubscription < 1) {
    return n.Error("oversubscription", "must be >= 1 (1 = non-blocking; got " +
                                           std::to_string(t.oversubscription) + ")");
  }
  OCCAM_ASSIGN_OR_RETURN(t.efficiency, n.Number("efficiency"));
  if (!(t.efficiency > 0 && t.efficiency <= 1.5)) {
    return n.Error("efficiency", "must be in (0, 1.5] (got " + std::to_string(t.efficiency) + ")");
  }
  OCCAM_ASSIGN_OR_RETURN(double half_mb, PositiveNumber(n, "half_bandwidth_mb"));
  t.half_bandwidth_bytes = Bytes(half_mb * 1e6);
  OCCAM_ASSIGN_OR_RETURN(t.in_network_efficiency, n.Number("in_network_efficiency", 0.0));
  if (!(t.in_network_efficiency >= 0 && t.in_network_efficiency <= 1.5)) {
    return n.Error("in_network_efficiency",
                   "must be in [0, 1.5] (0 = no in-network all-reduce; got " +
                       std::to_string(t.in_network_efficiency) + ")");
  }
  if (t.kind != TierKind::kTorus) {
    for (std::string_view k : {"torus_dims", "torus_wrap"}) {
      if (n.Has(k)) return n.Error(k, "applies only to kind torus");
    }
    return t;
  }
  OCCAM_ASSIGN_OR_RETURN(const nlohmann::json* dims, n.Array("torus_dims"));
  OCCAM_ASSIGN_OR_RETURN(const nlohmann::json* wrap, n.Array("torus_wrap"));
  if (dims->empty() || dims->size() > 3 || wrap->size() != dims->size()) {
    return n.Error("torus_dims", "must list 1 to 3 axes, with one torus_wrap flag per axis");
  }
  for (size_t i = 0; i < dims->size(); ++i) {
    const std::string path = n.KeyPath("torus_dims") + "[" + std::to_string(i) + "]";
    OCCAM_ASSIGN_OR_RETURN(int64_t d, AsInt((*dims)[i], n.origin(), path));
    if (d < 1) return InvalidInput(n.origin() + ": key '" + path + "' must be >= 1");
    if (!(*wrap)[i].is_boolean()) {
      return InvalidInput(n.origin() + ": key '" + n.KeyPath("torus_wrap") + "[" +
                          std::to_string(i) + "]' must be true or false");
    }
    t.torus_dims.push_back(d);
    t.torus_wrap.push_back((*wrap)[i].get<bool>());
  }
  return t;
}

Result<ClusterSizing> ReadSizing(const Node& n) {
  OCCAM_RETURN_IF_ERROR(
      n.CheckKeys({"rule", "max_slice", "cube", "full_axis", "shapes", "partial_step"}));
  ClusterSizing s;
  OCCAM_ASSIGN_OR_RETURN(s.rule, n.String("rule"));
  if (s.rule != "gpu" && s.rule != "torus3d" && s.rule != "torus2d") {
    return n.Error("rule", "must be gpu, torus3d or torus2d (got " + Echo(s.rule) + ")");
  }
  OCCAM_ASSIGN_OR_RETURN(s.max_slice, IntAtLeast(n, "max_slice", 1, 0));
  OCCAM_ASSIGN_OR_RETURN(s.cube, IntAtLeast(n, "cube", 1, 4));
  OCCAM_ASSIGN_OR_RETURN(s.full_axis, IntAtLeast(n, "full_axis", 1, 0));
  OCCAM_ASSIGN_OR_RETURN(s.partial_step, IntAtLeast(n, "partial_step", 1, 0));
  if (n.Has("shapes")) {
    OCCAM_ASSIGN_OR_RETURN(const nlohmann::json* shapes, n.Array("shapes"));
    for (size_t i = 0; i < shapes->size(); ++i) {
      const std::string path = n.KeyPath("shapes") + "[" + std::to_string(i) + "]";
      const auto& shape = (*shapes)[i];
      if (!shape.is_array() || shape.size() != 2) {
        return InvalidInput(n.origin() + ": key '" + path + "' must be a pair [x, y]");
      }
      std::vector<int64_t> dims;
      for (const auto& d : shape) {
        OCCAM_ASSIGN_OR_RETURN(int64_t v, AsInt(d, n.origin(), path));
        dims.push_back(v);
      }
      s.shapes.push_back(dims);
    }
  }
  if (s.rule != "gpu" && s.max_slice == 0) return n.Error("max_slice", "is required for tori");
  return s;
}

Result<ClusterSpec> ReadCluster(const Node& n) {
  OCCAM_RETURN_IF_ERROR(n.CheckKeys({"name", "chip", "num_chips", "tiers"}));
  ClusterSpec c;
  OCCAM_ASSIGN_OR_RETURN(c.name, n.String("name", ""));
  OCCAM_ASSIGN_OR_RETURN(c.num_chips, IntAtLeast(n, "num_chips", 1));
  if (n.Has("chip") && n.value()["chip"].is_string()) {
    OCCAM_ASSIGN_OR_RETURN(std::string key, n.String("chip"));
    auto chip = CatalogChip(key);
    if (!chip.ok()) return n.Error("chip", chip.status().message());
    c.chip = *chip;
  } else {
    OCCAM_ASSIGN_OR_RETURN(Node chip_node, n.Object("chip"));
    OCCAM_ASSIGN_OR_RETURN(c.chip, ReadChip(chip_node));
  }
  OCCAM_ASSIGN_OR_RETURN(const nlohmann::json* tiers, n.Array("tiers"));
  if (tiers->empty()) return n.Error("tiers", "must list at least one network tier");
  for (size_t i = 0; i < tiers->size(); ++i) {
    OCCAM_ASSIGN_OR_RETURN(TierSpec t, ReadTier(n.Element((*tiers)[i], "tiers", i)));
    c.tiers.push_back(std::move(t));
  }
  return c;
}

}  // namespace

Result<ClusterDoc> ReadClusterDoc(std::string_view text, std::string_view origin) {
  OCCAM_ASSIGN_OR_RETURN(nlohmann::json doc, ParseDocument(text, origin));
  const Node root(doc, std::string(origin), "");
  OCCAM_RETURN_IF_ERROR(root.CheckKeys({"cluster", "sizing"}));
  OCCAM_ASSIGN_OR_RETURN(Node cluster_node, root.Object("cluster"));
  ClusterDoc out;
  OCCAM_ASSIGN_OR_RETURN(out.cluster, ReadCluster(cluster_node));
  if (root.Has("sizing")) {
    OCCAM_ASSIGN_OR_RETURN(Node sizing_node, root.Object("sizing"));
    OCCAM_ASSIGN_OR_RETURN(out.sizing, ReadSizing(sizing_node));
  }
  OCCAM_RETURN_IF_ERROR(ValidateCluster(out.cluster, origin));
  return out;
}

}  // namespace spec

std::string_view TierKindName(TierKind kind) {
  switch (kind) {
    case TierKind::kSwitch:
      return "switch";
    case TierKind::kMesh:
      return "mesh";
    case TierKind::kTorus:
      return "torus";
    case TierKind::kFatTree:
      return "fat_tree";
    case TierKind::kDcn:
      return "dcn";
  }
  return "?";
}

Result<ClusterSpec> ParseCluster(std::string_view text, std::string_view origin) {
  OCCAM_ASSIGN_OR_RETURN(spec::ClusterDoc doc, spec::ReadClusterDoc(text, origin));
  if (doc.cluster.name.empty()) doc.cluster.name = std::string(origin);
  return doc.cluster;
}

Result<JobSpec> ParseJob(std::string_view text, std::string_view origin) {
  OCCAM_ASSIGN_OR_RETURN(nlohmann::json doc, spec::ParseDocument(text, origin));
  const spec::Node root(doc, std::string(origin), "");
  OCCAM_RETURN_IF_ERROR(root.CheckKeys({"job"}));
  OCCAM_ASSIGN_OR_RETURN(spec::Node n, root.Object("job"));
  OCCAM_RETURN_IF_ERROR(n.CheckKeys({"seq_len",
                                     "global_batch_seqs",
                                     "global_batch_tokens",
                                     "precision",
                                     "balance",
                                     "moe_imbalance",
                                     "capacity_factor",
                                     "memory_headroom",
                                     "attention",
                                     "dropout",
                                     "overlap_grad_reduce",
                                     "grad_accumulation_fusion",
                                     "tp_comm_overlap",
                                     "cross_entropy",
                                     "fp8_output_proj",
                                     "fp8_dynamic_scaling",
                                     "compiled_loss",
                                     "torch_pipelining",
                                     "eager_autograd",
                                     "moe_host_sync",
                                     "fsdp_per_tensor",
                                     "fsdp_overlap",
                                     "optimizer_moments",
                                     "fp8_moe_cache",
                                     "moe_probs_in_activation",
                                     "loss_chunks",
                                     "master_weights",
                                     "gradients"}));
  JobSpec job;
  OCCAM_ASSIGN_OR_RETURN(job.seq_len, spec::IntAtLeast(n, "seq_len", 1));
  if (n.Has("global_batch_seqs") == n.Has("global_batch_tokens")) {
    return n.Error("global_batch_seqs", "or global_batch_tokens must be given (exactly one)");
  }
  if (n.Has("global_batch_seqs")) {
    OCCAM_ASSIGN_OR_RETURN(job.global_batch_seqs, spec::IntAtLeast(n, "global_batch_seqs", 1));
  } else {
    OCCAM_ASSIGN_OR_RETURN(int64_t tokens, spec::IntAtLeast(n, "global_batch_tokens", 1));
    if (tokens % job.seq_len != 0) {
      return n.Error("global_batch_tokens", "(" + std::to_string(tokens) +
                                                ") must be a multiple of seq_len (" +
                                                std::to_string(job.seq_len) + ")");
    }
    job.global_batch_seqs = tokens / job.seq_len;
  }
  OCCAM_ASSIGN_OR_RETURN(std::string precision, n.String("precision", "bf16"));
  auto p = ParsePrecisionName(precision);
  if (!p) return n.Error("precision", "must be bf16 or fp8 (got " + Echo(precision) + ")");
  job.precision = *p;
  OCCAM_ASSIGN_OR_RETURN(std::string balance, n.String("balance", "aux-free"));
  auto b = ParseBalanceMethodName(balance);
  if (!b) {
    return n.Error("balance",
                   "must be one of aux-free, aux-loss, global-aux-loss, seq-aux, none "
                   "(got " +
                       Echo(balance) + ")");
  }
  job.balance = *b;
  OCCAM_ASSIGN_OR_RETURN(job.moe_imbalance, n.Number("moe_imbalance", 0.0));
  OCCAM_ASSIGN_OR_RETURN(job.capacity_factor, n.Number("capacity_factor", 0.0));
  OCCAM_ASSIGN_OR_RETURN(job.memory_headroom, n.Number("memory_headroom", 0.05));
  OCCAM_ASSIGN_OR_RETURN(std::string attention, n.String("attention", "flash"));
  auto a = ParseAttentionImplName(attention);
  if (!a)
    return n.Error("attention",
                   "must be flash, flash2 or materialized (got " + Echo(attention) + ")");
  job.attention = *a;
  OCCAM_ASSIGN_OR_RETURN(job.dropout, n.Bool("dropout", false));
  OCCAM_ASSIGN_OR_RETURN(job.overlap_grad_reduce, n.Bool("overlap_grad_reduce", true));
  OCCAM_ASSIGN_OR_RETURN(job.grad_accumulation_fusion, n.Bool("grad_accumulation_fusion", true));
  OCCAM_ASSIGN_OR_RETURN(job.tp_comm_overlap, n.Bool("tp_comm_overlap", false));
  OCCAM_ASSIGN_OR_RETURN(std::string cross_entropy, n.String("cross_entropy", "fused"));
  auto ce = ParseCrossEntropyImplName(cross_entropy);
  if (!ce) {
    return n.Error("cross_entropy",
                   "must be fused, vocab_parallel or eager (got " + Echo(cross_entropy) + ")");
  }
  job.cross_entropy = *ce;
  OCCAM_ASSIGN_OR_RETURN(job.fp8_output_proj, n.Bool("fp8_output_proj", false));
  OCCAM_ASSIGN_OR_RETURN(job.fp8_dynamic_scaling, n.Bool("fp8_dynamic_scaling", false));
  OCCAM_ASSIGN_OR_RETURN(job.compiled_loss, n.Bool("compiled_loss", false));
  OCCAM_ASSIGN_OR_RETURN(job.torch_pipelining, n.Bool("torch_pipelining", false));
  OCCAM_ASSIGN_OR_RETURN(job.eager_autograd, n.Bool("eager_autograd", false));
  OCCAM_ASSIGN_OR_RETURN(job.moe_host_sync, n.Bool("moe_host_sync", true));
  OCCAM_ASSIGN_OR_RETURN(job.fsdp_per_tensor, n.Bool("fsdp_per_tensor", false));
  OCCAM_ASSIGN_OR_RETURN(job.fsdp_overlap, n.Bool("fsdp_overlap", true));
  OCCAM_ASSIGN_OR_RETURN(std::string moments, n.String("optimizer_moments", "fp32"));
  if (moments != "fp32" && moments != "bf16") {
    return n.Error("optimizer_moments", "must be fp32 or bf16 (got " + Echo(moments) + ")");
  }
  job.bf16_optimizer_moments = moments == "bf16";
  OCCAM_ASSIGN_OR_RETURN(std::string master, n.String("master_weights", "fp32"));
  if (master != "fp32" && master != "bf16") {
    return n.Error("master_weights", "must be fp32 or bf16 (got " + Echo(master) + ")");
  }
  job.bf16_master_weights = master == "bf16";
  OCCAM_ASSIGN_OR_RETURN(std::string grads, n.String("gradients", "fp32"));
  if (grads != "fp32" && grads != "bf16") {
    return n.Error("gradients", "must be fp32 or bf16 (got " + Echo(grads) + ")");
  }
  job.bf16_gradients = grads == "bf16";
  OCCAM_ASSIGN_OR_RETURN(job.loss_chunks, n.Int("loss_chunks", 0));
  if (job.loss_chunks < 0) {
    return n.Error("loss_chunks", "must be 0 (no chunking) or a chunk count >= 1 (got " +
                                      std::to_string(job.loss_chunks) + ")");
  }
  OCCAM_ASSIGN_OR_RETURN(job.fp8_moe_cache, n.Bool("fp8_moe_cache", false));
  OCCAM_ASSIGN_OR_RETURN(job.moe_probs_in_activation, n.Bool("moe_probs_in_activation", false));
  if (job.fp8_moe_cache && job.precision != Precision::kFp8) {
    return n.Error("fp8_moe_cache", "caches FP8 copies and needs precision: fp8");
  }
  OCCAM_RETURN_IF_ERROR(ValidateJob(job, origin));
  return job;
}

}  // namespace occam
