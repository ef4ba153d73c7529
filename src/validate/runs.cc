// Strict parser of published-run files (the schema of data/runs/published.json,
// described in doc/validation.md), on spec's document reader (spec/doc.h).
// Every key must be present (but `framework` and `date`, which may be
// omitted), with its type or null where the schema allows null; unknown keys
// are errors. Messages name the origin and the key path ("runs.json: key
// '[12].parallel.tp' must be an integer or null (got string "8")").
#include <algorithm>
#include <cctype>
#include <cmath>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "occam/message.h"
#include "occam/validate.h"
#include "spec/doc.h"
#include "spec/embedded.h"

namespace occam {
namespace {

using Json = nlohmann::json;
using spec::Node;

// A run list holds published runs (a few hundred); more is a wrong file.
// Checked before any per-run work or allocation.
constexpr size_t kMaxRuns = 10000;
// Clusters beyond this are typos (the same bound as ValidateCluster's).
constexpr int64_t kMaxRunChips = int64_t{1} << 24;
// A run file's integers are JSON numbers a double holds exactly.
constexpr int64_t kMaxRunInteger = int64_t{1} << 53;

Status CheckBelow2To53(const Node& n, std::string_view key, int64_t v) {
  if (v < kMaxRunInteger && v > -kMaxRunInteger) return Status::Ok();
  return n.Error(key, "must be an integer below 2^53 (got " + std::to_string(v) + ")");
}

Result<int64_t> Int(const Node& n, std::string_view key) {
  OCCAM_ASSIGN_OR_RETURN(int64_t v, n.Int(key));
  OCCAM_RETURN_IF_ERROR(CheckBelow2To53(n, key, v));
  return v;
}

Result<std::optional<int64_t>> NullableInt(const Node& n, std::string_view key) {
  OCCAM_ASSIGN_OR_RETURN(std::optional<int64_t> v, n.NullableInt(key));
  if (v) {
    OCCAM_RETURN_IF_ERROR(CheckBelow2To53(n, key, *v));
  }
  return v;
}

// Counts and sizes a source may leave unstated: integers >= 1, or null.
Status ReadCounts(const Node& n,
                  std::initializer_list<std::pair<const char*, std::optional<int64_t>*>> fields) {
  for (const auto& [key, field] : fields) {
    OCCAM_ASSIGN_OR_RETURN(*field, NullableInt(n, key));
    if (*field && **field < 1) {
      return n.Error(key, "must be >= 1 or null (got " + std::to_string(**field) + ")");
    }
  }
  return Status::Ok();
}

Status ParseMoe(const Node& n, RunMoe* out) {
  OCCAM_RETURN_IF_ERROR(n.CheckKeys(
      {"experts", "active_experts", "shared_experts", "expert_ffn", "dense_layers", "note"}));
  OCCAM_ASSIGN_OR_RETURN(out->experts, Int(n, "experts"));
  OCCAM_ASSIGN_OR_RETURN(out->active_experts, Int(n, "active_experts"));
  OCCAM_ASSIGN_OR_RETURN(out->shared_experts, NullableInt(n, "shared_experts"));
  OCCAM_ASSIGN_OR_RETURN(out->expert_ffn, Int(n, "expert_ffn"));
  OCCAM_ASSIGN_OR_RETURN(out->dense_layers, NullableInt(n, "dense_layers"));
  OCCAM_ASSIGN_OR_RETURN(out->note, n.NullableString("note"));
  if (out->experts < 1 || out->active_experts < 1 || out->active_experts > out->experts ||
      out->expert_ffn < 1) {
    return n.ObjectError("needs experts >= 1, 1 <= active_experts <= experts and expert_ffn >= 1");
  }
  return Status::Ok();
}

Status ParseMla(const Node& n, RunMla* out) {
  OCCAM_RETURN_IF_ERROR(n.CheckKeys(
      {"q_lora_rank", "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim"}));
  OCCAM_ASSIGN_OR_RETURN(out->q_lora_rank, NullableInt(n, "q_lora_rank"));
  OCCAM_ASSIGN_OR_RETURN(out->kv_lora_rank, Int(n, "kv_lora_rank"));
  OCCAM_ASSIGN_OR_RETURN(out->qk_nope_head_dim, Int(n, "qk_nope_head_dim"));
  OCCAM_ASSIGN_OR_RETURN(out->qk_rope_head_dim, Int(n, "qk_rope_head_dim"));
  OCCAM_ASSIGN_OR_RETURN(out->v_head_dim, Int(n, "v_head_dim"));
  return Status::Ok();
}

Status ParseArch(const Node& n, RunArch* out) {
  OCCAM_RETURN_IF_ERROR(
      n.CheckKeys({"layers", "hidden", "heads", "kv_heads", "head_dim", "ffn", "ffn_activation",
                   "vocab", "moe", "mla", "other", "arch_source"}));
  OCCAM_ASSIGN_OR_RETURN(out->layers, Int(n, "layers"));
  OCCAM_ASSIGN_OR_RETURN(out->hidden, Int(n, "hidden"));
  OCCAM_ASSIGN_OR_RETURN(out->heads, Int(n, "heads"));
  OCCAM_RETURN_IF_ERROR(ReadCounts(n, {{"kv_heads", &out->kv_heads},
                                       {"head_dim", &out->head_dim},
                                       {"ffn", &out->ffn},
                                       {"vocab", &out->vocab}}));
  OCCAM_ASSIGN_OR_RETURN(out->ffn_activation, n.NullableString("ffn_activation"));
  OCCAM_ASSIGN_OR_RETURN(const std::optional<Node> moe, n.NullableObject("moe"));
  OCCAM_ASSIGN_OR_RETURN(const std::optional<Node> mla, n.NullableObject("mla"));
  OCCAM_ASSIGN_OR_RETURN(out->other, n.NullableString("other"));
  OCCAM_ASSIGN_OR_RETURN(out->arch_source, n.String("arch_source"));
  if (out->layers < 1 || out->hidden < 1 || out->heads < 1) {
    return n.ObjectError("needs layers, hidden and heads >= 1");
  }
  if (moe) {
    OCCAM_RETURN_IF_ERROR(ParseMoe(*moe, &out->moe.emplace()));
  }
  if (mla) {
    OCCAM_RETURN_IF_ERROR(ParseMla(*mla, &out->mla.emplace()));
  }
  return Status::Ok();
}

Status ParseParallel(const Node& n, RunParallel* out) {
  OCCAM_RETURN_IF_ERROR(n.CheckKeys(
      {"tp", "pp", "vpp", "cp", "ep", "dp", "zero", "sp", "recompute", "schedule", "other"}));
  OCCAM_RETURN_IF_ERROR(ReadCounts(n, {{"tp", &out->tp},
                                       {"pp", &out->pp},
                                       {"vpp", &out->vpp},
                                       {"cp", &out->cp},
                                       {"ep", &out->ep},
                                       {"dp", &out->dp}}));
  OCCAM_ASSIGN_OR_RETURN(out->zero, n.NullableString("zero"));
  OCCAM_ASSIGN_OR_RETURN(out->sp, n.NullableBool("sp"));
  OCCAM_ASSIGN_OR_RETURN(out->recompute, n.NullableString("recompute"));
  OCCAM_ASSIGN_OR_RETURN(out->schedule, n.NullableString("schedule"));
  OCCAM_ASSIGN_OR_RETURN(out->other, n.NullableString("other"));
  return Status::Ok();
}

Status ParseMeasured(const Node& n, RunMeasured* out) {
  OCCAM_RETURN_IF_ERROR(n.CheckKeys(
      {"metric", "kind", "flops_basis", "value", "unit", "definition", "quote", "extra"}));
  OCCAM_ASSIGN_OR_RETURN(out->metric, n.String("metric"));
  OCCAM_ASSIGN_OR_RETURN(const std::string kind, n.String("kind"));
  OCCAM_ASSIGN_OR_RETURN(out->flops_basis, n.NullableString("flops_basis"));
  OCCAM_ASSIGN_OR_RETURN(out->value, n.Number("value"));
  OCCAM_ASSIGN_OR_RETURN(out->unit, n.String("unit"));
  OCCAM_ASSIGN_OR_RETURN(out->definition, n.String("definition"));
  OCCAM_ASSIGN_OR_RETURN(out->quote, n.String("quote"));
  OCCAM_ASSIGN_OR_RETURN(const std::optional<Node> extra, n.NullableObject("extra"));
  const auto k = ParseMetricKind(kind);
  if (!k) {
    return n.Error("kind", "'" + Echo(kind) +
                               "' is not one of step_time_s, tflops_per_chip, mfu_pct, "
                               "tokens_per_s_per_chip, chip_hours_per_trillion_tokens, "
                               "memory_per_chip_bytes");
  }
  out->kind = *k;
  if (out->flops_basis && *out->flops_basis != "model" && *out->flops_basis != "hardware" &&
      *out->flops_basis != "unspecified") {
    return n.Error("flops_basis", "'" + Echo(*out->flops_basis) +
                                      "' must be model, hardware, unspecified or null");
  }
  if (out->value <= 0) return n.Error("value", "must be a finite number > 0");
  if (extra) {
    for (const auto& [key, v] : extra->value().items()) {
      OCCAM_ASSIGN_OR_RETURN(double x, spec::AsNumber(v, n.origin(), extra->KeyPath(Echo(key))));
      out->extra.emplace_back(key, x);
    }
  }
  return Status::Ok();
}

// `framework` one of RunFrameworkNames(); `date` "YYYY" or "YYYY-MM".
Status CheckFrameworkAndDate(const Node& n, const PublishedRun& run) {
  if (run.framework) {
    const auto& names = RunFrameworkNames();
    if (std::find(names.begin(), names.end(), *run.framework) == names.end()) {
      return n.Error("framework",
                     "must be one of megatron-lm, nemo, megatron-bridge, deepspeed, torchtitan, "
                     "maxtext, paxml, or null when the source does not say (got '" +
                         Echo(*run.framework) + "')");
    }
  }
  if (run.date) {
    const std::string& d = *run.date;
    auto digits = [&](size_t from, size_t count) {
      for (size_t i = from; i < from + count; ++i) {
        if (i >= d.size() || !std::isdigit(static_cast<unsigned char>(d[i]))) return false;
      }
      return true;
    };
    const bool year = d.size() == 4 && digits(0, 4);
    const bool month = d.size() == 7 && digits(0, 4) && d[4] == '-' && digits(5, 2) &&
                       d.substr(5, 2) >= "01" && d.substr(5, 2) <= "12";
    if (!year && !month) {
      return n.Error("date",
                     "must be YYYY or YYYY-MM (the source's date) or null (got '" + Echo(d) + "')");
    }
  }
  return Status::Ok();
}

Status ParseRun(const Node& n, PublishedRun* out) {
  OCCAM_RETURN_IF_ERROR(n.CheckKeys({"id",
                                     "source",
                                     "url",
                                     "model",
                                     "framework",
                                     "date",
                                     "arch",
                                     "params_total",
                                     "params_active",
                                     "seq_len",
                                     "global_batch_seqs",
                                     "global_batch_tokens",
                                     "micro_batch",
                                     "precision",
                                     "chip",
                                     "chip_key",
                                     "n_chips",
                                     "parallel",
                                     "measured",
                                     "notes",
                                     "verification",
                                     "inferred_fields",
                                     "derived_fields"}));
  OCCAM_ASSIGN_OR_RETURN(out->id, n.String("id"));
  OCCAM_ASSIGN_OR_RETURN(out->source, n.String("source"));
  OCCAM_ASSIGN_OR_RETURN(out->url, n.String("url"));
  OCCAM_ASSIGN_OR_RETURN(out->model, n.String("model"));
  OCCAM_ASSIGN_OR_RETURN(out->framework, n.OmittableString("framework"));
  OCCAM_ASSIGN_OR_RETURN(out->date, n.OmittableString("date"));
  OCCAM_ASSIGN_OR_RETURN(const Node arch, n.Object("arch"));
  OCCAM_ASSIGN_OR_RETURN(out->params_total, n.Number("params_total"));
  OCCAM_ASSIGN_OR_RETURN(out->params_active, n.NullableNumber("params_active"));
  OCCAM_RETURN_IF_ERROR(ReadCounts(n, {{"seq_len", &out->seq_len},
                                       {"global_batch_seqs", &out->global_batch_seqs},
                                       {"global_batch_tokens", &out->global_batch_tokens},
                                       {"micro_batch", &out->micro_batch}}));
  OCCAM_ASSIGN_OR_RETURN(out->precision, n.NullableString("precision"));
  OCCAM_ASSIGN_OR_RETURN(out->chip, n.String("chip"));
  OCCAM_ASSIGN_OR_RETURN(out->chip_key, n.String("chip_key"));
  OCCAM_ASSIGN_OR_RETURN(out->n_chips, Int(n, "n_chips"));
  OCCAM_ASSIGN_OR_RETURN(const Node parallel, n.Object("parallel"));
  OCCAM_ASSIGN_OR_RETURN(const Node measured, n.Object("measured"));
  OCCAM_ASSIGN_OR_RETURN(out->notes, n.String("notes"));
  OCCAM_ASSIGN_OR_RETURN(out->verification, n.String("verification"));
  OCCAM_ASSIGN_OR_RETURN(out->inferred_fields, n.StringList("inferred_fields"));
  OCCAM_ASSIGN_OR_RETURN(out->derived_fields, n.StringList("derived_fields"));
  if (out->id.empty()) return n.Error("id", "is empty");
  if (out->n_chips < 1 || out->n_chips > kMaxRunChips) {
    return n.Error("n_chips", "must be in [1, 2^24] (got " + std::to_string(out->n_chips) + ")");
  }
  OCCAM_RETURN_IF_ERROR(CheckFrameworkAndDate(n, *out));
  OCCAM_RETURN_IF_ERROR(ParseArch(arch, &out->arch));
  OCCAM_RETURN_IF_ERROR(ParseParallel(parallel, &out->parallel));
  return ParseMeasured(measured, &out->measured);
}

// A run object whose fields could not all be read: kept, with the first
// error as its skip reason (doc/validation.md, "skipped, never dropped"). The
// id is the object's own when it is a non-empty string, else its index.
PublishedRun UnreadableRun(const Json& j, const std::string& path, const std::string& error) {
  PublishedRun run;
  const auto id = j.find("id");
  const bool has_id = id != j.end() && id->is_string() && !id->get<std::string>().empty();
  run.id = has_id ? id->get<std::string>() : path;
  const auto chip = j.find("chip_key");
  if (chip != j.end() && chip->is_string()) run.chip_key = chip->get<std::string>();
  run.unreadable = error;
  return run;
}

}  // namespace

const std::vector<std::string_view>& RunFrameworkNames() {
  static const std::vector<std::string_view> kNames = {
      "megatron-lm", "nemo", "megatron-bridge", "deepspeed", "torchtitan", "maxtext", "paxml"};
  return kNames;
}

std::string_view MetricKindName(MetricKind kind) {
  switch (kind) {
    case MetricKind::kStepTimeS:
      return "step_time_s";
    case MetricKind::kTflopsPerChip:
      return "tflops_per_chip";
    case MetricKind::kMfuPct:
      return "mfu_pct";
    case MetricKind::kTokensPerSPerChip:
      return "tokens_per_s_per_chip";
    case MetricKind::kChipHoursPerTrillionTokens:
      return "chip_hours_per_trillion_tokens";
    case MetricKind::kMemoryPerChipBytes:
      return "memory_per_chip_bytes";
  }
  return "?";
}

std::optional<MetricKind> ParseMetricKind(std::string_view name) {
  for (MetricKind k : {MetricKind::kStepTimeS, MetricKind::kTflopsPerChip, MetricKind::kMfuPct,
                       MetricKind::kTokensPerSPerChip, MetricKind::kChipHoursPerTrillionTokens,
                       MetricKind::kMemoryPerChipBytes}) {
    if (MetricKindName(k) == name) return k;
  }
  return std::nullopt;
}

Result<std::vector<PublishedRun>> ParseRuns(std::string_view text, std::string_view origin) {
  const std::string where(origin);
  if (!spec::IsJsonText(text) && text.size() <= spec::kMaxDocumentBytes) {
    return InvalidInput(where + ": not valid JSON; a run file is a JSON array of run objects");
  }
  // Size (16 MiB), nesting depth and duplicate keys: spec's limits.
  OCCAM_ASSIGN_OR_RETURN(const Json root, spec::ParseDocument(text, origin));
  if (!root.is_array()) {
    return InvalidInput(where + ": the top level must be a JSON array of runs (got " +
                        spec::DescribeValue(root) + ")");
  }
  if (root.size() > kMaxRuns) {
    return InvalidInput(where + ": " + std::to_string(root.size()) +
                        " runs; a run file holds at most " + std::to_string(kMaxRuns) +
                        " (see doc/validation.md)");
  }
  std::vector<PublishedRun> runs;
  runs.reserve(root.size());
  std::set<std::string> ids;
  for (size_t i = 0; i < root.size(); ++i) {
    const std::string path = "[" + std::to_string(i) + "]";
    if (!root[i].is_object()) {
      return InvalidInput(where + ": " + path + " must be a run object (got " +
                          spec::DescribeValue(root[i]) +
                          "); a run file is a JSON array of run objects");
    }
    const Node node(root[i], where, path);
    PublishedRun run;
    Status st = ParseRun(node, &run);
    if (st.ok() && !ids.insert(run.id).second) {
      st = node.Error("id", "'" + Echo(run.id) + "' appears twice; ids must be unique");
    }
    runs.push_back(
        st.ok() ? std::move(run)
                : UnreadableRun(root[i], path, st.message() + "; run schema: doc/validation.md"));
  }
  return runs;
}

Result<std::vector<PublishedRun>> BundledRuns() {
  constexpr std::string_view kPath = "data/runs/published.json";
  for (const EmbeddedFile& f : EmbeddedFiles()) {
    if (f.path == kPath) return ParseRuns(f.content, "published.json");
  }
  return Internal("the bundled run file data/runs/published.json is not compiled in");
}

Result<std::vector<PublishedRun>> BundledMemoryRuns() {
  constexpr std::string_view kPath = "data/runs/memory.json";
  for (const EmbeddedFile& f : EmbeddedFiles()) {
    if (f.path == kPath) return ParseRuns(f.content, "memory.json");
  }
  return Internal("the bundled run file data/runs/memory.json is not compiled in");
}

}  // namespace occam
