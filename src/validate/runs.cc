// Strict parser of published-run files (the schema of data/runs/published.json,
// described in doc/validation.md). Every key must be present (but `framework`
// and `date`, which may be omitted), with its type or
// null where the schema allows null; unknown keys are errors. Messages name
// the origin and the key path ("runs.json: [12].parallel.tp must be an
// integer or null (got string)").
#include <algorithm>
#include <cctype>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "occam/message.h"
#include "occam/validate.h"
#include "spec/embedded.h"

namespace occam {
namespace {

using Json = nlohmann::json;

constexpr int kMaxDepth = 64;
// A run list holds published runs (a few hundred); more is a wrong file.
// Checked before any per-run work or allocation.
constexpr size_t kMaxRuns = 10000;
constexpr size_t kMaxRunFileBytes = size_t{16} << 20;
// Clusters beyond this are typos (the same bound as ValidateCluster's).
constexpr int64_t kMaxRunChips = int64_t{1} << 24;

std::string TypeName(const Json& j) {
  if (j.is_null()) return "null";
  if (j.is_boolean()) return "boolean";
  // Numbers with their value (dump() writes 2^63 as written, not wrapped).
  if (j.is_number_integer() || j.is_number_unsigned()) return "integer " + j.dump();
  if (j.is_number()) return "number " + j.dump();
  if (j.is_string()) return "string";
  if (j.is_array()) return "array";
  return "object";
}

// Rejects nesting deeper than kMaxDepth before the recursive parser sees it.
Status CheckDepth(std::string_view text, std::string_view origin) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxDepth) {
        return InvalidInput(std::string(origin) + ": nesting deeper than " +
                            std::to_string(kMaxDepth) +
                            " levels; a run file is an array of flat-ish objects");
      }
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return Status::Ok();
}

// Reads the fields of one JSON object, remembering which keys were used so
// that unknown keys can be reported. The first error wins.
class ObjectReader {
 public:
  ObjectReader(const Json& j, std::string path, std::string_view origin)
      : j_(j), path_(std::move(path)), origin_(origin) {}

  Status status() const { return status_; }

  // The object itself must be an object.
  bool CheckObject() {
    if (!j_.is_object()) Fail(path_.empty() ? "run" : path_, "must be an object", j_);
    return status_.ok();
  }

  std::string String(const char* key) {
    const Json* v = Get(key);
    if (v == nullptr) return "";
    if (!v->is_string()) return Fail(Path(key), "must be a string", *v), "";
    return v->get<std::string>();
  }
  // A key the schema lets a file omit (read as null).
  std::optional<std::string> OmittableString(const char* key) {
    used_.insert(key);
    if (!status_.ok() || j_.find(key) == j_.end()) return std::nullopt;
    return OptString(key);
  }
  std::optional<std::string> OptString(const char* key) {
    const Json* v = Get(key);
    if (v == nullptr || v->is_null()) return std::nullopt;
    if (!v->is_string()) return Fail(Path(key), "must be a string or null", *v), std::nullopt;
    return v->get<std::string>();
  }
  int64_t Int(const char* key) {
    const Json* v = Get(key);
    if (v == nullptr) return 0;
    if (!IsInteger(*v)) return Fail(Path(key), "must be an integer, below 2^53", *v), 0;
    return AsInt(*v);
  }
  std::optional<int64_t> OptInt(const char* key) {
    const Json* v = Get(key);
    if (v == nullptr || v->is_null()) return std::nullopt;
    if (!IsInteger(*v))
      return Fail(Path(key), "must be an integer or null, below 2^53", *v), std::nullopt;
    return AsInt(*v);
  }
  double Number(const char* key) {
    const Json* v = Get(key);
    if (v == nullptr) return 0;
    if (!v->is_number()) return Fail(Path(key), "must be a number", *v), 0;
    return v->get<double>();
  }
  std::optional<double> OptNumber(const char* key) {
    const Json* v = Get(key);
    if (v == nullptr || v->is_null()) return std::nullopt;
    if (!v->is_number()) return Fail(Path(key), "must be a number or null", *v), std::nullopt;
    return v->get<double>();
  }
  std::optional<bool> OptBool(const char* key) {
    const Json* v = Get(key);
    if (v == nullptr || v->is_null()) return std::nullopt;
    if (!v->is_boolean()) return Fail(Path(key), "must be true, false or null", *v), std::nullopt;
    return v->get<bool>();
  }
  std::vector<std::string> StringList(const char* key) {
    std::vector<std::string> out;
    const Json* v = Get(key);
    if (v == nullptr) return out;
    if (!v->is_array()) return Fail(Path(key), "must be an array of strings", *v), out;
    for (size_t i = 0; i < v->size(); ++i) {
      const Json& e = (*v)[i];
      if (!e.is_string()) {
        Fail(Path(key) + "[" + std::to_string(i) + "]", "must be a string", e);
        return out;
      }
      out.push_back(e.get<std::string>());
    }
    return out;
  }
  // A nested object or null: returns nullptr for null (or on error).
  const Json* OptObject(const char* key) {
    const Json* v = Get(key);
    if (v == nullptr || v->is_null()) return nullptr;
    if (!v->is_object()) return Fail(Path(key), "must be an object or null", *v), nullptr;
    return v;
  }
  const Json* Object(const char* key) {
    const Json* v = Get(key);
    if (v == nullptr) return nullptr;
    if (!v->is_object()) return Fail(Path(key), "must be an object", *v), nullptr;
    return v;
  }

  // After all reads: every key of the object must have been read.
  void RejectUnknownKeys() {
    if (!status_.ok() || !j_.is_object()) return;
    for (const auto& [k, unused] : j_.items()) {
      if (used_.count(k) == 0) {
        status_ = InvalidInput(std::string(origin_) + ": " + Path(Echo(k).c_str()) +
                               " is not a key of the run schema; see doc/validation.md "
                               "(keys are case-sensitive)");
        return;
      }
    }
  }

  std::string Path(const char* key) const { return path_ + "." + key; }
  void Fail(const std::string& where, const std::string& what, const Json& got) {
    if (!status_.ok()) return;
    status_ = InvalidInput(std::string(origin_) + ": " + where + " " + what + " (got " +
                           TypeName(got) + "); see doc/validation.md for the run schema");
  }
  void FailValue(const std::string& where, const std::string& what) {
    if (!status_.ok()) return;
    status_ = InvalidInput(std::string(origin_) + ": " + where + " " + what);
  }

 private:
  // Integers beyond 2^53 (and unsigned ones beyond int64, which would wrap to
  // negative numbers) are not integers a run file can mean.
  static bool IsInteger(const Json& v) {
    if (v.is_number_unsigned()) return v.get<uint64_t>() < (uint64_t{1} << 53);
    if (v.is_number_integer()) return true;
    // 2048.0 is accepted as an integer; 2048.5 is not.
    if (v.is_number_float()) {
      const double d = v.get<double>();
      return std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9e15;
    }
    return false;
  }
  static int64_t AsInt(const Json& v) {
    if (v.is_number_float()) return static_cast<int64_t>(v.get<double>());
    if (v.is_number_unsigned()) return static_cast<int64_t>(v.get<uint64_t>());
    return v.get<int64_t>();
  }
  const Json* Get(const char* key) {
    used_.insert(key);
    if (!status_.ok()) return nullptr;
    auto it = j_.find(key);
    if (it == j_.end()) {
      status_ = InvalidInput(std::string(origin_) + ": " + Path(key) +
                             " is missing; every key of the run schema must be present "
                             "(write null when the source does not say)");
      return nullptr;
    }
    return &*it;
  }

  const Json& j_;
  std::string path_;
  std::string_view origin_;
  std::set<std::string> used_;
  Status status_;
};

Status ParseMoe(const Json& j, const std::string& path, std::string_view origin, RunMoe* out) {
  ObjectReader r(j, path, origin);
  out->experts = r.Int("experts");
  out->active_experts = r.Int("active_experts");
  out->shared_experts = r.OptInt("shared_experts");
  out->expert_ffn = r.Int("expert_ffn");
  out->dense_layers = r.OptInt("dense_layers");
  out->note = r.OptString("note");
  r.RejectUnknownKeys();
  if (r.status().ok() && (out->experts < 1 || out->active_experts < 1 ||
                          out->active_experts > out->experts || out->expert_ffn < 1)) {
    r.FailValue(path, "needs experts >= 1, 1 <= active_experts <= experts and expert_ffn >= 1");
  }
  return r.status();
}

Status ParseMla(const Json& j, const std::string& path, std::string_view origin, RunMla* out) {
  ObjectReader r(j, path, origin);
  out->q_lora_rank = r.OptInt("q_lora_rank");
  out->kv_lora_rank = r.Int("kv_lora_rank");
  out->qk_nope_head_dim = r.Int("qk_nope_head_dim");
  out->qk_rope_head_dim = r.Int("qk_rope_head_dim");
  out->v_head_dim = r.Int("v_head_dim");
  r.RejectUnknownKeys();
  return r.status();
}

Status ParseArch(const Json& j, const std::string& path, std::string_view origin, RunArch* out) {
  ObjectReader r(j, path, origin);
  out->layers = r.Int("layers");
  out->hidden = r.Int("hidden");
  out->heads = r.Int("heads");
  out->kv_heads = r.OptInt("kv_heads");
  out->head_dim = r.OptInt("head_dim");
  out->ffn = r.OptInt("ffn");
  out->ffn_activation = r.OptString("ffn_activation");
  out->vocab = r.OptInt("vocab");
  const Json* moe = r.OptObject("moe");
  const Json* mla = r.OptObject("mla");
  out->other = r.OptString("other");
  out->arch_source = r.String("arch_source");
  r.RejectUnknownKeys();
  OCCAM_RETURN_IF_ERROR(r.status());
  if (out->layers < 1 || out->hidden < 1 || out->heads < 1) {
    return InvalidInput(std::string(origin) + ": " + path + " needs layers, hidden and heads >= 1");
  }
  for (auto [name, v] : {std::pair{"kv_heads", out->kv_heads},
                         {"head_dim", out->head_dim},
                         {"ffn", out->ffn},
                         {"vocab", out->vocab}}) {
    if (v && *v < 1) {
      return InvalidInput(std::string(origin) + ": " + path + "." + name +
                          " must be >= 1 or null (got " + std::to_string(*v) + ")");
    }
  }
  if (moe != nullptr) {
    out->moe.emplace();
    OCCAM_RETURN_IF_ERROR(ParseMoe(*moe, path + ".moe", origin, &*out->moe));
  }
  if (mla != nullptr) {
    out->mla.emplace();
    OCCAM_RETURN_IF_ERROR(ParseMla(*mla, path + ".mla", origin, &*out->mla));
  }
  return Status::Ok();
}

Status ParseParallel(const Json& j, const std::string& path, std::string_view origin,
                     RunParallel* out) {
  ObjectReader r(j, path, origin);
  out->tp = r.OptInt("tp");
  out->pp = r.OptInt("pp");
  out->vpp = r.OptInt("vpp");
  out->cp = r.OptInt("cp");
  out->ep = r.OptInt("ep");
  out->dp = r.OptInt("dp");
  out->zero = r.OptString("zero");
  out->sp = r.OptBool("sp");
  out->recompute = r.OptString("recompute");
  out->schedule = r.OptString("schedule");
  out->other = r.OptString("other");
  r.RejectUnknownKeys();
  OCCAM_RETURN_IF_ERROR(r.status());
  for (auto [name, v] : {std::pair{"tp", out->tp},
                         {"pp", out->pp},
                         {"vpp", out->vpp},
                         {"cp", out->cp},
                         {"ep", out->ep},
                         {"dp", out->dp}}) {
    if (v && *v < 1) {
      return InvalidInput(std::string(origin) + ": " + path + "." + name +
                          " must be >= 1 or null (got " + std::to_string(*v) + ")");
    }
  }
  return Status::Ok();
}

Status ParseMeasured(const Json& j, const std::string& path, std::string_view origin,
                     RunMeasured* out) {
  ObjectReader r(j, path, origin);
  out->metric = r.String("metric");
  const std::string kind = r.String("kind");
  out->flops_basis = r.OptString("flops_basis");
  out->value = r.Number("value");
  out->unit = r.String("unit");
  out->definition = r.String("definition");
  out->quote = r.String("quote");
  const Json* extra = r.OptObject("extra");
  r.RejectUnknownKeys();
  OCCAM_RETURN_IF_ERROR(r.status());
  const auto k = ParseMetricKind(kind);
  if (!k) {
    return InvalidInput(std::string(origin) + ": " + path + ".kind '" + Echo(kind) +
                        "' is not one of step_time_s, tflops_per_chip, mfu_pct, "
                        "tokens_per_s_per_chip, chip_hours_per_trillion_tokens, "
                        "memory_per_chip_bytes");
  }
  out->kind = *k;
  if (out->flops_basis && *out->flops_basis != "model" && *out->flops_basis != "hardware" &&
      *out->flops_basis != "unspecified") {
    return InvalidInput(std::string(origin) + ": " + path + ".flops_basis '" +
                        Echo(*out->flops_basis) + "' must be model, hardware, unspecified or null");
  }
  if (!std::isfinite(out->value) || out->value <= 0) {
    return InvalidInput(std::string(origin) + ": " + path + ".value must be a finite number > 0");
  }
  if (extra != nullptr) {
    for (const auto& [key, v] : extra->items()) {
      if (!v.is_number()) {
        return InvalidInput(std::string(origin) + ": " + path + ".extra." + Echo(key) +
                            " must be a number (got " + TypeName(v) + ")");
      }
      out->extra.emplace_back(key, v.get<double>());
    }
  }
  return Status::Ok();
}

// `framework` one of RunFrameworkNames(); `date` "YYYY" or "YYYY-MM".
Status CheckFrameworkAndDate(const PublishedRun& run, const std::string& path,
                             std::string_view origin) {
  if (run.framework) {
    const auto& names = RunFrameworkNames();
    if (std::find(names.begin(), names.end(), *run.framework) == names.end()) {
      return InvalidInput(std::string(origin) + ": " + path + ".framework '" +
                          Echo(*run.framework) +
                          "' is not one of megatron-lm, nemo, megatron-bridge, deepspeed, "
                          "torchtitan, maxtext, paxml (null when the source does not say)");
    }
  }
  if (run.date) {
    const std::string& d = *run.date;
    auto digits = [&](size_t from, size_t n) {
      for (size_t i = from; i < from + n; ++i) {
        if (i >= d.size() || !std::isdigit(static_cast<unsigned char>(d[i]))) return false;
      }
      return true;
    };
    const bool year = d.size() == 4 && digits(0, 4);
    const bool month = d.size() == 7 && digits(0, 4) && d[4] == '-' && digits(5, 2) &&
                       d.substr(5, 2) >= "01" && d.substr(5, 2) <= "12";
    if (!year && !month) {
      return InvalidInput(std::string(origin) + ": " + path + ".date '" + Echo(d) +
                          "' must be YYYY or YYYY-MM (the source's date) or null");
    }
  }
  return Status::Ok();
}

Status ParseRun(const Json& j, const std::string& path, std::string_view origin,
                PublishedRun* out) {
  ObjectReader r(j, path, origin);
  if (!r.CheckObject()) return r.status();
  out->id = r.String("id");
  out->source = r.String("source");
  out->url = r.String("url");
  out->model = r.String("model");
  out->framework = r.OmittableString("framework");
  out->date = r.OmittableString("date");
  const Json* arch = r.Object("arch");
  out->params_total = r.Number("params_total");
  out->params_active = r.OptNumber("params_active");
  out->seq_len = r.OptInt("seq_len");
  out->global_batch_seqs = r.OptInt("global_batch_seqs");
  out->global_batch_tokens = r.OptInt("global_batch_tokens");
  out->micro_batch = r.OptInt("micro_batch");
  out->precision = r.OptString("precision");
  out->chip = r.String("chip");
  out->chip_key = r.String("chip_key");
  out->n_chips = r.Int("n_chips");
  const Json* parallel = r.Object("parallel");
  const Json* measured = r.Object("measured");
  out->notes = r.String("notes");
  out->verification = r.String("verification");
  out->inferred_fields = r.StringList("inferred_fields");
  out->derived_fields = r.StringList("derived_fields");
  r.RejectUnknownKeys();
  OCCAM_RETURN_IF_ERROR(r.status());
  if (out->id.empty()) return InvalidInput(std::string(origin) + ": " + path + ".id is empty");
  if (out->n_chips < 1 || out->n_chips > kMaxRunChips) {
    return InvalidInput(std::string(origin) + ": " + path + ".n_chips must be in [1, 2^24] (got " +
                        std::to_string(out->n_chips) + ")");
  }
  for (auto [name, v] : {std::pair{"seq_len", out->seq_len},
                         {"global_batch_seqs", out->global_batch_seqs},
                         {"global_batch_tokens", out->global_batch_tokens},
                         {"micro_batch", out->micro_batch}}) {
    if (v && *v < 1) {
      return InvalidInput(std::string(origin) + ": " + path + "." + name +
                          " must be >= 1 or null (got " + std::to_string(*v) + ")");
    }
  }
  OCCAM_RETURN_IF_ERROR(CheckFrameworkAndDate(*out, path, origin));
  OCCAM_RETURN_IF_ERROR(ParseArch(*arch, path + ".arch", origin, &out->arch));
  OCCAM_RETURN_IF_ERROR(ParseParallel(*parallel, path + ".parallel", origin, &out->parallel));
  return ParseMeasured(*measured, path + ".measured", origin, &out->measured);
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
  if (text.size() > kMaxRunFileBytes) {
    return InvalidInput(std::string(origin) + ": run file is " + std::to_string(text.size()) +
                        " bytes; occam reads run files up to 16 MiB (see doc/validation.md)");
  }
  OCCAM_RETURN_IF_ERROR(CheckDepth(text, origin));
  Json root;
  try {
    root = Json::parse(text.begin(), text.end());
  } catch (const Json::exception& e) {  // parse_error, or out_of_range for 1e999
    return InvalidInput(std::string(origin) + ": not valid JSON (" + e.what() +
                        "); a run file is a JSON array of run objects");
  }
  if (!root.is_array()) {
    return InvalidInput(std::string(origin) + ": the top level must be a JSON array of runs (got " +
                        TypeName(root) + ")");
  }
  if (root.size() > kMaxRuns) {
    return InvalidInput(std::string(origin) + ": " + std::to_string(root.size()) +
                        " runs; a run file holds at most " + std::to_string(kMaxRuns) +
                        " (see doc/validation.md)");
  }
  std::vector<PublishedRun> runs;
  runs.reserve(root.size());
  std::set<std::string> ids;
  try {  // every conversion is checked first; this keeps a missed one a message
    for (size_t i = 0; i < root.size(); ++i) {
      const std::string path = "[" + std::to_string(i) + "]";
      if (!root[i].is_object()) {
        return InvalidInput(std::string(origin) + ": " + path + " must be a run object (got " +
                            TypeName(root[i]) + "); a run file is a JSON array of run objects");
      }
      PublishedRun run;
      Status st = ParseRun(root[i], path, origin, &run);
      if (st.ok() && !ids.insert(run.id).second) {
        st = InvalidInput(std::string(origin) + ": " + path + ".id '" + Echo(run.id) +
                          "' appears twice; ids must be unique");
      }
      runs.push_back(st.ok() ? std::move(run) : UnreadableRun(root[i], path, st.message()));
    }
  } catch (const Json::exception& e) {
    return InvalidInput(std::string(origin) + ": unreadable value (" + Echo(e.what()) +
                        "); see doc/validation.md for the run schema");
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
