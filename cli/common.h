// Shared shell helpers: reading files with size limits, resolving --model and
// --cluster (catalog name or file path), the job flags, and turning a Status
// into a message and an exit code.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

#include "occam/budget.h"
#include "occam/message.h"
#include "occam/ranges.h"
#include "occam/search.h"
#include "occam/spec.h"
#include "occam/status.h"

namespace occam::cli {

// Input files larger than this are rejected before parsing (a 100 MB config
// is a mistake, not a model).
constexpr int64_t kMaxInputBytes = 16ll << 20;

// Reads a whole file; errors name the file and suggest a fix.
Result<std::string> ReadInputFile(const std::string& path);

// --model: a catalog name ("deepseek-v3") or a path to a config file.
Result<ModelSpec> LoadModel(const std::string& arg);
// --cluster: a template name ("h800") sized to `chips`, or a cluster file
// (then `chips`, when > 0, must not exceed the file's num_chips).
Result<ClusterSpec> LoadCluster(const std::string& arg, int64_t chips);

// Job flags shared by estimate, simulate, plan and sweep. Numbers are kept
// as text (empty = not given) so that a given value, 0 and NaN included, is
// parsed and range-checked by the job file's rules (CheckInputRange) with a
// message naming the flag, never mistaken for "not given".
struct JobFlags {
  std::string job_file;
  std::string seq_len;
  std::string global_batch_seqs;
  std::string global_batch_tokens;  // "16M", "15.7M", "4194304"
  std::string precision;
  std::string balance;
  std::string moe_imbalance;
  std::string headroom;
  std::string attention;
  std::string cross_entropy;
  bool dropout = false;
  bool no_grad_overlap = false;
  bool no_grad_accumulation_fusion = false;
  bool tp_comm_overlap = false;
  bool no_moe_host_sync = false;
  std::string optimizer_moments;  // "fp32" or "bf16"
  std::string master_weights;     // "fp32" or "bf16"
  std::string gradients;          // "fp32" or "bf16"
  std::string loss_chunks;        // chunk count of the loss
  bool fp8_moe_cache = false;
  bool moe_probs_in_activation = false;
};
void AddJobFlags(CLI::App& cmd, JobFlags& flags);
Result<JobSpec> BuildJob(const JobFlags& flags);

// A whole-number flag value ("4096"); errors name the flag.
Result<int64_t> ParseIntFlag(const std::string& text, const std::string& flag);
// A finite number flag value ("0.05", "1e-3"); errors name the flag.
Result<double> ParseNumberFlag(const std::string& text, const std::string& flag);
// Rejects a numeric flag value that is NaN or infinite, for CLI::Validator:
// returns "" when `text` is fine, else the reason.
std::string FiniteNumberCheck(const std::string& text);
// Rejects a whole-number flag value beyond int64_t (which CLI11 would clamp
// to 2^63 - 1), echoing the text as given; "" when `text` is fine.
std::string IntegerRangeCheck(const std::string& text);
// Planner flags shared by plan, sweep and budget.
struct SearchFlags {
  int64_t top = 20;
  double simplest_within = 0.03;
  double pp_threshold = kPpErrorBand;
  std::string fix;
  int64_t max_tp = 0;
  bool no_pp = false;
  int threads = 0;
};
// --fix, --max-tp, --no-pp, --threads, --simplest-within, --pp-threshold
// (--top is added by each command with its own meaning).
void AddSearchFlags(CLI::App& cmd, SearchFlags& flags);
Result<SearchOptions> BuildSearchOptions(const SearchFlags& flags);

// The whole-run inputs (doc/budget.md), shared by budget, estimate and plan.
void AddBudgetInputFlags(CLI::App& cmd, BudgetOptions& options);
// --tokens plus the inputs: estimate and plan add the whole run when given.
struct WholeRunFlags {
  std::string tokens;
  BudgetOptions options;
};
void AddWholeRunFlags(CLI::App& cmd, WholeRunFlags& flags);
// `out` (the command's text, or its JSON object) with the whole run of `e`
// appended (text) or under the key "budget" (JSON); `out` itself when no
// --tokens was given.
Result<std::string> WithWholeRun(const std::string& out, bool json, const WholeRunFlags& flags,
                                 const Estimate& e, const ModelSpec& model,
                                 const ClusterSpec& cluster, const JobSpec& job);

// Parses "16M", "1.5G", "512MiB", "1GiB", "4096" into a count (k, M, G, T are
// decimal; KiB, MiB, GiB, TiB binary). For byte sizes and rates.
Result<double> ParseScaled(const std::string& text, const std::string& what);

// Parses a token count: "16M", "4M", "1.5G", "4194304". Suffixes k, M, G, T are
// binary (2^10, 2^20, 2^30, 2^40), as LLM batch sizes are counted: "4M tokens"
// is 1024 sequences of 4096 tokens. Decimal suffixes would not divide the
// power-of-two sequence lengths batches are built from.
Result<double> ParseTokenCount(const std::string& text, const std::string& what);

// Adds FiniteNumberCheck to every floating-point option of `app`'s
// subcommands, so "--headroom nan" or "--alpha inf" is a flag error, and
// IntegerRangeCheck to every integer one ("--chips 9223372036854775808").
void RejectNonFiniteNumbers(CLI::App& app);

// For an option whose default means "not given" (0 or -1): true when the
// user gave it, so that a given 0 or negative value is reported, not ignored.
inline bool Given(const CLI::App& cmd, const std::string& flag) { return cmd.count(flag) > 0; }

// Writes `text` to the file `path` (--csv, --trace, --html); errors name
// `flag` and the path.
Status WriteOutputFile(const std::string& path, const std::string& text, const std::string& flag);

}  // namespace occam::cli
