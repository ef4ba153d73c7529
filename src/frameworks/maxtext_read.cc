// Reading MaxText YAML overrides back into an occam plan and job (the
// inverse of maxtext.cc; -1 filling and mesh products as max_utils.py does,
// batch as types.py: global = int(devices * per_device_batch_size) * accum).
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <set>

#include "frameworks/internal.h"

namespace occam::frameworks_internal {
namespace {

constexpr const char* kAxes[] = {"tensor", "context", "expert", "fsdp", "data", "pipeline"};
// Mesh axes occam does not model: allowed only at 1.
constexpr const char* kOtherAxes[] = {
    "fsdp_transpose",         "sequence",       "tensor_sequence", "tensor_transpose",
    "context_autoregressive", "autoregressive", "diloco",          "context_usp_ulysses"};

const std::set<std::string>& MaxTextUnderstood() {
  static const std::set<std::string> k = [] {
    std::set<std::string> s = {"model_name",
                               "num_slices",
                               "shard_optimizer_over_data",
                               "per_device_batch_size",
                               "gradient_accumulation_steps",
                               "max_target_length",
                               "remat_policy",
                               "dtype",
                               "weight_dtype",
                               "quantization",
                               "context_parallel_strategy",
                               "use_batch_split_schedule",
                               "batch_split_factor",
                               "num_layers_per_pipeline_stage",
                               "num_pipeline_repeats",
                               "num_pipeline_microbatches",
                               "pipeline_parallel_layers",
                               "optimizer_memory_host_offload",
                               "parameter_memory_host_offload"};
    for (const char* t : {"ici_", "dcn_"}) {
      for (const char* a : kAxes) s.insert(std::string(t) + a + "_parallelism");
      for (const char* a : kOtherAxes) s.insert(std::string(t) + a + "_parallelism");
    }
    return s;
  }();
  return k;
}

// Keys of a run that do not shape the layout: read quietly.
bool Quiet(const std::string& key) {
  static const std::set<std::string> k = {"base_output_directory",
                                          "run_name",
                                          "steps",
                                          "dataset_type",
                                          "dataset_path",
                                          "learning_rate",
                                          "enable_checkpointing",
                                          "async_checkpointing",
                                          "log_period",
                                          "tokenizer_path",
                                          "hardware",
                                          "opt_type",
                                          "megablox",
                                          "sparse_matmul",
                                          "capacity_factor",
                                          "attention",
                                          "use_iota_embed",
                                          "enable_profiler",
                                          "profiler",
                                          "load_parameters_path",
                                          "compile_topology",
                                          "compile_topology_num_slices",
                                          "sa_block_q",
                                          "sa_block_kv"};
  return k.count(key) > 0;
}

Status CheckOtherAxes(const FrameworkFile& f) {
  for (const char* t : {"ici_", "dcn_"}) {
    for (const char* a : kOtherAxes) {
      const std::string key = std::string(t) + a + "_parallelism";
      if (!Value(f, key)) continue;
      OCCAM_ASSIGN_OR_RETURN(int64_t v, IntValue(f, key));
      if (v != 1) {
        return FileError(
            f, key,
            "the " + std::string(a) + " mesh axis is not modelled by occam (only 1 is read)");
      }
    }
  }
  for (const char* key : {"optimizer_memory_host_offload", "parameter_memory_host_offload"}) {
    if (Value(f, key) && Value(f, key) != std::string("false")) {
      return FileError(f, key, "host offload is not modelled by occam; remove it to estimate");
    }
  }
  return Status::Ok();
}

}  // namespace

Result<FrameworkFile> MaxTextParse(std::string_view text, std::string_view origin) {
  FrameworkFile f;
  f.framework = Framework::kMaxText;
  f.origin = std::string(origin);
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const std::exception& e) {
    return InvalidInput(f.origin + ": not valid YAML: " + e.what());
  }
  if (!root.IsMap()) return InvalidInput(f.origin + ": expected a YAML map of MaxText keys");
  for (const auto& kv : root) {
    const std::string key = kv.first.as<std::string>();
    if (!kv.second.IsScalar()) {
      return FileError(f, key, "expected a scalar value (MaxText overrides are key: value)");
    }
    const std::string value = kv.second.as<std::string>();
    if (MaxTextUnderstood().count(key)) {
      f.values[key] = value;
    } else if (NameMayChangeLayout(key)) {
      return FileError(f, key,
                       "unknown key that may change the layout; occam stops rather "
                       "than estimate a different layout (see doc/frameworks.md)");
    } else if (!Quiet(key)) {
      f.warnings.push_back(f.origin + ": " + key + " is not read by occam (ignored)");
    }
  }
  OCCAM_RETURN_IF_ERROR(CheckOtherAxes(f));
  return f;
}

// base.yml defaults: ici_fsdp_parallelism -1, dcn_data_parallelism -1, other axes 1.
Result<int64_t> AxisValue(const FrameworkFile& f, const std::string& tier,
                          const std::string& axis) {
  const std::string key = tier + "_" + axis + "_parallelism";
  if (!Value(f, key))
    return (tier == "ici" && axis == "fsdp") || (tier == "dcn" && axis == "data") ? -1 : 1;
  OCCAM_ASSIGN_OR_RETURN(int64_t v, IntValue(f, key));
  if (v == 0 || v < -1) return FileError(f, key, "must be >= 1 or -1 (got " + S(v) + ")");
  return v;
}

Result<std::optional<int64_t>> MaxTextChips(const FrameworkFile& f) {
  int64_t ici = 1;
  for (const char* a : kAxes) {
    OCCAM_ASSIGN_OR_RETURN(int64_t v, AxisValue(f, "ici", a));
    if (v == -1) return std::optional<int64_t>();
    ici *= v;
  }
  if (!Value(f, "num_slices")) return std::optional<int64_t>();
  OCCAM_ASSIGN_OR_RETURN(int64_t slices, IntValue(f, "num_slices"));
  if (slices < 1) return std::optional<int64_t>();
  return std::optional<int64_t>(ici * slices);
}

namespace {

// Fills the -1 of one tier (at most one) so the product is `target`.
Result<std::vector<int64_t>> Fill(const FrameworkFile& f, const std::string& tier, int64_t target) {
  std::vector<int64_t> v;
  int64_t product = 1, holes = 0;
  for (const char* a : kAxes) {
    OCCAM_ASSIGN_OR_RETURN(int64_t x, AxisValue(f, tier, a));
    v.push_back(x);
    if (x == -1)
      ++holes;
    else
      product *= x;
  }
  const std::string what = tier == "ici" ? "devices per slice" : "slices";
  if (holes > 1)
    return InvalidInput(f.origin + ": more than one " + tier +
                        "_*_parallelism is -1 (max_utils.py allows one)");
  if (holes == 1) {
    if (target % product != 0) {
      return InvalidInput(f.origin + ": the " + tier + "_* -1 cannot fill " + S(target) + " " +
                          what + " (the others multiply to " + S(product) + ")");
    }
    for (auto& x : v) {
      if (x == -1) x = target / product;
    }
    product = target;
  }
  if (product != target) {
    return InvalidInput(f.origin + ": the " + tier + "_*_parallelism values multiply to " +
                        S(product) + " but the cluster has " + S(target) + " " + what +
                        " (max_utils.py)");
  }
  return v;
}

Status ResolveBatch(const FrameworkFile& f, const Ctx& c, PlanSpec& p, JobSpec& j) {
  if (!Value(f, "per_device_batch_size")) {
    return FileError(f, "per_device_batch_size", "missing (occam needs the batch)");
  }
  OCCAM_ASSIGN_OR_RETURN(double pdbs, NumberValue(f, "per_device_batch_size"));
  int64_t accum = 1;
  if (Value(f, "gradient_accumulation_steps")) {
    OCCAM_ASSIGN_OR_RETURN(accum, IntValue(f, "gradient_accumulation_steps"));
  }
  const double per_step = pdbs * static_cast<double>(c.cluster.num_chips);
  if (!(pdbs > 0) || accum < 1 || std::abs(per_step - std::round(per_step)) > 1e-9 ||
      per_step < 1) {
    return FileError(f, "per_device_batch_size",
                     "devices x per_device_batch_size must be a whole number >= 1 of sequences");
  }
  const int64_t step = std::llround(per_step);
  j.global_batch_seqs = step * accum;
  int64_t m = 1;
  if (p.pp > 1) {
    m = p.pp;
    if (Value(f, "num_pipeline_microbatches")) {
      OCCAM_ASSIGN_OR_RETURN(m, IntValue(f, "num_pipeline_microbatches"));
    }
    if (m == -1) m = p.pp;
    if (m < 1) return FileError(f, "num_pipeline_microbatches", "must be >= 1 or -1");
  }
  if (step % (p.dp * m) != 0) {
    return FileError(f, "per_device_batch_size",
                     "the " + S(step) + " sequences of a step do not split over dp=" + S(p.dp) +
                         " x " + S(m) + " microbatches");
  }
  p.mbs = step / (p.dp * m);
  return Status::Ok();
}

Status ResolvePipeline(const FrameworkFile& f, const ModelSpec& m, PlanSpec& p) {
  if (p.pp == 1) return Status::Ok();
  p.schedule = Schedule::kGpipe;
  int64_t per_stage = 1, repeats = 1, layers = m.num_layers;
  if (Value(f, "num_layers_per_pipeline_stage")) {
    OCCAM_ASSIGN_OR_RETURN(per_stage, IntValue(f, "num_layers_per_pipeline_stage"));
  }
  if (Value(f, "num_pipeline_repeats")) {
    OCCAM_ASSIGN_OR_RETURN(repeats, IntValue(f, "num_pipeline_repeats"));
  }
  if (Value(f, "pipeline_parallel_layers")) {
    OCCAM_ASSIGN_OR_RETURN(layers, IntValue(f, "pipeline_parallel_layers"));
  }
  if (layers == -1) layers = m.num_layers;
  if (repeats == -1) repeats = per_stage > 0 ? layers / (p.pp * per_stage) : 1;
  if (repeats != 1)
    return FileError(f, "num_pipeline_repeats",
                     "circular pipelines (repeats > 1) are not modelled by occam");
  if (layers != m.num_layers)
    return FileError(f, "pipeline_parallel_layers",
                     "layers outside the pipeline are not modelled by occam");
  if (per_stage * p.pp != layers) {
    return FileError(
        f, "num_layers_per_pipeline_stage",
        S(per_stage) + " x " + S(p.pp) + " stages != " + S(layers) + " layers (types.py)");
  }
  p.stage_layers.assign(p.pp, per_stage);
  return Status::Ok();
}

Status ResolveRemat(const FrameworkFile& f, PlanSpec& p, std::vector<std::string>& notes) {
  const std::string r = Value(f, "remat_policy").value_or("full");
  if (r == "full")
    p.recompute = Recompute::kFull;
  else if (r == "none")
    p.recompute = Recompute::kNone;
  else if (r.find("offload") != std::string::npos || r == "custom") {
    return FileError(f, "remat_policy",
                     "'" + r + "' offloads or customises tensors; occam does not model it");
  } else {
    p.recompute = Recompute::kSelective;
    notes.push_back("remat_policy " + r + " is costed as occam's selective recompute");
  }
  return Status::Ok();
}

// use_batch_split_schedule splits each batch of the MoE layers in
// batch_split_factor parts, one part's all-to-all beside another's compute
// (configs/base.yml); occam models two parts (a2a_overlap=tbo).
Status ResolveBatchSplit(const FrameworkFile& f, PlanSpec& p) {
  const std::string on = Value(f, "use_batch_split_schedule").value_or("false");
  if (on != "true" && on != "True") return Status::Ok();
  const std::string factor = Value(f, "batch_split_factor").value_or("2");
  if (factor != "2") {
    return FileError(f, "batch_split_factor",
                     "'" + factor + "': occam models a split in two (tbo); set 2");
  }
  p.a2a_overlap = EpOverlap::kTwoBatch;
  return Status::Ok();
}

}  // namespace

Result<ImportedLayout> MaxTextResolve(const FrameworkFile& f, const Ctx& c) {
  ImportedLayout out;
  PlanSpec& p = out.plan;
  const int64_t slice = MaxTextSliceSize(c.cluster), slices = c.cluster.num_chips / slice;
  if (Value(f, "num_slices")) {
    OCCAM_ASSIGN_OR_RETURN(int64_t n, IntValue(f, "num_slices"));
    if (n != -1 && n != slices) {
      return FileError(
          f, "num_slices",
          S(n) + " but the cluster has " + S(slices) + " slice(s) of " + S(slice) + " chips");
    }
  }
  OCCAM_ASSIGN_OR_RETURN(auto ici, Fill(f, "ici", slice));
  OCCAM_ASSIGN_OR_RETURN(auto dcn, Fill(f, "dcn", slices));
  std::vector<int64_t> d(6);
  for (int i = 0; i < 6; ++i) d[i] = ici[i] * dcn[i];
  p.tp = d[0];
  p.cp = d[1];
  p.ep = d[2];
  p.dp = d[2] * d[3] * d[4];
  p.pp = d[5];
  p.etp = c.model.moe ? p.tp : 1;
  const int64_t shard = d[2] * d[3];
  if (shard > 1 || p.cp > 1) {
    p.zero = 3;
    p.hsdp = d[4] > 1 ? shard : 0;
  } else {
    p.zero = Value(f, "shard_optimizer_over_data") == std::string("true") ||
                     Value(f, "shard_optimizer_over_data") == std::string("True")
                 ? 1
                 : 0;
  }
  if (p.dp * p.cp == 1) p.zero = 1;  // one data-parallel rank: nothing to shard
  OCCAM_RETURN_IF_ERROR(ResolvePipeline(f, c.model, p));
  OCCAM_RETURN_IF_ERROR(ResolveRemat(f, p, out.notes));
  OCCAM_RETURN_IF_ERROR(ResolveBatchSplit(f, p));
  out.job = c.job;
  if (Value(f, "max_target_length")) {
    OCCAM_ASSIGN_OR_RETURN(out.job.seq_len, IntValue(f, "max_target_length"));
  }
  OCCAM_RETURN_IF_ERROR(ResolveBatch(f, c, p, out.job));
  out.job.precision = Value(f, "quantization").value_or("").find("fp8") != std::string::npos
                          ? Precision::kFp8
                          : Precision::kBf16;
  if (const auto mesh = MaxTextMesh(c.cluster, p)) {
    for (int i = 0; i < 6; ++i) {
      if ((*mesh)[i].ici != ici[i]) {
        return InvalidInput(
            f.origin + ": ici_" + std::string(kAxes[i]) + "_parallelism=" + S(ici[i]) +
            " places the axis differently from occam's placement (" + S((*mesh)[i].ici) +
            " inside a slice); occam would estimate another layout");
      }
    }
  }
  return out;
}

}  // namespace occam::frameworks_internal
