#include "cli/common.h"

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <tuple>

#include "occam/report.h"

namespace occam::cli {

Result<std::string> ReadInputFile(const std::string& path_arg) {
  const std::string path = Echo(path_arg);  // for messages
  std::error_code ec;
  const auto st = std::filesystem::status(path_arg, ec);
  if (st.type() == std::filesystem::file_type::not_found) {
    return NotFound(path + ": no such file (give a catalog name or a path to an existing file)");
  }
  if (st.type() == std::filesystem::file_type::directory) {
    return InvalidInput(path + ": is a directory; give the path of a file inside it");
  }
  if (st.type() != std::filesystem::file_type::regular) {
    return InvalidInput(path + (ec ? ": cannot be read (" + ec.message() + ")"
                                   : ": is not a regular file (a FIFO, socket or device); "
                                     "occam reads input from regular files"));
  }
  const auto size = std::filesystem::file_size(path_arg, ec);
  if (ec) return InvalidInput(path + ": cannot read file size: " + ec.message());
  if (static_cast<int64_t>(size) > kMaxInputBytes) {
    return InvalidInput(path + ": file is " + std::to_string(size) +
                        " bytes; occam reads input files up to " + std::to_string(kMaxInputBytes) +
                        " bytes (is this the right file?)");
  }
  std::ifstream in(path_arg, std::ios::binary);
  if (!in) return InvalidInput(path + ": cannot open file for reading");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

namespace {
bool LooksLikePath(const std::string& arg) {
  return arg.find('/') != std::string::npos || arg.ends_with(".json") || arg.ends_with(".yaml") ||
         arg.ends_with(".yml");
}
}  // namespace

Result<ModelSpec> LoadModel(const std::string& arg) {
  if (!LooksLikePath(arg)) {
    auto m = CatalogModel(arg);
    if (m.ok() || m.status().code() != StatusCode::kNotFound) return m;
    std::error_code ec;
    if (!std::filesystem::exists(arg, ec)) return m;
  }
  OCCAM_ASSIGN_OR_RETURN(std::string text, ReadInputFile(arg));
  return ParseModel(text, arg);
}

Result<ClusterSpec> LoadCluster(const std::string& arg, int64_t chips) {
  if (!LooksLikePath(arg)) {
    if (chips <= 0) {
      return InvalidInput("--chips must be > 0 (got " + std::to_string(chips) +
                          "); a cluster template needs a chip count, e.g. --chips 2048");
    }
    return CatalogCluster(arg, chips);
  }
  if (chips < 0) {
    return InvalidInput("--chips must be >= 1 (got " + std::to_string(chips) +
                        "); omit it to use the cluster file's num_chips");
  }
  OCCAM_ASSIGN_OR_RETURN(std::string text, ReadInputFile(arg));
  OCCAM_ASSIGN_OR_RETURN(ClusterSpec cluster, ParseCluster(text, arg));
  if (chips > 0 && chips != cluster.num_chips) {
    if (chips > cluster.num_chips) {
      return InvalidInput(arg + ": --chips " + std::to_string(chips) + " exceeds num_chips " +
                          std::to_string(cluster.num_chips) + " in the cluster file");
    }
    cluster.num_chips = chips;
  }
  return cluster;
}

void AddJobFlags(CLI::App& cmd, JobFlags& f) {
  cmd.add_option("--job", f.job_file, "job file (YAML/JSON); flags below override it");
  cmd.add_option("--seq-len", f.seq_len, "sequence length in tokens");
  cmd.add_option("--global-batch-seqs", f.global_batch_seqs, "sequences per optimizer step");
  cmd.add_option(
      "--global-batch-tokens", f.global_batch_tokens,
      "tokens per optimizer step (e.g. 16M = 16*2^20); alternative to --global-batch-seqs");
  cmd.add_option("--precision", f.precision, "bf16 or fp8");
  cmd.add_option("--balance", f.balance,
                 "MoE balancing: aux-free, aux-loss, global-aux-loss, seq-aux, none");
  cmd.add_option("--moe-imbalance", f.moe_imbalance,
                 "EP rank load max/mean (default: from the balancing method)");
  cmd.add_option("--headroom", f.headroom, "fraction of HBM kept free (default 0.05)");
  cmd.add_option("--attention", f.attention,
                 "attention kernel: flash (default: fused, cuDNN / FlashAttention-3), flash2 "
                 "(PyTorch SDPA's FlashAttention-2) or materialized (pre-2023 score matrix)");
  cmd.add_option("--cross-entropy", f.cross_entropy,
                 "the loss's cross entropy: fused (default: one kernel), vocab_parallel "
                 "(Megatron-LM without --cross-entropy-loss-fusion) or eager (PyTorch "
                 "cross_entropy on fp32 logits, torchtitan)");
  cmd.add_flag("--dropout", f.dropout, "attention and hidden dropout on (GPT-3-era training)");
  cmd.add_flag("--no-grad-overlap", f.no_grad_overlap,
               "data-parallel gradient reduction after the last backward, not overlapped");
  cmd.add_flag("--no-grad-accumulation-fusion", f.no_grad_accumulation_fusion,
               "each micro-batch's weight gradient added into the main grads in a pass of its "
               "own (Megatron-LM before 2022-02, --no-gradient-accumulation-fusion)");
  cmd.add_flag("--tp-comm-overlap", f.tp_comm_overlap,
               "tensor-parallel collectives pipelined with their GEMMs (Megatron-LM flag)");
  cmd.add_flag("--no-moe-host-sync", f.no_moe_host_sync,
               "MoE token dispatch without a device-to-host sync per layer (static shapes)");
  cmd.add_option("--optimizer-moments", f.optimizer_moments,
                 "Adam moment precision: fp32 (default) or bf16 (DeepSeek-V3 §3.3.2)");
  cmd.add_option("--master-weights", f.master_weights,
                 "master weight precision: fp32 (default) or bf16 (no fp32 copy; torchtitan "
                 "training.dtype bfloat16)");
  cmd.add_option("--gradients", f.gradients,
                 "gradient precision: fp32 (default) or bf16 (torchtitan training.dtype bfloat16)");
  cmd.add_option("--loss-chunks", f.loss_chunks,
                 "run the head and loss over the micro-batch in N chunks (torchtitan "
                 "ChunkedLossWrapper num_chunks); 0: unchunked (default)");
  cmd.add_flag("--fp8-moe-cache", f.fp8_moe_cache,
               "keep the routed experts' SwiGLU inputs in FP8 for the backward (needs "
               "--precision fp8; DeepSeek-V3 §3.3.3)");
  cmd.add_flag("--moe-probs-in-activation", f.moe_probs_in_activation,
               "routing probabilities applied on the experts' activation output (Megatron-Core): "
               "a routed copy keeps no expert output");
}

void AddSearchFlags(CLI::App& cmd, SearchFlags& f) {
  cmd.add_option("--fix", f.fix, "plan fields to keep fixed, e.g. \"ep=64,pp=16\"");
  cmd.add_option("--max-tp", f.max_tp, "largest tensor-parallel degree to consider");
  cmd.add_flag("--no-pp", f.no_pp, "consider only layouts without pipeline parallelism");
  cmd.add_option("--threads", f.threads, "worker threads (default: all cores)");
  cmd.add_option("--simplest-within", f.simplest_within,
                 "simplest layout within this fraction of the best step time (default 0.03)");
  cmd.add_option("--pp-threshold", f.pp_threshold,
                 "PP is needed when the best layout without it is slower by more than this "
                 "fraction (default: occam's out-of-sample error band, doc/search.md)");
}

Result<SearchOptions> BuildSearchOptions(const SearchFlags& f) {
  if (f.threads < 0 || f.threads > 1024) {
    return InvalidInput("--threads must be between 0 (all cores) and 1024 (got " +
                        std::to_string(f.threads) + ")");
  }
  if (f.top < 1 || f.top > 10000) {
    return InvalidInput("--top must be between 1 and 10000 (got " + std::to_string(f.top) + ")");
  }
  if (!(f.simplest_within >= 0 && f.simplest_within < 1)) {
    return InvalidInput("--simplest-within must be in [0, 1) (e.g. 0.03)");
  }
  if (!(f.pp_threshold >= 0 && f.pp_threshold < 1)) {
    return InvalidInput("--pp-threshold must be in [0, 1) (e.g. 0.12)");
  }
  if (f.max_tp < 0) return InvalidInput("--max-tp must be >= 1");
  SearchOptions o;
  o.top = f.top;
  o.simplicity_threshold = f.simplest_within;
  o.pp_threshold = f.pp_threshold;
  o.fix = f.fix;
  o.max_tp = f.max_tp;
  o.no_pp = f.no_pp;
  o.threads = f.threads;
  return o;
}

void AddBudgetInputFlags(CLI::App& cmd, BudgetOptions& o) {
  cmd.add_option("--price-per-chip-hour", o.price_per_chip_hour,
                 "price of one chip-hour (no default: money is shown only when given)");
  cmd.add_option("--chip-watts", o.chip_watts, "chip power, W (default: the chip's TDP)");
  cmd.add_option("--busy-power-fraction", o.busy_power_fraction,
                 "fraction of chip power while computing (default 1)");
  cmd.add_option("--wait-power-fraction", o.wait_power_fraction,
                 "fraction of chip power during checkpoint stalls and restarts (default 1)");
  cmd.add_option("--host-power-share", o.host_power_share,
                 "host + network + storage power as a fraction of chip power (default 0.79)");
  cmd.add_option("--pue", o.pue, "facility power usage effectiveness (default 1.58; TPU 1.10)");
  cmd.add_option("--chip-failures-per-hour", o.chip_failures_per_hour,
                 "job-interrupting failures per chip-hour (default: Llama 3 GPU-class rate)");
  cmd.add_option("--node-failures-per-hour", o.node_failures_per_hour,
                 "job-interrupting failures per node-hour (default: Llama 3 other causes)");
  cmd.add_option("--chips-per-node", o.chips_per_node, "chips per node (host)");
  cmd.add_option("--storage-gbps", o.storage_gbps,
                 "aggregate checkpoint storage bandwidth, GB/s (default 2000)");
  cmd.add_option("--restart-overhead-s", o.restart_overhead_s,
                 "seconds to detect, replace and restart after a failure, without the "
                 "checkpoint load (default 600)");
  cmd.add_flag("--async-checkpoint", o.async_checkpoint,
               "asynchronous checkpoints: training blocks only for --async-stall-s");
  cmd.add_option("--async-stall-s", o.async_stall_s,
                 "blocking seconds of one async checkpoint (default 0.78)");
  cmd.add_option("--checkpoint-interval-s", o.checkpoint_interval_s,
                 "compute seconds between checkpoints (default: Daly's optimum)");
  cmd.add_option("--spare-fraction", o.spare_fraction,
                 "spare chips allocated beside the job, fraction (default 0)");
}

void AddWholeRunFlags(CLI::App& cmd, WholeRunFlags& f) {
  cmd.add_option("--tokens", f.tokens,
                 "training tokens, decimal (e.g. 15T): adds the whole run (occam budget)");
  AddBudgetInputFlags(cmd, f.options);
}

Result<std::string> WithWholeRun(const std::string& out, bool json, const WholeRunFlags& f,
                                 const Estimate& e, const ModelSpec& model,
                                 const ClusterSpec& cluster, const JobSpec& job) {
  if (f.tokens.empty()) return out;
  if (!e.fits) {
    return InvalidInput("--tokens: layout " + FormatPlan(e.plan) +
                        " does not fit in memory, so it has no whole run (run without --tokens "
                        "to see the memory breakdown)");
  }
  BudgetOptions o = f.options;
  OCCAM_ASSIGN_OR_RETURN(o.tokens, ParseScaled(f.tokens, "--tokens"));
  OCCAM_ASSIGN_OR_RETURN(BudgetAssumptions a, ResolveBudget(o, cluster.chip));
  OCCAM_ASSIGN_OR_RETURN(RunBudget run, BudgetRun(e, model, cluster, job, a));
  if (!json) return out + "\nwhole run (--tokens)\n" + WholeRunText(run, a.inputs);
  // ordered_json keeps the command's own key order.
  auto j = nlohmann::ordered_json::parse(out);
  j["budget"] = nlohmann::ordered_json::parse(WholeRunJson(run, a.inputs));
  return j.dump(2) + "\n";
}

Result<double> ParseScaled(const std::string& text, const std::string& what) {
  if (text.empty()) return InvalidInput(what + ": empty value (e.g. 16M, 1GiB, 4096)");
  size_t pos = 0;
  double v = 0;
  try {
    v = std::stod(text, &pos);
  } catch (...) {
    return InvalidInput(what + ": '" + Echo(text) + "' is not a number (e.g. 16M, 1GiB, 4096)");
  }
  const std::string suffix = text.substr(pos);
  double k = 1;
  if (suffix.empty() || suffix == "B")
    k = 1;
  else if (suffix == "k" || suffix == "K" || suffix == "KB")
    k = 1e3;
  else if (suffix == "M" || suffix == "MB")
    k = 1e6;
  else if (suffix == "G" || suffix == "GB")
    k = 1e9;
  else if (suffix == "T" || suffix == "TB")
    k = 1e12;
  else if (suffix == "KiB")
    k = 1024.0;
  else if (suffix == "MiB")
    k = 1024.0 * 1024;
  else if (suffix == "GiB")
    k = 1024.0 * 1024 * 1024;
  else if (suffix == "TiB")
    k = 1024.0 * 1024 * 1024 * 1024;
  else {
    return InvalidInput(what + ": unknown suffix '" + suffix + "' in '" + Echo(text) +
                        "' (use k, M, G, T, KiB, MiB, GiB, TiB)");
  }
  v *= k;
  if (!std::isfinite(v) || v <= 0) {
    return InvalidInput(what + ": '" + Echo(text) + "' must be a positive finite number");
  }
  return v;
}

Result<double> ParseTokenCount(const std::string& text, const std::string& what) {
  std::string t = text;
  double k = 1;
  if (!t.empty()) {
    const char c = t.back();
    if (c == 'k' || c == 'K') k = 1024.0;
    if (c == 'M') k = 1024.0 * 1024;
    if (c == 'G') k = 1024.0 * 1024 * 1024;
    if (c == 'T') k = 1024.0 * 1024 * 1024 * 1024;
    if (k != 1) t.pop_back();
  }
  OCCAM_ASSIGN_OR_RETURN(double v, ParseScaled(t, what));
  return v * k;
}

Result<int64_t> ParseIntFlag(const std::string& text, const std::string& flag) {
  size_t pos = 0;
  long long v = 0;
  try {
    v = std::stoll(text, &pos, 10);
  } catch (...) {
    pos = 0;
  }
  if (text.empty() || pos != text.size()) {
    return InvalidInput(flag + ": '" + Echo(text) + "' is not a whole number in [-2^63, 2^63)");
  }
  return static_cast<int64_t>(v);
}

Result<double> ParseNumberFlag(const std::string& text, const std::string& flag) {
  size_t pos = 0;
  double v = 0;
  try {
    v = std::stod(text, &pos);
  } catch (...) {
    pos = 0;
  }
  if (text.empty() || pos != text.size() || !std::isfinite(v)) {
    return InvalidInput(flag + ": '" + Echo(text) + "' is not a finite number");
  }
  return v;
}

std::string FiniteNumberCheck(const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0' || std::isfinite(v)) return "";
  return "'" + Echo(text) + "' is not a finite number";
}

std::string IntegerRangeCheck(const std::string& text) {
  errno = 0;
  char* end = nullptr;
  (void)std::strtoll(text.c_str(), &end, 10);
  if (end == text.c_str() || *end != '\0' || errno != ERANGE) return "";
  return "'" + Echo(text) + "' is beyond the integers occam reads (at most 2^63 - 1)";
}

namespace {

// --global-batch-tokens: a plain integer must be a whole number of sequences
// (the job file's rule); a suffixed, approximate one ("15.7M") is rounded to
// the nearest whole number of sequences.
Result<int64_t> BatchSeqsFromTokens(const std::string& text, int64_t seq_len) {
  OCCAM_ASSIGN_OR_RETURN(double tokens, ParseTokenCount(text, "--global-batch-tokens"));
  const bool exact = text.find_first_not_of("0123456789") == std::string::npos;
  if (exact && std::fmod(tokens, double(seq_len)) != 0) {
    return InvalidInput(fmt::format(
        "--global-batch-tokens ({}) must be a multiple of the sequence length ({}); write a "
        "suffixed value (e.g. 16M) to round to whole sequences",
        Echo(text), seq_len));
  }
  const double seqs = std::round(tokens / double(seq_len));
  if (seqs < 1) {
    return InvalidInput("--global-batch-tokens " + Echo(text) + " is less than one sequence of " +
                        std::to_string(seq_len) + " tokens");
  }
  OCCAM_RETURN_IF_ERROR(
      CheckInputRange("job.global_batch_seqs", seqs, "--global-batch-tokens / sequence length"));
  return static_cast<int64_t>(seqs);
}

// The numeric job flags, each checked by the job file's range rule.
Status ApplyNumericJobFlags(const JobFlags& f, JobSpec& job) {
  if (!f.seq_len.empty()) {
    OCCAM_ASSIGN_OR_RETURN(job.seq_len, ParseIntFlag(f.seq_len, "--seq-len"));
    OCCAM_RETURN_IF_ERROR(CheckInputRange("job.seq_len", double(job.seq_len), "--seq-len"));
  }
  if (!f.global_batch_seqs.empty() && !f.global_batch_tokens.empty()) {
    return InvalidInput(
        "--global-batch-seqs and --global-batch-tokens both given; use one of them");
  }
  if (!f.global_batch_seqs.empty()) {
    OCCAM_ASSIGN_OR_RETURN(job.global_batch_seqs,
                           ParseIntFlag(f.global_batch_seqs, "--global-batch-seqs"));
    OCCAM_RETURN_IF_ERROR(CheckInputRange("job.global_batch_seqs", double(job.global_batch_seqs),
                                          "--global-batch-seqs"));
  }
  if (!f.global_batch_tokens.empty()) {
    OCCAM_RETURN_IF_ERROR(CheckInputRange("job.seq_len", double(job.seq_len), "--seq-len"));
    OCCAM_ASSIGN_OR_RETURN(job.global_batch_seqs,
                           BatchSeqsFromTokens(f.global_batch_tokens, job.seq_len));
  }
  if (!f.moe_imbalance.empty()) {
    OCCAM_ASSIGN_OR_RETURN(job.moe_imbalance, ParseNumberFlag(f.moe_imbalance, "--moe-imbalance"));
    OCCAM_RETURN_IF_ERROR(
        CheckInputRange("job.moe_imbalance", job.moe_imbalance, "--moe-imbalance"));
  }
  if (!f.headroom.empty()) {
    OCCAM_ASSIGN_OR_RETURN(job.memory_headroom, ParseNumberFlag(f.headroom, "--headroom"));
    OCCAM_RETURN_IF_ERROR(
        CheckInputRange("job.memory_headroom", job.memory_headroom, "--headroom"));
  }
  return Status::Ok();
}

// A flag naming one value of an enum (kinds.h): unset leaves `field` as it
// is; a name `parse` does not know is bad input listing the `allowed` ones.
template <typename T, typename Parse>
Status SetNamedFlag(const std::string& text, Parse parse, const char* flag, const char* allowed,
                    T* field) {
  if (text.empty()) return Status::Ok();
  const std::optional<T> value = parse(text);
  if (!value) {
    return InvalidInput(std::string(flag) + ": '" + Echo(text) + "' is not " + allowed);
  }
  *field = *value;
  return Status::Ok();
}

}  // namespace

Result<JobSpec> BuildJob(const JobFlags& f) {
  JobSpec job;
  if (!f.job_file.empty()) {
    OCCAM_ASSIGN_OR_RETURN(std::string text, ReadInputFile(f.job_file));
    OCCAM_ASSIGN_OR_RETURN(job, ParseJob(text, f.job_file));
  }
  OCCAM_RETURN_IF_ERROR(ApplyNumericJobFlags(f, job));
  OCCAM_RETURN_IF_ERROR(
      SetNamedFlag(f.precision, ParsePrecisionName, "--precision", "bf16 or fp8", &job.precision));
  OCCAM_RETURN_IF_ERROR(SetNamedFlag(f.balance, ParseBalanceMethodName, "--balance",
                                     "one of aux-free, aux-loss, global-aux-loss, seq-aux, none",
                                     &job.balance));
  OCCAM_RETURN_IF_ERROR(SetNamedFlag(f.attention, ParseAttentionImplName, "--attention",
                                     "flash, flash2 or materialized", &job.attention));
  OCCAM_RETURN_IF_ERROR(SetNamedFlag(f.cross_entropy, ParseCrossEntropyImplName, "--cross-entropy",
                                     "fused, vocab_parallel or eager", &job.cross_entropy));
  if (f.dropout) job.dropout = true;
  if (f.no_grad_overlap) job.overlap_grad_reduce = false;
  if (f.no_grad_accumulation_fusion) job.grad_accumulation_fusion = false;
  if (f.tp_comm_overlap) job.tp_comm_overlap = true;
  if (f.no_moe_host_sync) job.moe_host_sync = false;
  if (!f.optimizer_moments.empty()) {
    if (f.optimizer_moments != "fp32" && f.optimizer_moments != "bf16") {
      return InvalidInput("--optimizer-moments: '" + Echo(f.optimizer_moments) +
                          "' is not fp32 or bf16");
    }
    job.bf16_optimizer_moments = f.optimizer_moments == "bf16";
  }
  for (auto [flag, text, field] :
       {std::tuple{"--master-weights", &f.master_weights, &job.bf16_master_weights},
        std::tuple{"--gradients", &f.gradients, &job.bf16_gradients}}) {
    if (text->empty()) continue;
    if (*text != "fp32" && *text != "bf16") {
      return InvalidInput(std::string(flag) + ": '" + Echo(*text) + "' is not fp32 or bf16");
    }
    *field = *text == "bf16";
  }
  if (!f.loss_chunks.empty()) {
    OCCAM_ASSIGN_OR_RETURN(job.loss_chunks, ParseIntFlag(f.loss_chunks, "--loss-chunks"));
    if (job.loss_chunks < 0) {
      return InvalidInput("--loss-chunks: " + f.loss_chunks +
                          " is negative; give a chunk count (0: unchunked)");
    }
  }
  if (f.moe_probs_in_activation) job.moe_probs_in_activation = true;
  if (f.fp8_moe_cache) {
    if (job.precision != Precision::kFp8) {
      return InvalidInput("--fp8-moe-cache: caches FP8 copies and needs --precision fp8");
    }
    job.fp8_moe_cache = true;
  }
  // Every value was checked above with its flag's name; this checks the rest.
  OCCAM_RETURN_IF_ERROR(ValidateJob(job, f.job_file.empty() ? "job flags" : f.job_file));
  return job;
}

void RejectNonFiniteNumbers(CLI::App& app) {
  for (CLI::App* cmd : app.get_subcommands([](CLI::App*) { return true; })) {
    for (CLI::Option* opt : cmd->get_options()) {
      if (opt->get_type_name() == "FLOAT") {
        opt->check(CLI::Validator(FiniteNumberCheck, "", "FINITE"));
      } else if (opt->get_type_name() == "INT") {
        opt->check(CLI::Validator(IntegerRangeCheck, "", "INT64"));
      }
    }
  }
}

Status WriteOutputFile(const std::string& path, const std::string& text, const std::string& flag) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return InvalidInput(flag + ": cannot open '" + path + "' for writing");
  out << text;
  out.close();
  if (!out) return InvalidInput(flag + ": writing '" + path + "' failed");
  return Status::Ok();
}

}  // namespace occam::cli
