// Framework recipes: the settings a framework's published performance recipes
// choose for one model, chip, precision and release, which the benchmark
// tables made with them do not restate (data/recipes/*.json; rules and sources
// in doc/validation.md, "Framework recipes").
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "occam/status.h"
#include "occam/validate.h"
#include "validate/run_setup.h"

namespace occam::validate {

// One row of a recipe table, keyed by the run fields it applies to.
struct RecipeRow {
  // Key: the run's framework, date (the table's release), model, chip_key and
  // precision, each exactly as the run file writes them.
  std::string framework;
  std::string date;
  std::string model;
  std::string chip_key;
  std::string precision;
  // Settings: the recompute plan value ("none", "selective", "full" or
  // modules; a MaxText row: "none", "full" or a JAX dot-saving policy,
  // "dots", "dots_except_mlpwi", "dots_except_mlp"). The rest are
  // Megatron-Core's and only a Megatron-family row (megatron-lm, nemo,
  // megatron-bridge) has them: the token dispatcher (alltoall, deepep,
  // hybridep, ...), the CUDA graph setting ("none", "transformer_engine:
  // <scopes>" or "full_iteration"), and the combined 1F1B EP overlap
  // (moe_a2a_overlap).
  std::string dispatcher;
  std::string cuda_graph;
  bool a2a_overlap = false;
  std::string recompute;
  // Megatron-Core grad_reduce_in_fp32 (NeMo: optim.grad_sync_dtype fp32):
  // false keeps and reduces the main gradients in the 16-bit parameter dtype
  // (job.bf16_gradients).
  bool grad_reduce_in_fp32 = true;
  // Megatron-Core cross_entropy_loss_fusion (default false: the loss runs
  // VocabParallelCrossEntropy op by op, job.cross_entropy vocab_parallel).
  bool cross_entropy_loss_fusion = false;
  // Citation: repository, tag and commit, files and config name; whether the
  // recipe's layout is the row's (pinned) or the closest documented one, and why.
  std::string recipe;
  bool pinned = false;
  std::string note;
};

// Strict parser of a recipe table (a JSON array of rows with exactly the keys
// above; a MaxText row without the Megatron-Core ones). Errors name the
// origin and the key path.
Result<std::vector<RecipeRow>> ParseRecipes(std::string_view text, std::string_view origin);
// Every table compiled in from data/recipes/.
Result<std::vector<RecipeRow>> BundledRecipes();
// The row whose key is the run's, if any.
std::optional<RecipeRow> RecipeFor(const std::vector<RecipeRow>& rows, const PublishedRun& run);

// Fills what the recipe sets and the run leaves unstated, each listed under
// `filled` with the recipe as the reason: the recompute policy (when the run
// states none) and, for a Megatron-family row, the combined 1F1B EP overlap,
// the gradient dtype, the loss's cross entropy, and whether the MoE
// dispatcher's host sync remains (only a full-iteration CUDA graph removes it).
Status ApplyRecipe(const RecipeRow& row, RunSetup* s);

}  // namespace occam::validate
