// Reading a torchtitan job TOML back into an occam plan and job. Accepts the
// TOML-era names (local_batch_size, global_batch_size, seq_len,
// pipeline_parallel_microbatch_size) and the token-counted names of
// 2026-08-20 (#4121). The TOML is parsed by cpptoml (Debian libcpptoml-dev).
#include <cpptoml.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <sstream>

#include "frameworks/internal.h"

namespace occam::frameworks_internal {
namespace {

const std::set<std::string>& TorchtitanUnderstood() {
  static const std::set<std::string> k = {"model.name",
                                          "model.flavor",
                                          "model.converters",
                                          "training.local_batch_size",
                                          "training.global_batch_size",
                                          "training.seq_len",
                                          "training.mixed_precision_param",
                                          "training.mixed_precision_reduce",
                                          "training.num_tokens_per_microbatch_per_dp_rank",
                                          "training.num_tokens_per_train_step",
                                          "training.max_context_length",
                                          "parallelism.data_parallel_replicate_degree",
                                          "parallelism.data_parallel_shard_degree",
                                          "parallelism.fsdp_reshard_after_forward",
                                          "parallelism.tensor_parallel_degree",
                                          "parallelism.enable_sequence_parallel",
                                          "parallelism.context_parallel_degree",
                                          "parallelism.expert_parallel_degree",
                                          "parallelism.expert_tensor_parallel_degree",
                                          "parallelism.pipeline_parallel_degree",
                                          "parallelism.pipeline_parallel_schedule",
                                          "parallelism.pipeline_parallel_microbatch_size",
                                          "parallelism.num_pp_microbatches",
                                          "parallelism.pipeline_parallel_layers_per_stage",
                                          "parallelism.module_fqns_per_model_part",
                                          "parallelism.pipeline_parallel_expert_parallel_overlap",
                                          "parallelism.pipeline_parallel_first_stage_less_layers",
                                          "parallelism.pipeline_parallel_last_stage_less_layers",
                                          "parallelism.context_parallel_load_balancer",
                                          "parallelism.enable_async_tensor_parallel",
                                          "activation_checkpoint.mode",
                                          "activation_checkpoint.selective_ac_option",
                                          "compile.enable",
                                          "compile.components"};
  return k;
}

// Sections with nothing that shapes the layout: read quietly.
bool QuietSection(const std::string& key) {
  for (const char* s : {"job.", "optimizer.", "lr_scheduler.", "metrics.", "checkpoint.",
                        "profiling.", "validation.", "comm.", "experimental.", "float8.",
                        "quantize.", "fault_tolerance.", "memory_estimation.", "debug."}) {
    if (key.starts_with(s)) return true;
  }
  for (const char* k : {"model.hf_assets_path", "training.steps", "training.max_norm",
                        "training.dataset", "training.dataset_path", "training.warmup_steps",
                        "training.seed", "training.deterministic", "training.gc_freq"}) {
    if (key == k) return true;
  }
  return false;
}

// Strings of an array, joined by ','; arrays of arrays joined by '|'.
std::string ArrayText(const cpptoml::array& a) {
  std::string s;
  for (const auto& v : a) {
    if (!s.empty()) s += v->is_array() ? "|" : ",";
    if (v->is_array()) {
      s += ArrayText(*v->as_array());
    } else if (auto str = v->as<std::string>()) {
      s += str->get();
    } else if (auto i = v->as<int64_t>()) {
      s += std::to_string(i->get());
    }
  }
  return s;
}

std::string ValueText(const std::shared_ptr<cpptoml::base>& b) {
  if (auto s = b->as<std::string>()) return s->get();
  if (auto i = b->as<int64_t>()) return std::to_string(i->get());
  if (auto d = b->as<double>()) return std::to_string(d->get());
  if (auto t = b->as<bool>()) return t->get() ? "true" : "false";
  if (b->is_array()) return ArrayText(*b->as_array());
  return "";
}

Status Flatten(const cpptoml::table& t, const std::string& prefix, FrameworkFile& f) {
  for (const auto& [name, node] : t) {
    const std::string key = prefix.empty() ? name : prefix + "." + name;
    if (node->is_table()) {
      OCCAM_RETURN_IF_ERROR(Flatten(*node->as_table(), key, f));
      continue;
    }
    if (TorchtitanUnderstood().count(key)) {
      f.values[key] = ValueText(node);
      continue;
    }
    if (QuietSection(key)) continue;
    const bool layout_section =
        key.starts_with("parallelism.") || key.starts_with("activation_checkpoint.");
    if (key == "training.enable_cpu_offload" && ValueText(node) == "true") {
      return FileError(f, key, "CPU offload is not modelled by occam; remove it to estimate");
    }
    if (layout_section || NameMayChangeLayout(key)) {
      return FileError(f, key,
                       "unknown key that may change the layout; occam stops rather than "
                       "estimate a different layout (see doc/frameworks.md)");
    }
    f.warnings.push_back(f.origin + ": " + key + " is not read by occam (ignored)");
  }
  return Status::Ok();
}

}  // namespace

Result<FrameworkFile> TorchtitanParse(std::string_view text, std::string_view origin) {
  FrameworkFile f;
  f.framework = Framework::kTorchtitan;
  f.origin = std::string(origin);
  std::shared_ptr<cpptoml::table> root;
  try {
    std::istringstream in{std::string(text)};
    cpptoml::parser parser(in);
    root = parser.parse();
  } catch (const std::exception& e) {
    return InvalidInput(f.origin + ": not valid TOML: " + e.what());
  }
  OCCAM_RETURN_IF_ERROR(Flatten(*root, "", f));
  return f;
}

Result<std::optional<int64_t>> TorchtitanChips(const FrameworkFile& f) {
  int64_t world = 1;
  for (const char* k :
       {"parallelism.data_parallel_replicate_degree", "parallelism.data_parallel_shard_degree",
        "parallelism.tensor_parallel_degree", "parallelism.context_parallel_degree",
        "parallelism.pipeline_parallel_degree"}) {
    int64_t v = std::string(k) == "parallelism.data_parallel_shard_degree" ? -1 : 1;
    if (Value(f, k)) {
      OCCAM_ASSIGN_OR_RETURN(v, IntValue(f, k));
    }
    if (v == -1) return std::optional<int64_t>();
    if (v < 1) return FileError(f, k, "must be >= 1 (or -1 for data_parallel_shard_degree)");
    world *= v;
  }
  return std::optional<int64_t>(world);
}

}  // namespace occam::frameworks_internal
